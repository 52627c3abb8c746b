#!/bin/sh
# A rank-divergent call tree unifies (test/programs/mpi/divergent.c): rank 0 calls a(),
# the odd ranks b() (rank 3 also b_inner()), rank 2 c(), each with different MPI calls,
# and every rank common(). The one profile of the job has every call path of every rank,
# with zeros on the ranks that never took it (visits and bytes), and the Cube checker
# passes.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 8

check "build divergent.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o divergent "$MPIPROGS/divergent.c"
check "measured run" mpirun4 HP_EXPERIMENT_DIRECTORY=exp ./divergent
check_eq "program output (the ranks checked what they received)" "errors=0" "$(cat "$WORK/last.out")"
check "cubecheck.py passes" cubecheck exp/profile.cubex
check_eq "4 locations" 4 "$($CUBEDUMP --locations exp/profile.cubex | wc -l)"

$CUBEDUMP exp/profile.cubex > dump.txt
# Every call path except MPI_Finalize (checked in t021), visits per rank, and bytes.
# Derivation (sizeof int 4, double 8; N = 4):
#   a (rank 0): 2 x MPI_Send of 10 ints: 2 visits, 80 B sent.
#   b (ranks 1, 3): MPI_Irecv 1 visit, 0 B (counted at completion); MPI_Wait 1 visit,
#     40 B received (10 ints, MPI_STATUS_IGNORE); rank 1: MPI_Recv of 5 doubles, 40 B
#     received; rank 3: b_inner, MPI_Ssend of 5 doubles, 40 B sent.
#   c (rank 2): MPI_Sendrecv of 4 ints with itself, 16 B sent and 16 received;
#     MPI_Sendrecv_replace of 3 doubles with itself, 24 B sent and 24 received.
#   common (all): MPI_Allreduce of 1 int: N*1*4 = 16 sent and received.
cat > expected-table.txt <<'END'
# path                                       visits r0-r3   bytes_sent r0-r3   bytes_received r0-r3
divergent                                    1 1 1 1        0 0 0 0            0 0 0 0
divergent/main                               1 1 1 1        0 0 0 0            0 0 0 0
divergent/main/MPI_Init                      1 1 1 1        0 0 0 0            0 0 0 0
divergent/main/MPI_Comm_rank                 1 1 1 1        0 0 0 0            0 0 0 0
divergent/main/MPI_Comm_size                 1 1 1 1        0 0 0 0            0 0 0 0
divergent/main/a                             1 0 0 0        0 0 0 0            0 0 0 0
divergent/main/a/MPI_Send                    2 0 0 0        80 0 0 0           0 0 0 0
divergent/main/b                             0 1 0 1        0 0 0 0            0 0 0 0
divergent/main/b/MPI_Irecv                   0 1 0 1        0 0 0 0            0 0 0 0
divergent/main/b/MPI_Wait                    0 1 0 1        0 0 0 0            0 40 0 40
divergent/main/b/MPI_Recv                    0 1 0 0        0 0 0 0            0 40 0 0
divergent/main/b/b_inner                     0 0 0 1        0 0 0 0            0 0 0 0
divergent/main/b/b_inner/MPI_Ssend           0 0 0 1        0 0 0 40           0 0 0 0
divergent/main/c                             0 0 1 0        0 0 0 0            0 0 0 0
divergent/main/c/MPI_Sendrecv                0 0 1 0        0 0 16 0           0 0 16 0
divergent/main/c/MPI_Sendrecv_replace        0 0 1 0        0 0 24 0           0 0 24 0
divergent/main/common                        1 1 1 1        0 0 0 0            0 0 0 0
divergent/main/common/MPI_Allreduce          1 1 1 1        16 16 16 16        16 16 16 16
END
expand_table 3 < expected-table.txt | LC_ALL=C sort > expected.txt
metric_rows dump.txt visits bytes_sent bytes_received | grep -v '/MPI_Finalize ' \
    | LC_ALL=C sort > actual.txt
awk '{ print $1, $2, $3 }' expected.txt > expected-visits.txt
awk '{ print $1, $2, $3 }' actual.txt > actual-visits.txt
check "every call path of every rank, exact visits, zero where a rank never went" \
    diff -u expected-visits.txt actual-visits.txt
check "bytes_sent, bytes_received per call path and rank" diff -u expected.txt actual.txt
# Each call path is one node of the tree (the unification merged, not appended): exactly
# one row per location for every path (cubedump --paths would hide a duplicate).
check "no call path twice" sh -c 'test -s dump.txt && cut -f1 dump.txt | LC_ALL=C sort | uniq -c | awk "\$1 != 4 { print; bad = 1 } END { exit bad }"'
finish
