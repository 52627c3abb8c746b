#!/bin/sh
# Wait states of point-to-point messages on 4 real MPICH ranks (test/programs/mpi/
# waitstates.c "p2p", doc/wait-states.md), computed at MPI_Finalize with no trace:
#  - Late Sender: rank 1 sends 10 times 50 ms after rank 0 entered MPI_Recv: 0.5 s on
#    rank 0's receive path, 0 on every other rank there;
#  - the same with MPI_Irecv + MPI_Wait: charged to MPI_Wait, nothing to MPI_Irecv;
#  - two MPI_Irecv of the same envelope waited for in the opposite order: MPI matched them
#    in the order they were posted, so the Wait called first waits 10 x 50 ms for the
#    second message (matched in completion order it would be ~0), while the first one
#    is there: Messages in Wrong Order; its sender gets no Late Receiver (a receive
#    posted by MPI_Irecv was posted before its MPI_Wait was entered);
#  - wrong order: rank 0 waits 10 x 50 ms for the message sent second while the first
#    one is there: all of that Late Sender is "Messages in Wrong Order", from the same
#    source;
#  - Late Receiver: rank 1's MPI_Ssend waits 10 x 30 ms for rank 0 to enter MPI_Recv.
# Bounds: the program makes every delay exact from below (doc in the program), so the
# lower bounds are the issue's -2%; the machine is shared and loaded, and a loaded
# machine can only add time (a sleeping rank wakes late), so the upper bounds only catch
# gross errors (a wrong clock base gives seconds to days): at a load of 70 on the 2
# cores, 20 ms sleeps took up to 120 ms. Upper bounds: x8 for Late Sender, x10 for Late
# Receiver.
# Receives of the "ready" handshakes (call paths .../ready/MPI_Recv) wait for real and
# are left out of the "0 elsewhere" sums.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 19

check "build waitstates.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o waitstates "$MPIPROGS/waitstates.c"
check "measured run" mpirun4 HP_EXPERIMENT_DIRECTORY=exp ./waitstates p2p
check "cubecheck.py passes" cubecheck exp/profile.cubex
$CUBEDUMP exp/profile.cubex > dump.txt
S=waitstates/main/p2p_scenario

in_range "Late Sender on rank 0's MPI_Recv: 10 x 50 ms" \
    "$(ws_value dump.txt $S/late_sender/MPI_Recv 0 mpi_latesender)" 0.49 4
check_eq "no Late Sender on that path on ranks 1-3" "0 0 0" \
    "$(for r in 1 2 3; do ws_value dump.txt $S/late_sender/MPI_Recv $r mpi_latesender; done | awk '{ s = s (NR > 1 ? " " : "") $1 + 0 } END { print s }')"
in_range "MPI_Irecv + MPI_Wait: the Late Sender is charged to MPI_Wait" \
    "$(ws_value dump.txt $S/irecv_wait/MPI_Wait 0 mpi_latesender)" 0.49 4
check_eq "nothing to MPI_Irecv" 0.000000000 "$(ws_value dump.txt $S/irecv_wait/MPI_Irecv 0 mpi_latesender)"
ls_order=$(ws_value dump.txt $S/irecv_order/MPI_Wait 0 mpi_latesender)
in_range "two MPI_Irecv waited for in the opposite order: matched in the order posted" \
    "$ls_order" 0.49 4
check_eq "... and it is wrong order: the first message was there all along" "$ls_order" \
    "$(ws_value dump.txt $S/irecv_order/MPI_Wait 0 mpi_lswo_same)"
ls_wo=$(ws_value dump.txt $S/wrong_order/MPI_Recv 0 mpi_latesender)
in_range "wrong order: Late Sender of the message received first" "$ls_wo" 0.49 4
check_eq "all of it is Messages in Wrong Order" "$ls_wo" \
    "$(ws_value dump.txt $S/wrong_order/MPI_Recv 0 mpi_latesender_wo)"
check_eq "... from the same source" "$ls_wo" \
    "$(ws_value dump.txt $S/wrong_order/MPI_Recv 0 mpi_lswo_same)"
check_eq "... none from a different source" 0.000000000 \
    "$(ws_value dump.txt $S/wrong_order/MPI_Recv 0 mpi_lswo_different)"
check_eq "no wrong order anywhere else" "0.000000000" \
    "$(ws_sum dump.txt mpi_latesender_wo "^$S/(wrong_order/MPI_Recv|irecv_order/MPI_Wait)\$")"
in_range "Late Receiver on rank 1's MPI_Ssend: 10 x 30 ms" \
    "$(ws_value dump.txt $S/late_receiver/MPI_Ssend 1 mpi_latereceiver)" 0.294 3
check_eq "no Late Receiver on any other path or rank" "0.000000000" \
    "$(ws_sum dump.txt mpi_latereceiver "^$S/late_receiver/MPI_Ssend\$")"
check_eq "no Late Sender outside the three receive paths and the handshakes" "0.000000000" \
    "$(ws_sum dump.txt mpi_latesender "(/ready/MPI_Recv|$S/(late_sender|wrong_order)/MPI_Recv|$S/irecv_(wait|order)/MPI_Wait)\$")"
check "summary.txt: the table with the Late Sender and Late Receiver rows" sh -c '
    grep -q "^Waiting time by cause" exp/summary.txt &&
    grep -Eq "^Late Sender +[0-9.]+ +[0-9.]+%  main/p2p_scenario/" exp/summary.txt &&
    grep -Eq "^Late Receiver +[0-9]+\.[0-9]+ .*late_receiver/MPI_Ssend \(rank 1: " exp/summary.txt'
check "summary.txt: the whole run was covered" \
    grep -q "^coverage: 100.0% of [0-9]* communicating MPI calls kept (32 bytes each)" exp/summary.txt
finish
