#!/bin/sh
# SIGTERM in a threaded program (test/programs/signals_threads.c): threads 1..3 call
# work() 10, 20, 30 times and wait; the master calls it 5 times and raises SIGTERM. Every
# thread's visits until the signal are in the profile, marked interrupted.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 6

check "build signals_threads.c" hp-instrument gcc -O1 -pthread -o sigthreads \
    "$PROGRAMS/signals_threads.c"
HP_EXPERIMENT_DIRECTORY=exp ./sigthreads > run.out 2> run.err
check_eq "ends by SIGTERM (143)" 143 "$?"
check "valid profile" $CUBECHECK exp/profile.cubex
got=$($CUBEDUMP exp/profile.cubex | awk -F'\t' '$1 == "sigthreads/thread_main/work" && $3 != "visits=0" { sub("visits=", "", $3); print $3 }' | sort -n | tr '\n' ' ')
check_eq "threads called work 10, 20, 30 times" "10 20 30 " "$got"
got=$($CUBEDUMP exp/profile.cubex | awk -F'\t' '$1 == "sigthreads/main/work" && $3 != "visits=0" { print $2, $3 }')
check_eq "the master (location 0) called work 5 times" "0 visits=5" "$got"
check "marked interrupted by signal 15" grep -q "^incomplete:  interrupted by signal 15" \
    exp/summary.txt
finish
