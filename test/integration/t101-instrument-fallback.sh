#!/bin/bash
# A build never fails because of us: when a compilation fails with the GCC plug-in (here
# on purpose, HP_INSTRUMENT_TEST_FAIL), hp-instrument compiles it again with
# -finstrument-functions, says so in exactly one line, and the program still runs and is
# measured with exact visits; the profile's instrumentation note names the unit. When
# -finstrument-functions fails too, or clang's hooks fail, the unit is compiled without
# instrumentation. The user's own errors (a syntax error, -Werror) are reported once,
# exactly as the plain compiler reports them, with its exit status; a failed link is
# not run again, a failed link-time compilation (-flto) is; HP_INSTRUMENT_STRICT=1 (which the other tests set) turns all this off.
# A source that can be read only once (bash's <(...), a pipe on /dev/stdin) is compiled
# once, without a fallback; a retry that cannot be started leaves the first failure
# standing; on a terminal the diagnostics keep the colours (and links) of the plain ones.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 33
unset HP_INSTRUMENT_STRICT HP_WRAPPER HP_WRAPPER_ARGS HP_INSTRUMENT_TEST_FAIL HP_INSTRUMENT_PLUGIN
export HP_OVERHEAD_BUDGET=0

if [ ! -f "$HP_INSTRUMENT_LIBDIR/hpmeasure/hpmeasure_gcc.so" ]; then
    for i in $(seq 33); do echo "ok $i # SKIP the GCC plug-in was not built (gcc-12-plugin-dev)"; done
    exit 0
fi
cp "$PROGRAMS/fallback/work.c" "$PROGRAMS/fallback/part.c" .
NOTE_END='; compiled with -finstrument-functions instead (HP_INSTRUMENT_STRICT=1 makes this an error)'

# "path visits" of every call path, the root called "prog".
tree_of() {
    $CUBEDUMP "$1" | awk -F'\t' '{ sub("visits=", "", $3); sub(/^[^\/]*/, "prog", $1); print $1, $3 }'
}

# ---- the plug-in fails on one unit: -finstrument-functions, one note, exact visits ----
check "part.c builds with the plug-in" hp-gcc -O2 -c part.c -o part.o
check "work.c: the plug-in fails (internal compiler error), the build succeeds" \
    env HP_INSTRUMENT_TEST_FAIL=ice hp-gcc -O2 -c work.c -o work.o
check_eq "exactly one line on stderr: the file, what failed, what was used" \
    "hp-instrument: work.c: compiling with the GCC plug-in failed (internal compiler error: hpmeasure_gcc: failing on purpose (test-fail=ice), exit status N)$NOTE_END" \
    "$(sed 's/exit status [0-9]*)/exit status N)/' "$WORK/last.err")"
check "work.o has -finstrument-functions' hooks" sh -c 'nm -u work.o | grep -q __cyg_profile_func_enter'
check "link" hp-gcc -O2 -o prog work.o part.o
check_eq "nothing on stderr when nothing fails" "" "$(without_asan_ld_warnings "$WORK/last.err")"
HP_EXPERIMENT_DIRECTORY=exp check "the program runs" ./prog
check_eq "its output is the plain one" "sum 209" "$(cat "$WORK/last.out")"
check_eq "exact visits through both kinds of hooks" \
    "prog 1|prog/main 1|prog/main/work 10|prog/main/work/leaf 20|prog/main/work/part 10" \
    "$(tree_of exp/profile.cubex | paste -sd'|')"
check_eq "summary.txt: the plug-in's unit counted, the fallen-back unit named" \
    "  GCC plug-in: 1 functions instrumented in 1 translation unit|  fell back: the GCC plug-in failed on 1 translation unit at build time; hp-instrument compiled it again with:|    $WORK/work.c: -finstrument-functions (internal compiler error: hpmeasure_gcc: failing on purpose (test-fail=ice), exit status N)" \
    "$(grep -E '^  (GCC plug-in|fell back)|^    /' exp/summary.txt | sed 's/; left out.*//; s/exit status [0-9]*)/exit status N)/' | paste -sd'|')"
check_eq "hp-report reads the same note back from profile.cubex" \
    "$(grep -A1 '^  fell back' exp/summary.txt)" \
    "$(hp-report exp 2>&1 | grep -A1 '^  fell back')"

# ---- an ordinary error of the plug-in, Fortran, standard input ----------------------------
check "an error (not a crash) of the plug-in falls back too" \
    env HP_INSTRUMENT_TEST_FAIL=error hp-gcc -O2 -c work.c -o work2.o
check_eq "one note naming the error" \
    "hp-instrument: work.c: compiling with the GCC plug-in failed (error: hpmeasure_gcc: failing on purpose (test-fail=error), exit status 1)$NOTE_END" \
    "$(cat "$WORK/last.err")"
