#!/bin/sh
# A budget too small for the call tree: the program computes the same result, the
# profile that fits is still written and valid, and the shortage is reported on
# stderr and in summary.txt. HP_ENABLE_PROFILING=false writes nothing. The default
# budget that a small `ulimit -v` cannot hold leaves the program unmeasured, with one
# warning; an HP_TOTAL_MEMORY set so is refused.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 11

check "build wide.c plain" gcc -O1 -o wide-plain "$PROGRAMS/wide.c"
check "build wide.c with hp-instrument" hp-instrument gcc -O1 -o wide "$PROGRAMS/wide.c"
expected=$(./wide-plain)
HP_TOTAL_MEMORY=256K HP_EXPERIMENT_DIRECTORY=exp ./wide > out.txt 2> err.txt
check_eq "same result with a full budget" "$expected" "$(cat out.txt)"
check "stderr says the budget was used up" grep -q "HP_TOTAL_MEMORY (262144 bytes) was used up" err.txt
check "summary.txt says so too" grep -q "HP_TOTAL_MEMORY (262144 bytes) was used up" exp/summary.txt
check "the partial profile is valid" $CUBECHECK exp/profile.cubex
HP_ENABLE_PROFILING=false ./wide > /dev/null 2>&1
check_eq "HP_ENABLE_PROFILING=false writes no experiment" "" "$(ls -d hp-wide-* 2>/dev/null)"

# ulimit -v 20000 (KiB): enough to load the program and its libraries (about 10 MiB),
# not for the 16 MiB default budget besides. ASan cannot run under such a limit.
if [ -n "${HP_ASAN_RUNTIME:-}" ]; then
    for t in "default budget: runs" "... one warning" "... no experiment" "explicit budget: refused"; do
        ok "$t # SKIP ulimit -v under ASan"
    done
else
    (ulimit -v 20000 && exec env HP_EXPERIMENT_DIRECTORY=limited ./wide > limited.out 2> limited.err)
    check_eq "the default budget under ulimit -v 20000: the program runs, exit 0, same result" \
        "0 $expected" "$? $(cat limited.out)"
    check_eq "... with one warning" \
        "hpmeasure: the default memory budget (HP_TOTAL_MEMORY=16777216 bytes) cannot be reserved (Cannot allocate memory; ulimit -v?): the program runs unmeasured. Set HP_TOTAL_MEMORY to a budget this process can map to measure it" \
        "$(cat limited.err)"
    check_eq "... and unmeasured: no experiment" "no" "$(test -e limited && echo yes || echo no)"
    (ulimit -v 20000 && exec env HP_TOTAL_MEMORY=16M HP_EXPERIMENT_DIRECTORY=set ./wide > set.out 2> set.err)
    check_eq "HP_TOTAL_MEMORY=16M set under ulimit -v 20000: refused at start (exit 1, no output)" \
        "1  HP_TOTAL_MEMORY='16M' (16777216 bytes) cannot be reserved (Cannot allocate memory)" \
        "$? $(cat set.out) $(grep -o "HP_TOTAL_MEMORY='16M' (16777216 bytes) cannot be reserved ([^)]*)" set.err)"
fi
finish
