#!/bin/sh
# HP_PROFILING_RECURSION=collapse: 100,000-deep direct recursion and ping/pong indirect
# recursion give a tree of 8 call paths with exact visits (every call counted once), the
# time of a recursion is its outermost call's, summary.txt names the deepest recursion,
# the trace stays valid, and a bad value stops the program. The recursion depth of each
# collapsed call path (the most recursive calls open at once) is the Cube metric
# recursion_depth, a maximum over threads, and summary.txt's "Collapsed recursion" table.
. "$HP_SRCDIR/test/integration/lib.sh"
# Exact visits of short, hot functions: the overhead budget (on by default) would switch
# them off after 1024 visits.
export HP_OVERHEAD_BUDGET=0
plan 17
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

# "path depth" of every call path, the largest over locations
depths() {
    $CUBEDUMP "$1" | awk -F'\t' '{ for (i = 3; i <= NF; i++) if ($i ~ /^recursion_depth=/) {
            sub("recursion_depth=", "", $i); v = $i + 0
            if (!($1 in d) || v > d[$1]) d[$1] = v } }
        END { for (p in d) print p, d[p] }' | LC_ALL=C sort | tr '\n' ';'
}
# the rows of summary.txt's collapsed recursion table: "depth visits path"
recursion_rows() {
    awk '/^Collapsed recursion/ { on = 1; next }
        on && NF == 0 && rows { exit }
        on && NF == 3 && $1 ~ /^[0-9]+$/ { rows++; print $1, $2, $3 }' "$1" | tr '\n' ';'
}

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
check_eq "recursion_depth: dive 100000, ping 3 (ping 4, 2, 0 in ping 6), pong 2, others 0" \
    "recursion 0;recursion/main 0;recursion/main/calc 0;recursion/main/calc/leaf 0;recursion/main/dive 100000;recursion/main/dive/leaf 0;recursion/main/ping 3;recursion/main/ping/pong 2;" \
    "$(depths exp/profile.cubex)"
check_eq "summary.txt: the call paths that recursed, with depth and visits" \
    "100000 100001 recursion/main/dive;3 4 recursion/main/ping;2 3 recursion/main/ping/pong;" \
    "$(recursion_rows exp/summary.txt)"

# Threads: dive 300, 700 (left with pthread_exit from the bottom) and 20 deep, one after
# another. One location each: the depth per location, the largest in summary.txt.
check "build recursion_threads.c" \
    hp-instrument gcc -O1 -pthread -o recursion_threads "$PROGRAMS/recursion_threads.c"
HP_PROFILING_RECURSION=collapse HP_THREAD_LOCATIONS=each HP_EXPERIMENT_DIRECTORY=each \
    check "threads, one location each" ./recursion_threads
check_eq "per location: depths 300, 700, 20" "1 300;2 700;3 20;" \
    "$($CUBEDUMP each/profile.cubex | awk -F'\t' '$1 == "recursion_threads/run/dive" && $3 != "visits=0" {
        for (i = 3; i <= NF; i++) if (sub("recursion_depth=", "", $i)) print $2, $i + 0 }' | tr '\n' ';')"
check_eq "summary.txt: the largest depth over the threads, all 1023 visits" \
    "700 1023 recursion_threads/run/dive;" "$(recursion_rows each/summary.txt)"
# One reused location: the depth is the largest of its threads'; the 700 calls left open
# by pthread_exit no longer count when the next thread recurses (else 720).
HP_PROFILING_RECURSION=collapse HP_EXPERIMENT_DIRECTORY=reuse \
    check "threads, one reused location" ./recursion_threads
check_eq "reused location: depth 700" "recursion_threads/run/dive 700;" \
    "$(depths reuse/profile.cubex | tr ';' '\n' | grep /dive | tr '\n' ';')"

HP_PROFILING_RECURSION=collapse HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=trace \
    check "with tracing" ./recursion 1000
check "tracing: otf2check.py passes" $OTF2CHECK trace/traces.otf2
expect_fail "a bad value is refused" \
    "HP_PROFILING_RECURSION='fold' is not valid: expected keep or collapse" \
    env HP_PROFILING_RECURSION=fold ./recursion
finish
