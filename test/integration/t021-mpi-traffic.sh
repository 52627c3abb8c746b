#!/bin/sh
# Known MPI traffic on 4 ranks (test/programs/mpi/traffic.c): one experiment for the whole
# job with one location per rank; exact visits, bytes_sent, bytes_received (and message
# counts) per call path and rank for every MPI call, from tables derived by hand from
# doc/formats/MPI-BYTES.md (NOT from a profile); for every collective call path the
# bytes sent over all ranks equal the bytes received over all ranks; the Cube checker
# passes; the program's output is that of a plain mpicc build.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 15

check "build traffic.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o traffic "$MPIPROGS/traffic.c"
check "build traffic.c with plain mpicc" mpicc -O1 -o traffic-plain "$MPIPROGS/traffic.c"
check "plain run (the program checks its own data)" mpirun4 ./traffic-plain
plain_out=$(cat "$WORK/last.out")
check "measured run" mpirun4 HP_EXPERIMENT_DIRECTORY=exp ./traffic
check_eq "program output unchanged" "$plain_out" "$(cat "$WORK/last.out")"
check_eq "one experiment directory for the whole job" "exp/" "$(ls -d exp*/ 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
check "cubecheck.py passes" cubecheck exp/profile.cubex

# System tree: 4 processes "MPI Rank r" with one thread each; location id = rank.
# --locations: id, machine/node path, process name, process rank, thread name, thread rank.
$CUBEDUMP --locations exp/profile.cubex | cut -f1,3,4,6 > locations.txt
printf '0\tMPI Rank 0\t0\t0\n1\tMPI Rank 1\t1\t0\n2\tMPI Rank 2\t2\t0\n3\tMPI Rank 3\t3\t0\n' \
    > expected-locations.txt
check "4 locations, location id = rank, processes named MPI Rank 0..3" \
    diff -u expected-locations.txt locations.txt
# machine -> node -> processes: all four under the same node, path "machine/node".
check "the 4 processes sit below one machine/node" sh -c \
    '$1 --locations exp/profile.cubex | cut -f2 | sort -u | awk -F/ "{ n++ } NF != 2 { bad = 1 } END { exit bad || n != 1 }"' \
    sh "$CUBEDUMP"

# Every region named MPI_* has paradigm mpi (--regions: id name mangled file line paradigm role).
$CUBEDUMP --regions exp/profile.cubex > regions.txt
check "MPI regions have paradigm mpi" awk -F'\t' '
    $2 ~ /^MPI_/ { n++; if ($6 != "mpi") { print "paradigm of " $2 " is " $6; bad = 1 } }
    END { if (n < 10) { print "only " n " MPI regions"; bad = 1 }; exit bad }' regions.txt

$CUBEDUMP exp/profile.cubex > dump.txt
$CUBEDUMP --paths exp/profile.cubex > paths.txt

