#!/bin/sh
# HP_PROFILING_RECURSION=collapse: 100,000-deep direct recursion and ping/pong indirect
# recursion give a tree of 8 call paths with exact visits (every call counted once), the
# time of a recursion is its outermost call's, summary.txt names the deepest recursion,
# the trace stays valid, and a bad value stops the program.
. "$HP_SRCDIR/test/integration/lib.sh"
# Exact visits of short, hot functions: the overhead budget (on by default) would switch
# them off after 1024 visits.
export HP_OVERHEAD_BUDGET=0
plan 9
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

check "build recursion.c" hp-instrument gcc -O1 -o recursion "$PROGRAMS/recursion.c"
HP_PROFILING_RECURSION=collapse HP_EXPERIMENT_DIRECTORY=exp check "run 100000 levels deep" \
    ./recursion 100000
check_eq "the program's result" "100000 6" "$(cat "$WORK/last.out")"
check_eq "8 call paths, every call a visit" \
    "recursion 1;recursion/main 1;recursion/main/calc 1;recursion/main/calc/leaf 1;recursion/main/dive 100001;recursion/main/dive/leaf 100001;recursion/main/ping 4;recursion/main/ping/pong 3;" \
    "$($CUBEDUMP exp/profile.cubex | awk -F'\t' '{ sub("visits=", "", $3); print $1, $3 }' |
        LC_ALL=C sort | tr '\n' ';')"
check "a recursion's time is its outermost call's: ping includes pong, main includes dive" \
    sh -c "$CUBEDUMP exp/profile.cubex | awk -F'\t' '{ sub(\"time_incl=\", \"\", \$4); t[\$1] = \$4 }
        END { exit !(t[\"recursion/main/ping\"] >= t[\"recursion/main/ping/pong\"] &&
                     t[\"recursion/main\"] >= t[\"recursion/main/dive\"]) }'"
check "summary.txt names the deepest recursion" \
    grep -q "folded 100005 recursive calls.*100000 recursive calls open at once, in dive" \
    exp/summary.txt

HP_PROFILING_RECURSION=collapse HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=trace \
    check "with tracing" ./recursion 1000
check "tracing: otf2check.py passes" $OTF2CHECK trace/traces.otf2
expect_fail "a bad value is refused" \
    "HP_PROFILING_RECURSION='fold' is not valid: expected keep or collapse" \
    env HP_PROFILING_RECURSION=fold ./recursion
finish