printf 'program f\n  call s()\ncontains\n  subroutine s()\n    print *, 7\n  end subroutine\nend program\n' >f.f90
HP_INSTRUMENT_TEST_FAIL=ice hp-gfortran -o f f.f90 2>/dev/null
HP_EXPERIMENT_DIRECTORY=exp-f check "Fortran: built through the fallback, runs" ./f
check "Fortran: the profile names the unit" grep -q "^    $WORK/f.f90: -finstrument-functions (internal" exp-f/summary.txt
HP_INSTRUMENT_TEST_FAIL=ice hp-gcc -O2 -x c -c - -o stdin.o <work.c 2>stdin.err
check_eq "a source on standard input is read again for the fallback" "yes|1" \
    "$(nm -u stdin.o | grep -q __cyg_profile_func_enter && echo yes)|$(grep -c '^hp-instrument: <stdin>: ' stdin.err)"

hp-gcc -O2 -flto -c work.c -o work-lto.o && hp-gcc -O2 -flto -c part.c -o part-lto.o
HP_INSTRUMENT_TEST_FAIL=ice hp-gcc -O2 -flto -o prog-lto work-lto.o part-lto.o 2>lto.err
check_eq "-flto: the plug-in fails in the link's compilation, which is run again" \
    "sum 209|1" "$(./prog-lto)|$(grep -c '^hp-instrument: prog-lto: compiling with the GCC plug-in failed (internal compiler error' lto.err)"

# ---- HP_INSTRUMENT_STRICT=1: the build fails as the compiler did ----------------------------
rm -f strict.o
expect_fail "HP_INSTRUMENT_STRICT=1: the plug-in's failure fails the build" \
    "internal compiler error: hpmeasure_gcc: failing on purpose" \
    env HP_INSTRUMENT_STRICT=1 HP_INSTRUMENT_TEST_FAIL=ice hp-gcc -O2 -c work.c -o strict.o
check_eq "... with no note and no object" "0|no object" \
    "$(grep -c '^hp-instrument' "$WORK/last.err")|$(test -e strict.o || echo no object)"
expect_fail "HP_INSTRUMENT_STRICT with a bad value: exit 2, the accepted values" \
    "^hp-instrument: HP_INSTRUMENT_STRICT=sometimes: unknown value; accepted: on, off" \
    env HP_INSTRUMENT_STRICT=sometimes hp-gcc -c part.c -o part.o

# ---- the user's errors: once, as the plain compiler reports them -----------------------------
printf 'int main(void)\n{\n    return missing;\n}\n' >bad.c
gcc -c bad.c -o bad.o 2>plain.err
plain_status=$?
HP_INSTRUMENT_TEST_FAIL=ice hp-gcc -c bad.c -o bad.o 2>hp.err
status=$?
check_eq "a syntax error: the compiler's exit status, its diagnostics exactly once" \
    "$plain_status|1|$(cat plain.err)" "$status|$(grep -c 'error:' hp.err)|$(cat hp.err)"
printf 'int main(void)\n{\n    int unused;\n    return 0;\n}\n' >warn.c
gcc -Wall -Werror -c warn.c -o warn.o 2>plain.err
plain_status=$?
HP_INSTRUMENT_TEST_FAIL=ice hp-gcc -Wall -Werror -c warn.c -o warn.o 2>hp.err
status=$?
check_eq "-Werror: fails as the plain build, its diagnostics once" \
    "$plain_status|$(cat plain.err)" "$status|$(cat hp.err)"
gcc -Wall -c warn.c -o warn.o 2>plain.err
hp-gcc -Wall -c warn.c -o warn.o 2>hp.err
status=$?
check_eq "a warning of a successful compilation passes through unchanged" \
    "0|$(cat plain.err)" "$status|$(cat hp.err)"
printf 'int f(void);\nint main(void) { return f(); }\n' >link.c
HP_WRAPPER_ARGS=--verbose hp-gcc -o link link.c 2>link.err
status=$?
check_eq "a failed link is not run again: one command, one linker error" "1|1|1" \
    "$status|$(grep -c '^gcc ' link.err)|$(grep -c 'undefined reference' link.err)"

# ---- sources that can be read once: no fallback, the user's error stands -----------------------
bash -c 'gcc -c -x c <(cat bad.c) -o procsub.o' 2>plain.err
plain_status=$?
HP_INSTRUMENT_TEST_FAIL=ice bash -c 'hp-gcc -c -x c <(cat bad.c) -o procsub.o' 2>hp.err
status=$?
check_eq "a syntax error in bash's <(...): the compiler's status and diagnostics, no object" \
    "$plain_status|$(cat plain.err)|no object" "$status|$(cat hp.err)|$(test -e procsub.o || echo no object)"
