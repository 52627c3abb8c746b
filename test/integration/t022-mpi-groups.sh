#!/bin/sh
# Selecting what is measured: HP_MPI_ENABLE_GROUPS=p2p leaves the collectives (and the
# communicator calls) out of the call tree and keeps the point-to-point calls;
# HP_MPI_EXCLUDE=MPI_Barrier,MPI_Bcast leaves exactly those two out. Unmeasured calls are
# still counted per function in summary.txt (TODO checks below, text not fixed yet).
# A bad group name or a bad function name stops the job at start-up with a message that
# names the variable and the bad word. Program: test/programs/mpi/traffic.c (see
# t021-mpi-traffic.sh for its calls).
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 16

check "build traffic.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o traffic "$MPIPROGS/traffic.c"

# ------------------------------------------------------------- HP_MPI_ENABLE_GROUPS=p2p
check "run with HP_MPI_ENABLE_GROUPS=p2p" \
    mpirun4 HP_MPI_ENABLE_GROUPS=p2p HP_EXPERIMENT_DIRECTORY=p2p ./traffic
check "cubecheck.py passes (p2p)" cubecheck p2p/profile.cubex
$CUBEDUMP --paths p2p/profile.cubex > p2p-paths.txt
check "p2p: no collective or communicator call in the tree" sh -c 'test -s p2p-paths.txt && ! grep -nE \
    "/MPI_(Allreduce|Bcast|Alltoall|Barrier|Reduce|Comm_split|Comm_free|Comm_rank|Comm_size|Type_[a-z]*)$" \
    p2p-paths.txt'
# The whole tree, except MPI_Init and MPI_Finalize (group env: whether a tool records
# them when env is off is not part of this test). The pattern functions stay, without
# their MPI children. MPI_Waitall: Score-P measures the request functions (Wait*, Test*)
# whenever one of cg, coll, ext, io, p2p, rma is on, so it stays with p2p.
cat > p2p-expected.txt <<'END'
traffic
traffic/main
traffic/main/ring
traffic/main/ring/MPI_Send
traffic/main/ring/MPI_Recv
traffic/main/procnull
traffic/main/procnull/MPI_Send
traffic/main/procnull/MPI_Recv
traffic/main/nonblocking
traffic/main/nonblocking/MPI_Irecv
traffic/main/nonblocking/MPI_Isend
traffic/main/nonblocking/MPI_Waitall
traffic/main/sendrecv
traffic/main/sendrecv/MPI_Sendrecv
traffic/main/allreduce
traffic/main/allreduce_inplace
traffic/main/bcast
traffic/main/alltoall
traffic/main/barrier
traffic/main/reduce
traffic/main/reduce_inplace
traffic/main/subcomm
END
grep -vE '/MPI_(Init|Finalize)$' p2p-paths.txt | LC_ALL=C sort > p2p-actual.txt
LC_ALL=C sort p2p-expected.txt > p2p-expected-sorted.txt
check "p2p: exactly the point-to-point calls are in the tree" \
    diff -u p2p-expected-sorted.txt p2p-actual.txt
# Visits of the point-to-point calls, per rank (derivation in t021-mpi-traffic.sh).
cat > p2p-visits.txt <<'END'
traffic/main/ring/MPI_Send                 2 2 2 2
traffic/main/ring/MPI_Recv                 2 2 2 2
traffic/main/procnull/MPI_Send             1 1 1 1
traffic/main/procnull/MPI_Recv             1 1 1 1
traffic/main/nonblocking/MPI_Irecv         3 3 3 3
traffic/main/nonblocking/MPI_Isend         3 3 3 3
traffic/main/nonblocking/MPI_Waitall       1 1 1 1
traffic/main/sendrecv/MPI_Sendrecv         1 1 1 1
END
expand_table 1 < p2p-visits.txt | LC_ALL=C sort > p2p-visits-expected.txt
$CUBEDUMP p2p/profile.cubex > p2p-dump.txt
metric_rows p2p-dump.txt visits | grep -E '/MPI_[A-Za-z_]+ ' | grep -vE '/MPI_(Init|Finalize) ' \
    | LC_ALL=C sort > p2p-visits-actual.txt
check "p2p: exact visits of the point-to-point calls per rank" \
    diff -u p2p-visits-expected.txt p2p-visits-actual.txt
