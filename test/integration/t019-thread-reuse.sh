#!/bin/sh
# Thread lifetimes (HP_THREAD_LOCATIONS): 5,000 threads started and joined one after
# another are all measured within the default budget, in one location, and a pool of 4
# threads alive at once (3 rounds) takes 4 locations, each thread of a round its own; with
# HP_THREAD_LOCATIONS=each every thread is a location. The master's tree holds its calls
# of pthread_create and pthread_join. Tracing (OTF2 checker, Enter
# events = visits) and sampling keep working on reused locations.
. "$HP_SRCDIR/test/integration/lib.sh"
# Exact visits of short, hot functions: the overhead budget (on by default) would switch
# them off after 1024 visits.
export HP_OVERHEAD_BUDGET=0
plan 15
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

# "path location visits" for every call path with visits
visits() {
    $CUBEDUMP "$1" | awk -F'\t' '$3 != "visits=0" { sub("visits=", "", $3); print $1, $2, $3 }'
}

check "build thread_churn.c" hp-instrument gcc -O1 -pthread -o churn "$PROGRAMS/thread_churn.c"
HP_EXPERIMENT_DIRECTORY=exp check "run 5000 sequential threads and a pool" ./churn 5000
check "nothing left unmeasured" sh -c '! grep -q "not measured" exp/summary.txt'
check_eq "5 locations: the master, one for the sequential threads, 4 for the pool" 5 \
    "$($CUBEDUMP --locations exp/profile.cubex | wc -l)"
check_eq "every sequential thread measured: 5000 visits of short_thread/work" \
    "churn/short_thread 1 5000 churn/short_thread/work 1 5000" \
    "$(visits exp/profile.cubex | grep short_thread | tr '\n' ' ' | sed 's/ $//')"
check_eq "the pool: 3 threads per location, 6 calls of pooled each" \
    "1 3 6 2 3 6 3 3 6 4 3 6" \
    "$(visits exp/profile.cubex | awk '$1 == "churn/pool_thread" { t[$2] = $3 }
        $1 == "churn/pool_thread/pooled" { p[$2] = $3 }
        END { for (l = 1; l <= 4; l++) printf "%d %d %d ", l, t[l], p[l] }' | sed 's/ $//')"
check_eq "the program root of location 1 was visited by 5003 threads" "churn 1 5003" \
    "$(visits exp/profile.cubex | awk '$1 == "churn" && $2 == 1')"
check_eq "the master's tree: 5000 + 12 calls of pthread_create and of pthread_join" \
    "churn 0 1;churn/main 0 1;churn/main/pthread_create 0 5012;churn/main/pthread_join 0 5012;" \
    "$(visits exp/profile.cubex | awk '$2 == 0' | LC_ALL=C sort | tr '\n' ';')"

HP_THREAD_LOCATIONS=each HP_EXPERIMENT_DIRECTORY=each check "HP_THREAD_LOCATIONS=each" ./churn 200
check_eq "each thread is its own location: 1 + 200 + 12" 213 \
    "$($CUBEDUMP --locations each/profile.cubex | wc -l)"

HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=trace check "run with tracing" ./churn 300
check "tracing with reused locations: otf2check.py passes" $OTF2CHECK trace/traces.otf2
trace_enters trace/traces.otf2 > enters.txt
profile_visits trace/profile.cubex > visits.txt
check "tracing: Enter events = visits per location" diff -u visits.txt enters.txt

HP_SAMPLING_FREQUENCY=5000 HP_EXPERIMENT_DIRECTORY=sampled check "sampling: runs" ./churn 2000
check_eq "sampling: reused locations get timers and keep exact visits" \
    "churn/short_thread/work 1 2000" "$(visits sampled/profile.cubex | grep short_thread/work)"
finish
