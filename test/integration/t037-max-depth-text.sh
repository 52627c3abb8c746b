#!/bin/sh
# HP_PROFILING_MAX_DEPTH does what `hp-info config-vars` says: the calls below the limit
# get no call path, their time stays in the path at the limit as its own time (as with
# Score-P's SCOREP_PROFILING_MAX_CALLPATH_DEPTH), their visits are not counted in the
# tree, and summary.txt counts them. depth_limit.c spins through a long loop five calls
# below main/level/level (main is depth 1, below the program's root).
. "$HP_SRCDIR/test/integration/lib.sh"
plan 8

check "the text says what happens to time and visits" sh -c \
    "hp-info config-vars | grep -A4 '^HP_PROFILING_MAX_DEPTH' | tr -s ' \n' ' ' |
     grep -q 'their time stays in the path at the limit as its own (exclusive) time, as with Score-P.s SCOREP_PROFILING_MAX_CALLPATH_DEPTH; their visits are not counted in the tree'"
check "build depth_limit.c" hp-instrument gcc -O0 -o depth "$PROGRAMS/depth_limit.c"
HP_PROFILING_MAX_DEPTH=3 HP_EXPERIMENT_DIRECTORY=exp check "run with the limit at 3" ./depth
$CUBEDUMP exp/profile.cubex > dump.txt
check_eq "the tree stops at depth 3: main, main/level, main/level/level" \
    "depth depth/main depth/main/level depth/main/level/level" \
    "$(awk -F'\t' '{ printf "%s%s", n++ ? " " : "", $1 }' dump.txt)"
check_eq "visits: one each, the 5 deeper calls are not counted in the tree" "1 1 1 1" \
    "$(awk -F'\t' '{ sub("visits=", "", $3); printf "%s%s", n++ ? " " : "", $3 }' dump.txt)"
check_eq "the program printed level(5)" "6" "$(./depth)"
# The spin is nearly all of the run; everything else is a few calls.
check "the time below the limit is the own time of main/level/level (> 90 % of main)" \
    awk -F'\t' '{ sub("time_incl=", "", $4); sub("time_excl=", "", $5); incl[NR] = $4; excl[NR] = $5 }
                END { exit !(NR == 4 && excl[4] > 0.9 * incl[2] && excl[4] > 0.01) }' dump.txt
check "summary.txt counts the 5 calls below the limit (4 levels and spin)" \
    grep -q "5 calls deeper than HP_PROFILING_MAX_DEPTH=3" exp/summary.txt
finish
