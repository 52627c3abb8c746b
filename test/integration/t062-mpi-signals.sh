#!/bin/sh
# SIGTERM in a 4-rank MPI job (test/programs/mpi/signal.c: rank r calls work() 10*(r+1)
# times, then every rank writes pid.<r> and waits). Each signalled rank writes its own
# profile-rank<r>.cubex without collective operations; the job ends (no hang: the runs
# are under a time limit). MPICH's hydra kills the other ranks with SIGKILL when one
# rank dies, so with one rank signalled only that rank leaves a profile.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 12

check "build signal.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o signal \
    "$MPIPROGS/signal.c"

# start_job DIR: starts the job in the background (pid in $job) and waits for pid.*.
start_job() {
    rm -f pid.*
    mpirun4 HP_EXPERIMENT_DIRECTORY=$1 ./signal > $1.out 2> $1.err &
    job=$!
    for i in $(seq 300); do [ "$(ls pid.* 2>/dev/null | wc -l)" -eq 4 ] && break; sleep 0.1; done
}
# work_visits FILE: visits of signal/main/work in a per-rank profile
work_visits() {
    $CUBEDUMP "$1" | awk -F'\t' '$1 == "signal/main/work" { print $3 }'
}

start_job all
kill -TERM $(cat pid.*)
wait $job
rc=$?
check "all ranks signalled: the job ends, not by the time limit (status $rc)" \
    test "$rc" -ne 124 -a "$rc" -ne 137
for r in 0 1 2 3; do
    check_eq "all ranks: rank $r's profile has its $((10 * (r + 1))) visits of work" \
        "visits=$((10 * (r + 1)))" "$(work_visits all/profile-rank$r.cubex)"
done
check "all ranks: rank 3's profile is valid" cubecheck all/profile-rank3.cubex
check "all ranks: marked interrupted" grep -q "^incomplete:  interrupted by signal 15" \
    all/summary-rank0.txt

start_job one
kill -TERM $(cat pid.2)
wait $job
rc=$?
check "one rank signalled: the job ends, not by the time limit (status $rc)" \
    test "$rc" -ne 124 -a "$rc" -ne 137
check "one rank: rank 2's profile is valid" cubecheck one/profile-rank2.cubex
check_eq "one rank: rank 2's profile has its 30 visits of work" "visits=30" \
    "$(work_visits one/profile-rank2.cubex)"
check "one rank: stderr names rank 2" grep -q "rank 2 ended without MPI_Finalize" one.err
finish