# TODO(lead): summary.txt's MPI section must count the unmeasured calls per function.
# Per rank, with HP_MPI_ENABLE_GROUPS=p2p: MPI_Allreduce 3, MPI_Reduce 2, MPI_Bcast 1,
# MPI_Alltoall 1, MPI_Barrier 1, MPI_Comm_split 1, MPI_Comm_free 1, MPI_Comm_rank 1,
# MPI_Comm_size 1, MPI_Type_contiguous 2, MPI_Type_commit 2, MPI_Type_free 2 (job total:
# 4 times each). Replace this skip with a grep on p2p/summary.txt once the text is fixed.
# summary.txt lists: total calls, fewest and most calls of one rank, function.
check "p2p: summary.txt counts the unmeasured calls per function" sh -c '
    sed -n "/counted but not measured/,/^Flat profile/p" p2p/summary.txt |
        awk "NF == 4 && \$1 ~ /^[0-9]+\$/ { print \$4, \$1, \$2, \$3 }" | LC_ALL=C sort > p2p-unmeasured.txt
    printf "%s\n" "MPI_Allreduce 12 3 3" "MPI_Alltoall 4 1 1" "MPI_Barrier 4 1 1" \
        "MPI_Bcast 4 1 1" "MPI_Comm_free 4 1 1" "MPI_Comm_rank 4 1 1" "MPI_Comm_size 4 1 1" \
        "MPI_Comm_split 4 1 1" "MPI_Finalize 4 1 1" "MPI_Init 4 1 1" "MPI_Reduce 8 2 2" \
        "MPI_Type_commit 8 2 2" "MPI_Type_contiguous 8 2 2" "MPI_Type_free 8 2 2" |
        LC_ALL=C sort | diff -u - p2p-unmeasured.txt'


# ------------------------------------------------------ HP_MPI_EXCLUDE=MPI_Barrier,MPI_Bcast
check "run with HP_MPI_EXCLUDE=MPI_Barrier,MPI_Bcast" \
    mpirun4 HP_MPI_EXCLUDE=MPI_Barrier,MPI_Bcast HP_EXPERIMENT_DIRECTORY=excl ./traffic
check "cubecheck.py passes (exclude)" cubecheck excl/profile.cubex
$CUBEDUMP --paths excl/profile.cubex > excl-paths.txt
check "exclude: MPI_Barrier and MPI_Bcast are absent" \
    sh -c 'test -s excl-paths.txt && ! grep -nE "/MPI_(Barrier|Bcast)$" excl-paths.txt'
# Everything else of the default groups is there: t021's tree minus the two.
cat > excl-expected.txt <<'END'
traffic
traffic/main
traffic/main/MPI_Init
traffic/main/MPI_Comm_rank
traffic/main/MPI_Comm_size
traffic/main/ring
traffic/main/ring/MPI_Send
traffic/main/ring/MPI_Recv
traffic/main/procnull
traffic/main/procnull/MPI_Send
traffic/main/procnull/MPI_Recv
traffic/main/nonblocking
traffic/main/nonblocking/MPI_Irecv
traffic/main/nonblocking/MPI_Isend
traffic/main/nonblocking/MPI_Waitall
traffic/main/sendrecv
traffic/main/sendrecv/MPI_Sendrecv
traffic/main/allreduce
traffic/main/allreduce/MPI_Allreduce
traffic/main/allreduce_inplace
traffic/main/allreduce_inplace/MPI_Allreduce
traffic/main/bcast
traffic/main/alltoall
traffic/main/alltoall/MPI_Alltoall
traffic/main/barrier
traffic/main/reduce
traffic/main/reduce/MPI_Reduce
traffic/main/reduce_inplace
traffic/main/reduce_inplace/MPI_Reduce
traffic/main/subcomm
traffic/main/subcomm/MPI_Comm_split
traffic/main/subcomm/MPI_Allreduce
traffic/main/subcomm/MPI_Comm_free
traffic/main/MPI_Finalize
END
LC_ALL=C sort excl-expected.txt > excl-expected-sorted.txt
LC_ALL=C sort excl-paths.txt > excl-actual.txt
check "exclude: every other call is still measured" \
    diff -u excl-expected-sorted.txt excl-actual.txt
# TODO(lead): summary.txt counts the excluded calls: MPI_Barrier 1 and MPI_Bcast 1 per
# rank (4 each in the job). Replace this skip with a grep on excl/summary.txt.
check "exclude: summary.txt counts MPI_Barrier 1 and MPI_Bcast 1 per rank" sh -c '
    grep -Eq "^ +4 +1 +1  MPI_Barrier\$" excl/summary.txt &&
    grep -Eq "^ +4 +1 +1  MPI_Bcast\$" excl/summary.txt' 

# ----------------------------------------------------------------------- bad settings
expect_fail_words "bad group name: start-up error naming HP_MPI_ENABLE_GROUPS and the word" \
    "HP_MPI_ENABLE_GROUPS bogusgroup" \
    mpirun4 HP_MPI_ENABLE_GROUPS=p2p,bogusgroup HP_EXPERIMENT_DIRECTORY=bad1 ./traffic
cp "$WORK/last.out" bad1.out
check "bad group name: the program did not run (no output, no profile)" \
    sh -c 'test -x traffic && ! grep -q checksum bad1.out && ! [ -e bad1/profile.cubex ]'
expect_fail_words "bad function name: start-up error naming HP_MPI_EXCLUDE and the word" \
    "HP_MPI_EXCLUDE MPI_Bogus_call" \
    mpirun4 HP_MPI_EXCLUDE=MPI_Barrier,MPI_Bogus_call HP_EXPERIMENT_DIRECTORY=bad2 ./traffic
cp "$WORK/last.out" bad2.out
check "bad function name: the program did not run (no output, no profile)" \
    sh -c 'test -x traffic && ! grep -q checksum bad2.out && ! [ -e bad2/profile.cubex ]'
finish
