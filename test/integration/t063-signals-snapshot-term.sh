#!/bin/sh
# A finalize signal that arrives while a snapshot (HP_DUMP_SIGNAL) is being written takes
# effect as soon as the snapshot is written (doc/signals.md): SIGUSR1, then SIGTERM less
# than a millisecond later, 20 times, in a program with 8 threads
# (test/programs/signals_dump.c, which would end on its own only after 20 s) and in a
# 2-rank MPI job (test/programs/mpi/signal.c, which waits for ever). Each run must be
# finalized (experiment written, marked interrupted by SIGTERM) and ended by SIGTERM as an
# uninstrumented run is, within 1 s of the SIGTERM. A run still alive after that second is
# killed, so a failure costs one second, not the program's lifetime. Also: no signal
# runs nested in a sample's handler (test/programs/sample_mask.c).
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 12
RUNS=20

check "build signals_dump.c" hp-instrument gcc -O1 -pthread -o dump "$PROGRAMS/signals_dump.c"
check "build mpi/signal.c" hp-instrument mpicc -O1 -o signal "$MPIPROGS/signal.c"
check "build mpi/signal.c uninstrumented" mpicc -O1 -o plain "$MPIPROGS/signal.c"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# await_file FILE MS : waits until FILE has its content (a pid or a status, written at
# once), at most MS milliseconds; fails after. Existing is not enough: the program creates
# its pid file before it writes the pid, and `kill $(cat pid.0 pid.1)` then missed rank 1.
await_file() {
    _end=$(($(now_ms) + $2))
    until [ -s "$1" ]; do
        [ "$(now_ms)" -ge "$_end" ] && return 1
        sleep 0.005
    done
}

# mpi_job DIR PROGRAM : starts a 2-rank job of PROGRAM in the background, its status into
# DIR.rc when it ends; waits (up to 30 s) for the ranks' pid files. -disable-auto-cleanup:
# MPICH's mpiexec otherwise kills the other ranks as soon as one has ended by the signal.
# Its proxy still SIGKILLs the other ranks then (MPICH 4.0.2, seen with strace): a
# signalled rank waits for every rank's profile-rank<r>.cubex, which each rank writes
# last, so no rank loses its summary (it did in about 1 run in 60 under strace).
mpi_job() {
    rm -f pid.* "$1.rc"
    (HP_DUMP_SIGNAL=USR1 HP_EXPERIMENT_DIRECTORY=$1 timeout -k 5 60 \
        mpiexec -disable-auto-cleanup -n 2 ./$2 \
        > "$1.out" 2> "$1.err"; echo $? > "$1.rc") 2> /dev/null &
    await_file pid.0 30000 && await_file pid.1 30000
}

# What a plain (uninstrumented) job ends with when both ranks get SIGTERM.
mpi_job plain-run plain
kill -TERM $(cat pid.0 pid.1)
await_file plain-run.rc 30000
plain_rc=$(cat plain-run.rc 2>/dev/null)

# --- threads: USR1 then TERM to the process
late=""
for i in $(seq $RUNS); do
    rm -f pid "t$i.rc"
    (HP_DUMP_SIGNAL=USR1 HP_EXPERIMENT_DIRECTORY=t$i ./dump 8 20 > "t$i.out" 2> "t$i.err"
        echo $? > "t$i.rc") 2> /dev/null &
    await_file pid 30000 || { late="$late $i(no-start)"; continue; }
    pid=$(cat pid)
    kill -USR1 "$pid"
    kill -TERM "$pid"
    if ! await_file "t$i.rc" 1000; then
        late="$late $i"
        kill -KILL "$pid" 2> /dev/null
        await_file "t$i.rc" 10000
    fi
done
wait
check_eq "threads: ended within 1 s of SIGTERM in every run (late runs listed)" "" "$late"
check_eq "threads: ended by SIGTERM (143) in every run" \
    "$(for i in $(seq $RUNS); do echo 143; done)" "$(for i in $(seq $RUNS); do cat t$i.rc; done)"
unmarked=""
for i in $(seq $RUNS); do
    grep -q "^incomplete:  interrupted by signal 15 (SIGTERM)" t$i/summary.txt 2> /dev/null &&
        [ -f t$i/profile.cubex ] || unmarked="$unmarked $i"
done
check_eq "threads: every run wrote its profile, marked interrupted by SIGTERM" "" "$unmarked"
check "threads: the last run's profile is valid" cubecheck t$RUNS/profile.cubex

# --- MPI: USR1 then TERM to both ranks (a batch system's time limit signals every rank)
late=""
unmarked=""
for i in $(seq $RUNS); do
    mpi_job m$i signal || { late="$late $i(no-start)"; continue; }
    kill -USR1 $(cat pid.0 pid.1)
    kill -TERM $(cat pid.0 pid.1)
    if ! await_file "m$i.rc" 1000; then
        late="$late $i"
        kill -KILL $(cat pid.0 pid.1) 2> /dev/null
        await_file "m$i.rc" 30000
    fi
    for r in 0 1; do
        grep -q "^incomplete:  interrupted by signal 15 (SIGTERM)" m$i/summary-rank$r.txt \
            2> /dev/null && [ -f m$i/profile-rank$r.cubex ] || unmarked="$unmarked $i:$r"
    done
done
wait
check_eq "MPI: the job ended within 1 s of SIGTERM in every run (late runs listed)" "" "$late"
check_eq "MPI: ended as the uninstrumented job does ($plain_rc) in every run" \
    "$(for i in $(seq $RUNS); do echo "$plain_rc"; done)" \
    "$(for i in $(seq $RUNS); do cat m$i.rc; done)"
check_eq "MPI: both ranks wrote their profile, marked interrupted, in every run" "" "$unmarked"

# A finalize signal must not run nested in a sample's handler, on the sampler's small
# signal stack (it overflowed it: hp-run ranks crashed in about 1 of 20 SIGTERMs). The
# sample handler makes every signal but the faults wait until it returns.
check "build sample_mask.c" hp-instrument gcc -O1 -o sample_mask "$PROGRAMS/sample_mask.c"
check_eq "the sampler's handler blocks the finalize and snapshot signals, not the faults" \
    "blocked: TERM INT USR1 USR2 XCPU
unblocked: SEGV BUS FPE ILL" "$(HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=mask ./sample_mask)"
finish
