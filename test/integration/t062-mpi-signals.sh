#!/bin/sh
# SIGTERM in a 4-rank MPI job (test/programs/mpi/signal.c: rank r calls work() 10*(r+1)
# times, then every rank writes pid.<r> and waits). Each signalled rank writes its own
# profile-rank<r>.cubex without collective operations; the job ends (no hang: the runs
# are under a time limit). MPICH's hydra kills the other ranks with SIGKILL when one
# rank dies, so with one rank signalled only that rank leaves a profile.
# `hp-report merge` puts the per-rank profiles together again; a clean run of the same
# program (signal finish) gives the tree shape to compare with.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 23

check "build signal.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o signal \
    "$MPIPROGS/signal.c"

# start_job DIR [MPIEXEC_EXTRA=...]: starts the job in the background (pid in $job) and
# waits for pid.*.
start_job() {
    rm -f pid.*
    mpirun4 ${2:-} HP_EXPERIMENT_DIRECTORY=$1 ./signal > $1.out 2> $1.err &
    job=$!
    for i in $(seq 300); do [ "$(ls pid.* 2>/dev/null | wc -l)" -eq 4 ] && break; sleep 0.1; done
}
# work_visits FILE: visits of signal/main/work in a per-rank profile
work_visits() {
    $CUBEDUMP "$1" | awk -F'\t' '$1 == "signal/main/work" { print $3 }'
}
# visits_by_path FILE: "path location visits" of every row, sorted
visits_by_path() {
    $CUBEDUMP "$1" | awk -F'\t' '{ print $1, $2, $3 }' | LC_ALL=C sort
}
# paths FILE: the call paths of a profile, without MPI_Finalize (an interrupted run
# never reaches it), sorted
paths() {
    $CUBEDUMP "$1" | awk -F'\t' '$1 !~ /MPI_Finalize$/ { print $1 }' | LC_ALL=C sort -u
}

# -disable-auto-cleanup: every rank gets the signal, and mpiexec must not kill a rank
# still writing its files once another has ended by it (the launcher race t063 avoids);
# with one rank signalled, the others must be ended by mpiexec, so that job keeps it.
start_job all MPIEXEC_EXTRA=-disable-auto-cleanup
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

check "merge: hp-report merge of the experiment directory" hp-report merge all
check "merge: the merged profile is valid" cubecheck all/profile.cubex
check_eq "merge: 4 locations, one per rank" "0 1 2 3" \
    "$($CUBEDUMP all/profile.cubex | awk -F'\t' '{ print $2 }' | sort -un | tr '\n' ' ' | sed 's/ $//')"
expected=$(for r in 0 1 2 3; do visits_by_path all/profile-rank$r.cubex | sed "s/ 0 / $r /"; done |
    LC_ALL=C sort)
check_eq "merge: visits of every call path and rank equal the per-rank files'" \
    "$expected" "$(visits_by_path all/profile.cubex)"
check "merge: hp-report reads it and shows it interrupted" sh -c \
    'hp-report all | grep -q "^incomplete:  interrupted by signal 15"'
check "merge: files named one by one, -o" hp-report merge -o named.cubex \
    all/profile-rank3.cubex all/profile-rank1.cubex all/profile-rank0.cubex all/profile-rank2.cubex
check_eq "merge: file order does not matter" "$($CUBEDUMP all/profile.cubex)" \
    "$($CUBEDUMP named.cubex)"
expect_fail "merge: a file that is not a Cube profile is named" "signal.*not a Cube|signal:" \
    hp-report merge -o bad.cubex all/profile-rank0.cubex signal
expect_fail "merge: two profiles of the same rank are refused" "both hold rank 0" \
    hp-report merge -o bad.cubex all/profile-rank0.cubex all/profile.cubex

mpirun4 HP_EXPERIMENT_DIRECTORY=clean ./signal finish > clean.out 2> clean.err
check_eq "merge: same tree shape as a clean run's profile.cubex" "$(paths clean/profile.cubex)" \
    "$(paths all/profile.cubex)"

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
check "one rank: merging the one profile gives a valid profile of rank 2" sh -c \
    'hp-report merge one && hp-report one --rank 2 --format csv | grep -q "work"'
finish
