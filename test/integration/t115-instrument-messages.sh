#!/bin/sh
# hp-instrument says at compile time, once per command, which hooks it used and why
# whenever it is not the GCC plug-in, and the profile's instrumentation note names the
# same (doc/hp-instrument.md, "What is instrumented, and why"):
#   - -flto builds use the plug-in (its report of the unit used to be lost with -flto,
#     so the note said "without the GCC plug-in"): no line, the note names the plug-in;
#   - HP_INSTRUMENT_PLUGIN= (set and empty): one line for a command with two sources,
#     none for a link of objects alone, none with --no-plugin;
#   - hp-instrument mpicxx with MPICH_CXX=clang++: one line naming clang's
#     -finstrument-functions-after-inlining, and the note names it too.
# And an instrumented compilation shows each of GCC's warnings as often as plain gcc:
# h() below gets its -Warray-bounds warning twice from GCC when the hooks' branches make
# it duplicate the body (jump threading); plain gcc gives it once.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 12
unset HP_INSTRUMENT_STRICT HP_INSTRUMENT_PLUGIN HP_WRAPPER HP_WRAPPER_ARGS HP_INSTRUMENT_TEST_FAIL
export HP_SAMPLING_FREQUENCY=0

EMPTY_NOTE="hp-instrument: not using the GCC plug-in: HP_INSTRUMENT_PLUGIN is set and empty; instrumenting with -finstrument-functions, which also instruments inline functions and can slow C++ programs down many times (--no-plugin silences this)"
CLANG_NOTE="hp-instrument: 'mpicxx' is clang, which the GCC plug-in cannot instrument; instrumenting with -finstrument-functions-after-inlining: the functions that remain calls after inlining (--no-plugin silences this)"
PLUGIN_LINE="  GCC plug-in: 2 functions instrumented in 1 translation unit; left out: 0 declared inline, 0 compiler-generated, 0 in system headers, 0 by the compile-time filter"

cat >prog.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) int twice(int x) { return 2 * x; }
int main(void) { printf("%d\n", twice(21)); return 0; }
EOF
cat >other.c <<'EOF'
int other(void) { return 1; }
EOF
# The instrumentation note of a program's run: the line after "Instrumentation".
note_of() {
    rm -rf "exp-$1"
    HP_EXPERIMENT_DIRECTORY="exp-$1" "./$1" >/dev/null &&
        sed -n '/^Instrumentation$/{n;p;q}' "exp-$1/summary.txt"
}

# ---- -flto: the plug-in, quietly, and the note says so ------------------------------------
if [ -f "$HP_INSTRUMENT_LIBDIR/hpmeasure/hpmeasure_gcc.so" ]; then
    hp-instrument gcc -O2 -flto -o lto prog.c 2>lto.err
    check_eq "-flto in one step: nothing on stderr, the note names the plug-in" \
        "|$PLUGIN_LINE" "$(without_asan_ld_warnings lto.err)|$(note_of lto)"
    { hp-instrument gcc -O2 -flto -c prog.c -o prog.o && hp-instrument gcc -O2 -flto -o lto2 prog.o; } 2>lto2.err
    check_eq "-flto compile, then link: nothing on stderr, the note names the plug-in" \
        "|$PLUGIN_LINE" "$(without_asan_ld_warnings lto2.err)|$(note_of lto2)"
    check_eq "-flto: the hooks are the plug-in's" "yes" \
        "$(nm -u lto | grep -qw __hp_plugin_enter && echo yes)"
else
    for i in 1 2 3; do ok "# SKIP the GCC plug-in was not built (gcc-12-plugin-dev)"; done
fi

# ---- HP_INSTRUMENT_PLUGIN= ------------------------------------------------------------------
HP_INSTRUMENT_PLUGIN= hp-instrument gcc -O1 -c prog.c other.c 2>empty.err
check_eq "HP_INSTRUMENT_PLUGIN= : one line for a command with two sources" \
    "$EMPTY_NOTE" "$(without_asan_ld_warnings empty.err)"
HP_INSTRUMENT_PLUGIN= hp-instrument gcc -o empty prog.o other.o 2>empty-link.err
check_eq "HP_INSTRUMENT_PLUGIN= : nothing for a link of objects alone" "" "$(without_asan_ld_warnings empty-link.err)"
HP_INSTRUMENT_PLUGIN= hp-instrument --no-plugin gcc -O1 -c prog.c 2>empty-quiet.err
check_eq "HP_INSTRUMENT_PLUGIN= with --no-plugin: nothing" "" "$(without_asan_ld_warnings empty-quiet.err)"
HP_INSTRUMENT_PLUGIN= hp-instrument gcc -O1 -o empty prog.c 2>/dev/null
check_eq "HP_INSTRUMENT_PLUGIN= : the note names -finstrument-functions" \
    "  compiler hooks without the GCC plug-in (-finstrument-functions): every function of the instrumented sources" \
    "$(note_of empty)"

# ---- clang through mpicxx ---------------------------------------------------------------------
if command -v mpicxx >/dev/null && command -v clang++ >/dev/null; then
    printf '#include <cstdio>\n__attribute__((noinline)) int twice(int x) { return 2 * x; }\nint main() { std::printf("%%d\\n", twice(21)); }\n' >prog.cpp
    MPICH_CXX=clang++ hp-instrument mpicxx -O2 -o viaclang prog.cpp 2>clang.err
    check_eq "MPICH_CXX=clang++ hp-instrument mpicxx: one line naming clang's mode" \
        "$CLANG_NOTE" "$(without_asan_ld_warnings clang.err)"
    check_eq "MPICH_CXX=clang++: the note names clang's after-inlining hooks" \
        "  compiler hooks of clang (-finstrument-functions-after-inlining): the functions of the instrumented sources that remain calls after inlining" \
        "$(note_of viaclang)"
else
    for i in 1 2; do ok "# SKIP mpicxx or clang++ not installed"; done
fi

# ---- GCC's warnings as often as plain gcc -------------------------------------------------------
cat >warn.c <<'EOF'
int arr[4];
__attribute__((noinline)) int h(int i) { return arr[5] + i; }
__attribute__((noinline)) int sum(int *a, int n) { int s; for (int i = 0; i < n; i++) s += a[i]; return s; }
int main(int argc, char **argv) { (void)argv; return h(1) + sum(arr, argc); }
EOF
gcc -O2 -Wall -c warn.c -o plain.o 2>plain.err
hp-instrument gcc -O2 -Wall -c warn.c -o inst.o 2>inst.err
check_eq "plain gcc: one -Warray-bounds and one -Wmaybe-uninitialized warning" "2" \
    "$(grep -c 'warning:' plain.err)"
check "hp-instrument gcc: the same warnings, each as often" \
    diff -u plain.err inst.err
# Without the fallback's held output (HP_INSTRUMENT_STRICT=1), GCC's own repeat shows:
# the check above can fail.
if [ -f "$HP_INSTRUMENT_LIBDIR/hpmeasure/hpmeasure_gcc.so" ]; then
    HP_INSTRUMENT_STRICT=1 hp-instrument gcc -O2 -Wall -c warn.c -o strict.o 2>strict.err
    check_eq "HP_INSTRUMENT_STRICT=1 shows GCC's output as it is: the repeated warning" "3" \
        "$(grep -c 'warning:' strict.err)"
else
    ok "# SKIP the GCC plug-in was not built (gcc-12-plugin-dev)"
fi
finish
