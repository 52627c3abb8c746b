#!/bin/sh
# A pthreads program: one location per thread (HP_THREAD_LOCATIONS=each), each with its
# own call tree and visits; the main thread's pthread_create and pthread_join calls are
# regions of the pthread paradigm.
# A forked child (no exec) writes no second experiment.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 11

check "build threads.c" hp-instrument gcc -O1 -pthread -o threads "$PROGRAMS/threads.c"
HP_THREAD_LOCATIONS=each HP_EXPERIMENT_DIRECTORY=exp check "run (HP_THREAD_LOCATIONS=each)" ./threads
check_eq "four locations" 4 "$($CUBEDUMP --locations exp/profile.cubex | wc -l)"
# Per location: visits of worker/work. Threads start in any order, so compare sorted.
got=$($CUBEDUMP exp/profile.cubex | awk -F'\t' '$1 == "threads/worker/work" && $3 != "visits=0" { sub("visits=", "", $3); print $3 }' | sort -n | tr '\n' ' ')
check_eq "workers called work 10, 20, 30 times" "10 20 30 " "$got"
got=$($CUBEDUMP exp/profile.cubex | awk -F'\t' '$1 == "threads/main/work" && $3 != "visits=0" { print $2, $3 }')
check_eq "main thread (location 0) called work once" "0 visits=1" "$got"
got=$($CUBEDUMP exp/profile.cubex | awk -F'\t' '$1 ~ /^threads\/main\/pthread_/ && $3 != "visits=0" { print $1, $2, $3 }' | tr '\n' ';')
got="$got$($CUBEDUMP --regions exp/profile.cubex | awk -F'\t' '$2 ~ /^pthread_/ { print $2, $6, $7 }' | tr '\n' ';')"
check_eq "main thread: 3 x pthread_create, 3 x pthread_join, paradigm pthread" \
    "threads/main/pthread_create 0 visits=3;threads/main/pthread_join 0 visits=3;pthread_create pthread thread create;pthread_join pthread thread wait;" \
    "$got"

check "build exit_race.c" hp-instrument gcc -O1 -pthread -o exit_race "$PROGRAMS/exit_race.c"
bad=0
for delay in 500 1000 2000 3000 5000 8000 13000 21000 34000 55000; do
    HP_EXPERIMENT_DIRECTORY=race-$delay ./exit_race $delay >/dev/null 2>&1 || bad=$((bad + 1))
    $CUBECHECK race-$delay/profile.cubex >/dev/null 2>&1 || bad=$((bad + 1))
done
check_eq "exit() while threads recurse: 10 runs end normally with valid profiles" 0 "$bad"

check "build forks.c" hp-instrument gcc -O1 -o forks "$PROGRAMS/forks.c"
check "run" ./forks
check_eq "one experiment, with the parent's two calls of work" "1 forks/main/work	0	visits=2" \
    "$(ls -d hp-forks-* | wc -l) $($CUBEDUMP hp-forks-*/profile.cubex | grep '^forks/main/work' | cut -f1-3)"
finish
