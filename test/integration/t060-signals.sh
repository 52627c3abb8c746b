#!/bin/sh
# Runs cut short by a signal (HP_FINALIZE_SIGNALS, doc/signals.md) keep what was measured:
# test/programs/signals.c calls work() 10 times (work calls leaf), recurses 20 levels
# into deep() and calls leaf() 5 times at the bottom before the signal comes, so the
# visits at signal time are known exactly. Also: the program's own handler still runs,
# HP_DUMP_SIGNAL snapshots, bad values are refused, forked children say they are not
# measured.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 27

check "build signals.c" hp-instrument gcc -O1 -o signals "$PROGRAMS/signals.c"

DEEP=signals/main$(printf '/deep%.0s' $(seq 20))
# visits_of DIR : "path visits" of the paths this test knows the counts of
visits_of() {
    $CUBEDUMP "$1" | awk -F'\t' '{ sub("visits=", "", $3); print $1, $3 }' |
        grep -E '^signals/main(/work(/leaf)?)? |/bottom(/leaf)? '
}
expected="signals/main 1
signals/main/work 10
signals/main/work/leaf 10
$DEEP/bottom 1
$DEEP/bottom/leaf 5"

# The program raises SIGTERM itself, deep inside: killed by SIGTERM as without us.
HP_EXPERIMENT_DIRECTORY=term ./signals 15 raise > term.out 2> term.err
check_eq "SIGTERM: the process still ends by SIGTERM (status 143)" 143 "$?"
check "SIGTERM: valid profile" $CUBECHECK term/profile.cubex
check_eq "SIGTERM: exact visits until the signal" "$expected" "$(visits_of term/profile.cubex)"
check "SIGTERM: summary.txt says interrupted by signal 15" \
    grep -q "^incomplete:  interrupted by signal 15 (SIGTERM) at " term/summary.txt
check "SIGTERM: hp-report shows it (Cube attribute)" \
    sh -c 'hp-report term | grep -q "^incomplete:  interrupted by signal 15 (SIGTERM) at "'
check "SIGTERM: stderr says what happened" grep -q "signal 15 (SIGTERM).*writing" term.err

# SIGINT sent by the test while the program waits at the bottom of the recursion. A shell
# starts background jobs with SIGINT ignored (and measurement then leaves it alone, as the
# program would): env restores the default first.
HP_EXPERIMENT_DIRECTORY=int env --default-signal=INT ./signals 2 wait > int.out 2> int.err &
pid=$!
for i in $(seq 100); do [ -f ready ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
check_eq "SIGINT from outside: ends by SIGINT (status 130)" 130 "$?"
check "SIGINT: valid profile" $CUBECHECK int/profile.cubex
check_eq "SIGINT: exact visits until the signal" "$expected" "$(visits_of int/profile.cubex)"
check "SIGINT: marked interrupted by signal 2" \
    grep -q "^incomplete:  interrupted by signal 2 (SIGINT)" int/summary.txt

# The program's own SIGTERM handler (installed with sigaction in main) runs after ours.
HP_EXPERIMENT_DIRECTORY=own ./signals 15 raise handler > own.out 2> own.err
check_eq "own handler: its exit status (42)" 42 "$?"
check_eq "own handler: it ran" "program handler ran: 15" "$(cat own.out)"
check_eq "own handler: exact visits in the profile" "$expected" "$(visits_of own/profile.cubex)"

# Numbers work too; none switches it off (then SIGTERM kills without a profile).
HP_FINALIZE_SIGNALS=10 HP_EXPERIMENT_DIRECTORY=usr1 ./signals 10 raise > /dev/null 2>&1
check "HP_FINALIZE_SIGNALS=10: SIGUSR1 writes the profile" test -f usr1/profile.cubex
HP_FINALIZE_SIGNALS=none HP_EXPERIMENT_DIRECTORY=none ./signals 15 raise > /dev/null 2>&1
check_eq "HP_FINALIZE_SIGNALS=none: killed (143), no experiment" "143 no" \
    "$? $(test -d none && echo yes || echo no)"
expect_fail "a bad signal name is refused, naming variable and value" \
    "HP_FINALIZE_SIGNALS='TERM,BOGUS' is not valid \(BOGUS is not a signal name\): expected signal names" \
    env HP_FINALIZE_SIGNALS=TERM,BOGUS ./signals 15 raise
expect_fail "KILL is refused" "HP_FINALIZE_SIGNALS='KILL' is not valid \(KILL cannot be caught\)" \
    env HP_FINALIZE_SIGNALS=KILL ./signals 15 raise
expect_fail "HP_DUMP_SIGNAL takes one signal" "HP_DUMP_SIGNAL='USR1,USR2' is not valid \(one signal only\)" \
    env HP_DUMP_SIGNAL=USR1,USR2 ./signals 15 raise
check "hp-info config-vars lists both variables" \
    sh -c 'hp-info config-vars | grep -q "^HP_FINALIZE_SIGNALS" && hp-info config-vars | grep -q "^HP_DUMP_SIGNAL"'

# HP_DUMP_SIGNAL=USR1: two snapshots while the program waits, then SIGTERM; the final
# profile is complete and the snapshots hold the same visits.
rm -f ready
HP_DUMP_SIGNAL=USR1 HP_EXPERIMENT_DIRECTORY=snap ./signals 15 wait > snap.out 2> snap.err &
pid=$!
for i in $(seq 100); do [ -f ready ] && break; sleep 0.1; done
kill -USR1 $pid
for i in $(seq 100); do grep -q "snapshot 1 written" snap.err && break; sleep 0.1; done
kill -USR1 $pid
for i in $(seq 100); do grep -q "snapshot 2 written" snap.err && break; sleep 0.1; done
kill -TERM $pid
wait $pid
check_eq "snapshots: the program went on until SIGTERM (143)" 143 "$?"
check "snapshot 1 is valid" $CUBECHECK snap/snapshot-1/profile.cubex
check_eq "snapshot 2 has the exact visits" "$expected" "$(visits_of snap/snapshot-2/profile.cubex)"
check "snapshot 2 is marked as a snapshot" grep -q "^incomplete:  snapshot 2, taken" \
    snap/snapshot-2/summary.txt
check_eq "the final profile is complete" "$expected" "$(visits_of snap/profile.cubex)"

# fork() without exec: the child is not measured and says so when it exits.
check "build forks.c" hp-instrument gcc -O1 -o forks "$PROGRAMS/forks.c"
HP_EXPERIMENT_DIRECTORY=fork ./forks > fork.out 2> fork.err
check "the forked child says it was not measured" \
    grep -q "was forked (without exec) from a measured process and was not measured" fork.err
finish