# ---------------------------------------------------------------------------------------
# Expected visits, bytes_sent, bytes_received: every call path except MPI_Finalize (whose
# exit may come after the profile is taken; its presence is checked separately), per rank.
#
# Derivation (N = 4 ranks, sizeof: int 4, double 8, char 1; int5 = contiguous(5, int) =
# 20 bytes, int2 = contiguous(2, int) = 8 bytes; left = (r+3)%4, right = (r+1)%4).
# MPI_Type_contiguous/_commit/_free in main are Score-P group "type", not in the default
# groups (cg,coll,env,io,p2p,rma,topo,xnonblock): absent. MPI_Init (env), MPI_Comm_rank
# and MPI_Comm_size (cg), MPI_Comm_split and MPI_Comm_free (cg) are measured, 0 bytes.
#
# ring: 2 iterations, each one MPI_Send of 100 ints (400 B) to right and one MPI_Recv
#   posted for 200 ints; the status says 100 ints arrived, so 400 B, not 800.
#   Send: 2 visits, sent 2*400 = 800; Recv: 2 visits, received 2*400 = 800 (one of the
#   two receives passes MPI_STATUS_IGNORE; its size must still be known).
# procnull: MPI_Send of 50 ints to MPI_PROC_NULL, MPI_Recv from MPI_PROC_NULL: 1 visit
#   each, 0 bytes (PROC_NULL peers move nothing).
# nonblocking: 3 MPI_Irecv, 3 MPI_Isend, 1 MPI_Waitall(MPI_STATUSES_IGNORE).
#   Sent at the Isends by rank r: (10+r) doubles + 7 chars + 3 int5
#     = 8*(10+r) + 7 + 60:  r0 80+67 = 147, r1 88+67 = 155, r2 96+67 = 163, r3 104+67 = 171.
#   Received at the Waitall (completed status, not the posted 16 doubles), from left:
#     = 8*(10+left) + 67:   r0 (from 3) 171, r1 (from 0) 147, r2 (from 1) 155, r3 (from 2) 163.
#   The Irecvs themselves count 0 bytes (counted at completion).
# sendrecv: r sends r+1 ints to left, receives from right (posted 8 ints, STATUS_IGNORE):
#   sent 4*(r+1): 4 8 12 16; received 4*(right+1): r0 8, r1 12, r2 16, r3 4.
# allreduce: 4 doubles: sent = received = N*count*sz = 4*4*8 = 128 on every rank.
# allreduce_inplace: MPI_IN_PLACE, 3 ints: (N-1)*count*sz = 3*3*4 = 36 sent and received.
# bcast: 25 ints (100 B) from root 1: sent root N*100 = 400, others 0; received 100 on
#   every rank (root included).
# alltoall: sendcount 2 MPI_INT, recvcount 1 int2: sent = received = N*recvcount*sz(recv)
#   = 4*1*8 = 32.
# barrier: 0, 0.
# reduce: 6 doubles (48 B) to root 2: sent 48 on every rank; received root N*48 = 192,
#   others 0.
# reduce_inplace: 5 ints (20 B) to root 2, root passes MPI_IN_PLACE: sent 20 on non-roots,
#   0 on the root; received root (N-1)*20 = 60, others 0.
# subcomm: MPI_Comm_split (0 B), MPI_Allreduce of 8 ints on a communicator of size 2:
#   sent = received = 2*8*4 = 64; MPI_Comm_free (0 B).
#
# Collective sums over ranks (sent = received): allreduce 512 = 512, allreduce_inplace
# 144 = 144, bcast 400 = 4*100, alltoall 128 = 128, barrier 0 = 0, reduce 4*48 = 192,
# reduce_inplace 3*20 = 60, subcomm allreduce 256 = 256.
# ---------------------------------------------------------------------------------------
cat > expected-table.txt <<'END'
# path                                         visits r0-r3  bytes_sent r0-r3   bytes_received r0-r3
traffic                                        1 1 1 1       0 0 0 0            0 0 0 0
traffic/main                                   1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/MPI_Init                          1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/MPI_Comm_rank                     1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/MPI_Comm_size                     1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/ring                              1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/ring/MPI_Send                     2 2 2 2       800 800 800 800    0 0 0 0
traffic/main/ring/MPI_Recv                     2 2 2 2       0 0 0 0            800 800 800 800
traffic/main/procnull                          1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/procnull/MPI_Send                 1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/procnull/MPI_Recv                 1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/nonblocking                       1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/nonblocking/MPI_Irecv             3 3 3 3       0 0 0 0            0 0 0 0
traffic/main/nonblocking/MPI_Isend             3 3 3 3       147 155 163 171    0 0 0 0
traffic/main/nonblocking/MPI_Waitall           1 1 1 1       0 0 0 0            171 147 155 163
traffic/main/sendrecv                          1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/sendrecv/MPI_Sendrecv             1 1 1 1       4 8 12 16          8 12 16 4
traffic/main/allreduce                         1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/allreduce/MPI_Allreduce           1 1 1 1       128 128 128 128    128 128 128 128
traffic/main/allreduce_inplace                 1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/allreduce_inplace/MPI_Allreduce   1 1 1 1       36 36 36 36        36 36 36 36
traffic/main/bcast                             1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/bcast/MPI_Bcast                   1 1 1 1       0 400 0 0          100 100 100 100
traffic/main/alltoall                          1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/alltoall/MPI_Alltoall             1 1 1 1       32 32 32 32        32 32 32 32
traffic/main/barrier                           1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/barrier/MPI_Barrier               1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/reduce                            1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/reduce/MPI_Reduce                 1 1 1 1       48 48 48 48        0 0 192 0
traffic/main/reduce_inplace                    1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/reduce_inplace/MPI_Reduce         1 1 1 1       20 20 0 20         0 0 60 0
traffic/main/subcomm                           1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/subcomm/MPI_Comm_split            1 1 1 1       0 0 0 0            0 0 0 0
traffic/main/subcomm/MPI_Allreduce             1 1 1 1       64 64 64 64        64 64 64 64
traffic/main/subcomm/MPI_Comm_free             1 1 1 1       0 0 0 0            0 0 0 0
END
expand_table 3 < expected-table.txt > expected.unsorted
sorted expected.unsorted > expected.txt
metric_rows dump.txt visits bytes_sent bytes_received | grep -v '/MPI_Finalize ' > actual.unsorted
sorted actual.unsorted > actual.txt
check "exact visits, bytes_sent, bytes_received per call path and rank" \
    diff -u expected.txt actual.txt

