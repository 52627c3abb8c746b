#!/bin/sh
# A CMake project built with hp-instrument in both ways CMake offers:
#  A. CC="hp-instrument gcc" cmake ...: CMake splits CC into CMAKE_C_COMPILER
#     (hp-instrument) and CMAKE_C_COMPILER_ARG1 (gcc) and uses both on every call;
#  B. -DCMAKE_C_COMPILER_LAUNCHER=hp-instrument -DCMAKE_C_LINKER_LAUNCHER=hp-instrument:
#     the compiler launcher alone would instrument the objects but link without the core
#     (glibc's no-op hooks would satisfy the link silently), so the linker launcher is
#     needed too;
#  C. -DCMAKE_C_COMPILER=hp-gcc, the one-word compiler.
# CMake's own test programs (compiler checks, check_c_source_runs) must not leave
# experiment directories behind.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 24

: "${HP_INSTRUMENT_INCLUDEDIR:=$HP_SRCDIR/include}"
# -finstrument-functions, whether or not the GCC plug-in is built (its objects differ).
HP_INSTRUMENT_PLUGIN=
export HP_INSTRUMENT_INCLUDEDIR HP_INSTRUMENT_PLUGIN
SRC="$PROGRAMS/instrument/cmake"

# built_ok label: the objects of build dir $PWD carry the hooks, the program links the
# core, runs, and writes its profile.
built_ok() {
    check "$1: configure and build left no experiment directory" sh -c \
        '! find . -name "hp-*" -type d | grep .'
    check "$1: objects reference __cyg_profile_func_enter" sh -c \
        'nm -u CMakeFiles/hpcmake.dir/main.c.o | grep -qw __cyg_profile_func_enter &&
         nm -u CMakeFiles/shapes.dir/shapes.c.o | grep -qw __cyg_profile_func_enter'
    check "$1: the program links libhpmeasure" sh -c \
        'readelf -d hpcmake | grep -q "NEEDED.*libhpmeasure"'
    check_eq "$1: the program runs and prints its result" "perimeter=14" \
        "$(./hpcmake 2>"$WORK/run.err")"
    check "$1: the run writes hp-hpcmake-*/profile.cubex" sh -c \
        'test -f hp-hpcmake-*/profile.cubex'
}

mkdir build-cc build-launcher build-wrapper

cd "$WORK/build-cc" || exit 99
check "A: CC=\"hp-instrument gcc\" cmake configures" env CC="hp-instrument gcc" cmake "$SRC"
check "A: CMake keeps gcc as the compiler's first argument" sh -c \
    'grep -q "^CMAKE_C_COMPILER:FILEPATH=.*/hp-instrument$" CMakeCache.txt &&
     grep -q "^CMAKE_C_COMPILER_ARG1:STRING= *gcc$" CMakeCache.txt'
check "A: cmake --build builds" cmake --build .
built_ok A

cd "$WORK/build-launcher" || exit 99
check "B: cmake with compiler and linker launchers configures" \
    env -u CC cmake -DCMAKE_C_COMPILER_LAUNCHER=hp-instrument -DCMAKE_C_LINKER_LAUNCHER=hp-instrument "$SRC"
check "B: cmake --build builds" cmake --build .
built_ok B

cd "$WORK/build-wrapper" || exit 99
check "C: cmake -DCMAKE_C_COMPILER=hp-gcc configures" env -u CC cmake -DCMAKE_C_COMPILER=hp-gcc "$SRC"
check "C: CMake uses hp-gcc" grep -q "^CMAKE_C_COMPILER:.*hp-gcc$" CMakeCache.txt
check "C: cmake --build builds" cmake --build .
built_ok C
check_eq "C: the profile has exactly the program's functions" \
    "hpcmake visits=1|hpcmake/main visits=1|hpcmake/main/shapes_perimeter visits=1" \
    "$($CUBEDUMP hp-hpcmake-*/profile.cubex | cut -f1,3 | tr '\t' ' ' | paste -sd'|')"

finish