cat bad.c | gcc -c -x c /dev/stdin -o pipe.o 2>plain.err
plain_status=$?
cat bad.c | HP_INSTRUMENT_TEST_FAIL=ice hp-gcc -c -x c /dev/stdin -o pipe.o 2>hp.err
status=$?
check_eq "a syntax error piped to /dev/stdin: the compiler's status and diagnostics, no object" \
    "$plain_status|$(cat plain.err)|no object" "$status|$(cat hp.err)|$(test -e pipe.o || echo no object)"

# ---- the plain retry cannot be started: the first failure stands, said once -------------------
mkdir -p vanishing
ln -sf "$PROGRAMS/fallback/fails.sh" vanishing/gcc
PATH="$PWD/vanishing:$(dirname "$(command -v hp-instrument)")" REAL_CC=/usr/bin/gcc \
    FAIL_ON=-finstrument-functions VANISH_ON_FAIL=1 \
    hp-instrument --no-plugin gcc -c part.c -o vanish.o 2>vanish.err
status=$?
check_eq "a retry that cannot start: the first attempt's status and diagnostics, and why" \
    "1|fails.sh: error: refusing -finstrument-functions|hp-instrument: part.c: compiling with -finstrument-functions failed, and 'gcc' could not be run again without instrumentation: No such file or directory" \
    "$status|$(paste -sd'|' vanish.err)"

# ---- on a terminal: colours (and GCC_URLS links) as the plain compiler's ----------------------
if command -v script >/dev/null; then
    # script(1) runs the command on a terminal; its output is what the terminal showed.
    on_terminal() { TERM=xterm script -qc "$1" /dev/null; }
    plain_tty=$(on_terminal 'gcc -Wall -c warn.c -o warn.o')
    hp_tty=$(on_terminal 'hp-gcc -Wall -c warn.c -o warn.o')
    check_eq "a warning on a terminal: coloured exactly as plain gcc colours it" \
        "$plain_tty|coloured" "$hp_tty|$(case $hp_tty in *$'\e['*) echo coloured;; esac)"
    plain_tty=$(GCC_URLS=st on_terminal 'gcc -Wall -Werror -c warn.c -o warn.o')
    hp_tty=$(GCC_URLS=st HP_INSTRUMENT_TEST_FAIL=ice on_terminal 'hp-gcc -Wall -Werror -c warn.c -o warn.o')
    check_eq "-Werror through the fallback on a terminal, GCC_URLS=st: colours and links as plain" \
        "$plain_tty|linked" "$hp_tty|$(case $hp_tty in *$'\e]8;;http'*) echo linked;; esac)"
    hp_tty=$(on_terminal 'hp-gcc -fno-diagnostics-color -Wall -c warn.c -o warn.o')
    check_eq "-fno-diagnostics-color: the user's choice stands" "plain" \
        "$(case $hp_tty in *$'\e['*) echo coloured;; *warning*) echo plain;; esac)"
else
    for i in 1 2 3; do ok "diagnostics on a terminal # SKIP no script (util-linux)"; done
fi

# ---- lesser fallbacks: without instrumentation -----------------------------------------------
mkdir -p fake
ln -sf "$PROGRAMS/fallback/fails.sh" fake/gcc
ln -sf "$PROGRAMS/fallback/fails.sh" fake/clang
PATH="$PWD/fake:$PATH" REAL_CC=/usr/bin/gcc FAIL_ON=-finstrument-functions \
    HP_INSTRUMENT_TEST_FAIL=ice hp-instrument gcc -O2 -o prog-plain work.c part.c 2>plain-fb.err
status=$?
check_eq "plug-in and -finstrument-functions fail: compiled without instrumentation, one note" \
    "0|hp-instrument: work.c part.c: compiling with the GCC plug-in failed (internal compiler error: hpmeasure_gcc: failing on purpose (test-fail=ice), exit status N); with -finstrument-functions too (error: refusing -finstrument-functions, exit status 1); compiled without instrumentation instead (HP_INSTRUMENT_STRICT=1 makes this an error)" \
    "$status|$(without_asan_ld_warnings plain-fb.err | sed 's/exit status [0-9]*);/exit status N);/')"
HP_EXPERIMENT_DIRECTORY=exp-plain check "... and the program runs as built" ./prog-plain
if real_clang=$(command -v clang); then
    PATH="$PWD/fake:$PATH" REAL_CC=$real_clang FAIL_ON=-finstrument-functions-after-inlining \
        hp-instrument --no-plugin clang -O2 -c part.c -o part-clang.o 2>clang.err
    status=$?
    check_eq "clang's hooks fail: compiled without instrumentation, one note" \
        "0|hp-instrument: part.c: compiling with -finstrument-functions-after-inlining failed (error: refusing -finstrument-functions-after-inlining, exit status 1); compiled without instrumentation instead (HP_INSTRUMENT_STRICT=1 makes this an error)" \
        "$status|$(cat clang.err)"
else
    ok "clang's hooks fail # SKIP no clang"
fi

finish