# Point-to-point message counts: the paths below, everything else 0 (collectives are not
# point-to-point messages; MPI_PROC_NULL peers move nothing, so no message).
#   ring: 2 sends, 2 receives; nonblocking: 3 Isends, 3 receives completed in the Waitall;
#   sendrecv: 1 + 1.
cat > expected-messages.txt <<'END'
# path                                   messages_sent r0-r3   messages_received r0-r3
traffic/main/ring/MPI_Send               2 2 2 2               0 0 0 0
traffic/main/ring/MPI_Recv               0 0 0 0               2 2 2 2
traffic/main/nonblocking/MPI_Isend       3 3 3 3               0 0 0 0
traffic/main/nonblocking/MPI_Waitall     0 0 0 0               3 3 3 3
traffic/main/sendrecv/MPI_Sendrecv       1 1 1 1               1 1 1 1
END
expand_table 2 < expected-messages.txt > msg-nonzero.txt
# All paths of the expected table, with the nonzero rows replaced.
awk 'NR == FNR { v[$1 " " $2] = $3 " " $4; next }
     { k = $1 " " $2; print k, (k in v) ? v[k] : "0 0" }' msg-nonzero.txt expected.unsorted \
    | LC_ALL=C sort > expected-msg.txt
metric_rows dump.txt messages_sent messages_received | grep -v '/MPI_Finalize ' \
    | LC_ALL=C sort > actual-msg.txt
check "exact messages_sent, messages_received per call path and rank" \
    diff -u expected-msg.txt actual-msg.txt

# For every collective call path: bytes_sent summed over ranks == bytes_received summed
# over ranks (computed from the profile; the path must exist on all 4 ranks).
metric_rows dump.txt bytes_sent bytes_received > bytes.txt
check "collectives: bytes sent over all ranks == bytes received over all ranks" awk '
    BEGIN {
        split("traffic/main/allreduce/MPI_Allreduce traffic/main/allreduce_inplace/MPI_Allreduce " \
              "traffic/main/bcast/MPI_Bcast traffic/main/alltoall/MPI_Alltoall " \
              "traffic/main/barrier/MPI_Barrier traffic/main/reduce/MPI_Reduce " \
              "traffic/main/reduce_inplace/MPI_Reduce traffic/main/subcomm/MPI_Allreduce", p, " ")
        for (i in p) coll[p[i]] = 1
    }
    ($1 in coll) { n[$1]++; s[$1] += $3; r[$1] += $4 }
    END {
        for (c in coll) {
            if (n[c] != 4) { print c ": " n[c] + 0 " locations"; bad = 1 }
            else if (s[c] != r[c]) { print c ": sent " s[c] " received " r[c]; bad = 1 }
        }
        exit bad
    }' bytes.txt

check "MPI_Finalize is measured below main" grep -qx 'traffic/main/MPI_Finalize' paths.txt
check "MPI_Type_* (group type) is not measured by default" \
    sh -c 'test -s paths.txt && ! grep -n MPI_Type_ paths.txt'
finish
