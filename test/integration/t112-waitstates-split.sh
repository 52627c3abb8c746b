#!/bin/sh
# Wait states on communicators made with MPI_Comm_split, and none where there are none
# (test/programs/mpi/waitstates.c "split", doc/wait-states.md), 4 real MPICH ranks:
#  - MPI_Allreduce on the halves {0,2} and {1,3} of MPI_COMM_WORLD (even/odd), the second
#    rank of each half (world ranks 2 and 3) 20 ms late, 10 times: Wait at N x N 0.2 s
#    on world ranks 0 and 1, ~0 on 2 and 3. Replayed on MPI_COMM_WORLD instead of each
#    half, ranks 0 and 1 would wait for both late ranks' and every rank's own numbers
#    would mix the two halves' instances;
#  - a balanced ring whose messages are all sent before any receive is entered (a
#    barrier between): Late Sender and Late Receiver are exactly 0 on every rank.
# Bounds as in t111 (exact from below, slack above for a loaded machine).
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 8

check "build waitstates.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o waitstates "$MPIPROGS/waitstates.c"
check "measured run" mpirun4 HP_EXPERIMENT_DIRECTORY=exp ./waitstates split
check "cubecheck.py passes" cubecheck exp/profile.cubex
$CUBEDUMP exp/profile.cubex > dump.txt

A=waitstates/main/split_nxn/one_late/allreduce/MPI_Allreduce
in_range "Wait at N x N on world rank 0 (first of half {0,2})" \
    "$(ws_value dump.txt $A 0 mpi_wait_nxn)" 0.196 2.5
in_range "Wait at N x N on world rank 1 (first of half {1,3})" \
    "$(ws_value dump.txt $A 1 mpi_wait_nxn)" 0.196 2.5
in_range "~0 on the late ranks 2 and 3" \
    "$(echo "$(ws_value dump.txt $A 2 mpi_wait_nxn) $(ws_value dump.txt $A 3 mpi_wait_nxn)" | awk '{ print ($1 > $2 ? $1 : $2) }')" 0 0.05
check_eq "balanced ring: no Late Sender on any rank" "0 0 0 0" \
    "$(for r in 0 1 2 3; do ws_value dump.txt waitstates/main/ring_sent/MPI_Recv $r mpi_latesender; done | awk '{ s = s (NR > 1 ? " " : "") $1 + 0 } END { print s }')"
check_eq "balanced ring: no Late Receiver anywhere" "0.000000000" \
    "$(ws_sum dump.txt mpi_latereceiver '^$')"
finish
