#!/bin/sh
# A budget too small for the call tree: the program computes the same result, the
# profile that fits is still written and valid, and the shortage is reported on
# stderr and in summary.txt. HP_ENABLE_PROFILING=false writes nothing.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 7

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
finish
