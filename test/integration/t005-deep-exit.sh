#!/bin/sh
# Recursion 10,000 deep, then exit(3) from the deepest level: the exit status is the
# program's, and the experiment is still written with all 10,000 levels.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 6

check "build deep_exit.c" hp-instrument gcc -O0 -o deep "$PROGRAMS/deep_exit.c"
HP_EXPERIMENT_DIRECTORY=exp ./deep 10000 > out.txt 2> err.txt
check_eq "exit status of the program is kept" 3 "$?"
check_eq "program output" "reached 10000" "$(cat out.txt)"
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex
$CUBEDUMP exp/profile.cubex > dump.txt
check_eq "10,000 nested dive call paths, each visited once" "10000 10000" \
    "$(awk -F'\t' '$1 ~ /dive$/ { n++; if ($3 == "visits=1") v++ } END { print n, v }' dump.txt)"
check "summary.txt was written" grep -q "Call tree" exp/summary.txt
finish
