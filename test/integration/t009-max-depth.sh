#!/bin/sh
# HP_PROFILING_MAX_DEPTH: a recursion 100,000 deep is measured in a bounded tree. Calls
# below the limit get no call path (their time stays with the path at the limit), the
# summary says how many there were, and the tree stays balanced for what follows.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 7

check "build recurse.c" hp-instrument gcc -O0 -o recurse "$PROGRAMS/recurse.c"
HP_PROFILING_MAX_DEPTH=50 HP_EXPERIMENT_DIRECTORY=exp check "run 100,000 deep" ./recurse 100000
check_eq "program output" "2500025000" "$(cat "$WORK/last.out")"
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex
$CUBEDUMP exp/profile.cubex > dump.txt
# main is depth 1, so dive has paths at depths 2..50; dive runs 100,001 times.
check_eq "49 nested dive call paths, each visited once" "49 49" \
    "$(awk -F'\t' '$1 ~ /dive$/ { n++; if ($3 == "visits=1") v++ } END { print n, v }' dump.txt)"
check_eq "the call after the recursion is where it belongs" "recurse/main/after visits=1" \
    "$(awk -F'\t' '$1 ~ /after$/ { print $1, $3 }' dump.txt)"
check "summary counts the 100,001 - 49 calls below the limit" \
    grep -q "99952 calls deeper than HP_PROFILING_MAX_DEPTH=50" exp/summary.txt
finish
