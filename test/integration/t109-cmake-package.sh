#!/bin/sh
# The installed CMake package and the wrappers as CMake's compilers. A project in C and
# C++ with MPI (test/programs/cmake-user) finds hpmeasure with find_package and links
# hpmeasure::user:
#  - built with CC=hp-mpicc CXX=hp-mpicxx it measures: the user regions have exact visits
#    on each of 2 ranks, and CMake's compiler checks and its try-run program (built by
#    the wrapper) leave no experiment behind;
#  - built with the plain mpicc/mpicxx the user API compiles to nothing;
#  - find_package and pkg-config (hpmeasure.pc) give the same include directory, library
#    directory and version; a newer version than the installed one is refused.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 20

SRC="$PROGRAMS/cmake-user"
# `make install DESTDIR=test/work/dest`, staged by make check before the tests (Makefile.am).
DEST="$HP_BUILDDIR/test/work/dest"
check "make check staged make install DESTDIR=$DEST" test -f "$DEST.stamp"
PREFIX="$DEST$(sed -n 's/^prefix = //p' "$HP_BUILDDIR/Makefile")"
CONFIG=$(find "$DEST" -name hpmeasure-config.cmake)
PC=$(find "$DEST" -name hpmeasure.pc)
check_eq "the package configuration is installed in <libdir>/cmake/hpmeasure" \
    "$PREFIX/lib/cmake/hpmeasure/hpmeasure-config.cmake" "$CONFIG"
run2() { timeout -k 10 "${HP_MPI_TIMEOUT:-60}" mpiexec -n 2 "$@"; }

# ---- measured: the wrappers as CMake's compilers -----------------------------------------------
mkdir hp && cd hp || exit 99
# A probe that measured would write here (CMake deletes its own scratch directories).
check "CC=hp-mpicc CXX=hp-mpicxx cmake configures" \
    env CC=hp-mpicc CXX=hp-mpicxx HP_EXPERIMENT_DIRECTORY="$WORK/configure-exp" \
    cmake -DCMAKE_PREFIX_PATH="$PREFIX" "$SRC"
check "CMake uses the wrappers" sh -c \
    'grep -q "^CMAKE_C_COMPILER:.*/hp-mpicc$" CMakeCache.txt &&
     grep -q "^CMAKE_CXX_COMPILER:.*/hp-mpicxx$" CMakeCache.txt'
check "find_package took the installed package" \
    grep -qx "hpmeasure_DIR:PATH=$(dirname "$CONFIG")" CMakeCache.txt
check_eq "CMake's checks and try-run program measured nothing" "" \
    "$(find . -name 'hp-*' -type d; ls -d "$WORK/configure-exp"* 2>/dev/null)"
check "cmake --build builds" cmake --build .
check "the program links the MPI measurement library" sh -c \
    'readelf -d hpuser | grep -q "NEEDED.*libhpmeasure_mpi\.so"'
check_eq "2 ranks run and print the result" "total=29" "$(run2 ./hpuser 2>"$WORK/run.err")"
check_eq "one experiment directory, from the program" "1" "$(ls -d hp-hpuser-* | wc -l)"
# "path rank visits" of the program's functions, user regions and MPI calls.
$CUBEDUMP hp-hpuser-*/profile.cubex | cut -f1-3 | sed 's/\tvisits=/ /; s/\t/ /' |
    grep -E '^hpuser(/(main|iterate|hpuser_kernel|kernel|step|exchange|MPI_[A-Za-z_]+))* ' |
    LC_ALL=C sort >visits.txt
LC_ALL=C sort >expected.txt <<'END'
hpuser 0 1
hpuser 1 1
hpuser/main 0 1
hpuser/main 1 1
hpuser/main/MPI_Init 0 1
hpuser/main/MPI_Init 1 1
hpuser/main/MPI_Comm_rank 0 1
hpuser/main/MPI_Comm_rank 1 1
hpuser/main/iterate 0 1
hpuser/main/iterate 1 1
hpuser/main/iterate/hpuser_kernel 0 3
hpuser/main/iterate/hpuser_kernel 1 3
hpuser/main/iterate/hpuser_kernel/kernel 0 3
hpuser/main/iterate/hpuser_kernel/kernel 1 3
hpuser/main/iterate/hpuser_kernel/kernel/step 0 6
hpuser/main/iterate/hpuser_kernel/kernel/step 1 9
hpuser/main/iterate/exchange 0 3
hpuser/main/iterate/exchange 1 3
hpuser/main/iterate/exchange/MPI_Allreduce 0 3
hpuser/main/iterate/exchange/MPI_Allreduce 1 3
hpuser/main/MPI_Finalize 0 1
hpuser/main/MPI_Finalize 1 1
END
check "exact visits per rank: C and C++ functions, user regions, MPI calls" \
    diff -u expected.txt visits.txt
FOUND="$WORK/hp/hpmeasure-found.txt"

# ---- plain: the same project without the wrappers ----------------------------------------------
cd "$WORK" && mkdir plain && cd plain || exit 99
check "CC=mpicc CXX=mpicxx cmake configures and builds" sh -c \
    "CC=mpicc CXX=mpicxx cmake -DCMAKE_PREFIX_PATH='$PREFIX' '$SRC' && cmake --build ."
check_eq "plain: no hpmeasure symbol or library, same result, no experiment" \
    "||total=29|" \
    "$(nm -u hpuser | grep -i ' hp_'; echo "|$(readelf -d hpuser | grep libhpmeasure)|$(run2 ./hpuser 2>/dev/null)|$(ls -d hp-* 2>/dev/null)")"

# ---- pkg-config and find_package agree ------------------------------------------------------------
pc() {
    PKG_CONFIG_PATH=$(dirname "$PC") pkg-config --define-variable=prefix="$PREFIX" "$@" hpmeasure
}
field() { sed -n "s/^$1=//p" "$FOUND"; }
check_eq "version: find_package = pkg-config" "$(pc --modversion)" "$(field version)"
check_eq "include directory: hpmeasure::user = pkg-config" "$(pc --variable=includedir)" \
    "$(field includedir)"
check_eq "pkg-config's Cflags are that directory" "-I$(field includedir)" "$(pc --cflags | sed 's/ *$//')"
check_eq "library directory: hpmeasure_LIBRARY_DIRS = pkg-config" "$(pc --variable=libdir)" \
    "$(field libdir)"
check "the include directory holds hp/user.h, hpmeasure_INSTRUMENT exists" sh -c \
    "test -f '$(field includedir)/hp/user.h' && test -x '$(field instrument)'"

# ---- a version newer than the installed one is refused -------------------------------------------
cd "$WORK" && mkdir newer && cd newer || exit 99
cmake -DCMAKE_PREFIX_PATH="$PREFIX" -DHPUSER_WANT_VERSION=99.0 "$SRC" >cmake.out 2>&1
check_eq "find_package(hpmeasure 99.0) fails" "1" "$?"
check "and says which version it found" grep -q 'compatible with requested version "99.0"' cmake.out

finish
