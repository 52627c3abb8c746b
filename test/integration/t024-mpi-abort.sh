#!/bin/sh
# A program that calls MPI_Abort on one rank (test/programs/mpi/abort.c: rank 2, after
# some communication, while the other ranks wait in a receive from it) must not hang the
# measured job: mpiexec returns within the time limit with a non-zero status, and the
# experiment directory exists with what was left there.
#
# Note: MPICH's hydra ends the other ranks with SIGKILL after an MPI_Abort (checked with a
# program that catches every catchable signal: none arrives), so only the aborting rank
# can leave a per-rank fallback; hence "non-empty", not "one file per rank", below.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 10

check "build abort.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o abort "$MPIPROGS/abort.c"
check "build abort.c with plain mpicc" mpicc -O1 -o abort-plain "$MPIPROGS/abort.c"

# The plain program: the job ends by the abort (status 3, the MPI_Abort error code).
mpirun4 ./abort-plain > plain.out 2> plain.err
rc=$?
check_eq "plain run ends with the MPI_Abort status" 3 "$rc"

start=$(date +%s)
mpirun4 HP_EXPERIMENT_DIRECTORY=exp ./abort > run.out 2> run.err
rc=$?
secs=$(($(date +%s) - start))
sed 's/^/# stderr: /' run.err | head -20
check "measured run ends within ${HP_MPI_TIMEOUT}s (status $rc after ${secs}s)" \
    test -x abort -a "$rc" -ne 124 -a "$rc" -ne 137
check "measured run ends with a non-zero status ($rc)" test -x abort -a "$rc" -ne 0
check "the experiment directory exists" test -d exp
# The aborting rank (whose MPI_Abort wrapper runs before PMPI_Abort) leaves its own
# profile; mpiexec kills the other ranks with SIGKILL, so they cannot.
check "the experiment directory is not empty" sh -c 'ls -A exp | grep -q .'
check "rank 2 left profile-rank2.cubex and summary-rank2.txt" \
    test -f exp/profile-rank2.cubex -a -f exp/summary-rank2.txt
check "rank 2's profile is valid" $CUBECHECK exp/profile-rank2.cubex
check "stderr says that rank 2 called MPI_Abort" grep -q "rank 2 calls MPI_Abort" run.err
finish
