#!/bin/sh
# HP_TRACE_ADAPTIVE=true keeps a run of any length in one buffer per location, without a
# flush. loop.c's 400002 events in a 1 MiB buffer (63 bins of 16 KiB, 1023 events each):
# the events fill their share (31 bins = 31713 slots, less a reserve of 64 for Leaves =
# 31649 events) and stop there: the marker TRACE EVENTS STOPPED (an Enter and a Leave)
# and the Leaves of the 3 regions open at the stop go into the reserve, so the trace is
# balanced: exactly 31654 events. Threads: every location has its own buffer. An MPI
# ring with work between the messages in a 512 KiB buffer: MPI and region events stop
# alike at the share on each rank, the job's cut (at the earliest stop) is marked by
# TRACE EVENTS DROPPED on each; the messages kept are matched, and with those left out
# (summary.txt's cut lines) make 1000 per direction on rank 0. HP_TRACE_EVENT_SHARE=25 gives
# the events 15 of the 63 bins; 0 is refused.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 18
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

check "build loop.c" hp-instrument gcc -O1 -o loop "$PROGRAMS/loop.c"
HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=4M HP_TRACE_BUFFER=1M HP_TRACE_ADAPTIVE=true \
    HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=ad ./loop > /dev/null 2> ad.err
check "otf2check.py passes" $OTF2CHECK ad/traces.otf2
check "no flush: no TRACE BUFFER FLUSH region, nothing said about flushes" \
    sh -c '! otf2-print ad/traces.otf2 | grep -q "TRACE BUFFER FLUSH" && ! grep -q "flushed to disk" ad.err'
events=$(otf2-print ad/traces.otf2 | awk '$1 == "ENTER" || $1 == "LEAVE"' | wc -l)
check "31649 events kept (31 of 63 bins less the reserve), the marker and 3 closing Leaves, of 400002 ($events)" \
    test "$events" -eq 31654
check "the stop is said on stderr and in summary.txt, with the 368352 events left out (400002 - 31650 stored)" \
    sh -c 'grep -q "HP_TRACE_ADAPTIVE: events stopped at their share of the trace on 1 locations.*368352 events (0 messages) left out" ad.err &&
           grep -q "HP_TRACE_ADAPTIVE: events stopped at their share of the trace on 1 locations" ad/summary.txt'
check "the profile still counts every visit (100000 of inner)" \
    sh -c "$CUBEDUMP ad/profile.cubex | grep -q 'inner.*visits=100000'"
HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=4M HP_TRACE_BUFFER=1M HP_TRACE_ADAPTIVE=false \
    HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=fl ./loop > /dev/null 2> fl.err
check "HP_TRACE_ADAPTIVE=false with the same buffer flushes, as before" \
    grep -q "flushed to disk" fl.err
HP_TRACE_EVENT_SHARE=25 HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=4M HP_TRACE_BUFFER=1M \
    HP_TRACE_ADAPTIVE=true HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=q ./loop > /dev/null 2>&1
events=$(otf2-print q/traces.otf2 | awk '$1 == "ENTER" || $1 == "LEAVE"' | wc -l)
check "HP_TRACE_EVENT_SHARE=25: 15281 events kept (15 of 63 bins less the reserve), marker and 3 Leaves ($events)" \
    test "$events" -eq 15286
expect_fail "HP_TRACE_EVENT_SHARE=0 stops the program with the accepted range" \
    "HP_TRACE_EVENT_SHARE='0' is out of range: expected 1 up to 100" \
    env HP_TRACE_EVENT_SHARE=0 HP_ENABLE_TRACING=true HP_TRACE_ADAPTIVE=true ./loop

check "build threads.c" hp-instrument gcc -O1 -pthread -o threads "$PROGRAMS/threads.c"
HP_TRACE_BUFFER=256K HP_TRACE_ADAPTIVE=true HP_ENABLE_TRACING=true \
    HP_EXPERIMENT_DIRECTORY=thr check "threads, adaptive 256K per location" ./threads
trace_enters thr/traces.otf2 > thr-enters.txt
profile_visits thr/profile.cubex > thr-visits.txt
check "threads: below the share every Enter is kept (= visits on each of the 4 locations)" \
    sh -c "diff -u thr-visits.txt thr-enters.txt && $OTF2CHECK thr/traces.otf2"

check "build ring_work.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o ring "$PROGRAMS/mpi/ring_work.c"
HP_OVERHEAD_BUDGET=0 HP_TRACE_BUFFER=512K HP_TRACE_ADAPTIVE=true HP_ENABLE_TRACING=true \
    HP_EXPERIMENT_DIRECTORY=mpi check "mpiexec -n 2, 1000 rounds, adaptive 512K" \
    timeout 120 mpiexec -n 2 ./ring 1000
check "MPI: otf2check.py passes (balanced, every send matched)" $OTF2CHECK mpi/traces.otf2
otf2-print mpi/traces.otf2 | awk '$1 == "MPI_SEND" || $1 == "MPI_RECV" { n[$1 " " $2]++ }
    END { for (k in n) print k, n[k] }' | LC_ALL=C sort > mpi-events.txt
kept0=$(awk '$2 == 0 { n += $3 } END { print n + 0 }' mpi-events.txt)
lost0=$(sed -n 's/^  rank 0: .* left out: [0-9]* events, \([0-9]*\) messages$/\1/p' mpi/summary.txt)
check "MPI: rank 0's messages kept ($kept0) and left out (${lost0:-none}) make 2000" \
    test "$kept0" -lt 2000 -a $((kept0 + ${lost0:-0})) -eq 2000
check "MPI: the events stop at the job's cut, marked once (Enter and Leave) on each rank" \
    test "$(otf2-print mpi/traces.otf2 | awk '/TRACE EVENTS DROPPED/ { n[$2]++ } END { for (k in n) print k, n[k] }' | LC_ALL=C sort | tr '\n' ' ')" = "0 2 4294967296 2 "
after=$(otf2-print mpi/traces.otf2 | awk '/ENTER .*TRACE EVENTS DROPPED/ { stopped[$2] = 1; next }
    $1 == "ENTER" && stopped[$2] { n++ } END { print n + 0 }')
leaves=$(otf2-print mpi/traces.otf2 | grep -c 'ENTER.*Region: "leaf"')
check "MPI: no Enter after the stop ($after), leaf() recorded only before it ($leaves of 20000)" \
    test "$after" -eq 0 -a "$leaves" -gt 0 -a "$leaves" -lt 20000
finish
