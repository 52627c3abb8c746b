#!/bin/sh
# HP_TRACE_ADAPTIVE=true keeps a run of any length in one buffer per location, without a
# flush. loop.c's 400002 events in a 1 MiB buffer (63 bins of 16 KiB, 1023 events each):
# the events fill their share (31 bins = 31713 events), then region events are thinned;
# Leaves of regions entered before stay, so the trace is balanced: exactly 31713 events plus the
# few Leaves that close what was open. Threads: every location has its own buffer. An MPI
# ring with work between the messages in a 512 KiB buffer: region events are thinned,
# every message event is kept and matched. HP_TRACE_EVENT_SHARE=25 gives the events 15
# of the 63 bins; 0 is refused.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 17
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

check "build loop.c" hp-instrument gcc -O1 -o loop "$PROGRAMS/loop.c"
HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=4M HP_TRACE_BUFFER=1M HP_TRACE_ADAPTIVE=true \
    HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=ad ./loop > /dev/null 2> ad.err
check "otf2check.py passes" $OTF2CHECK ad/traces.otf2
check "no flush: no TRACE BUFFER FLUSH region, nothing said about flushes" \
    sh -c '! otf2-print ad/traces.otf2 | grep -q "TRACE BUFFER FLUSH" && ! grep -q "flushed to disk" ad.err'
events=$(otf2-print ad/traces.otf2 | awk '$1 == "ENTER" || $1 == "LEAVE"' | wc -l)
check "31713 events kept (31 of 63 bins) plus at most 3 closing Leaves, of 400002 ($events)" \
    test "$events" -ge 31713 -a "$events" -le 31716
check "the thinning is said on stderr and in summary.txt" \
    sh -c 'grep -q "HP_TRACE_ADAPTIVE: events filled their share" ad.err &&
           grep -q "HP_TRACE_ADAPTIVE: events filled their share" ad/summary.txt'
check "the profile still counts every visit (100000 of inner)" \
    sh -c "$CUBEDUMP ad/profile.cubex | grep -q 'inner.*visits=100000'"
HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=4M HP_TRACE_BUFFER=1M HP_TRACE_ADAPTIVE=false \
    HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=fl ./loop > /dev/null 2> fl.err
check "HP_TRACE_ADAPTIVE=false with the same buffer flushes, as before" \
    grep -q "flushed to disk" fl.err
HP_TRACE_EVENT_SHARE=25 HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=4M HP_TRACE_BUFFER=1M \
    HP_TRACE_ADAPTIVE=true HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=q ./loop > /dev/null 2>&1
events=$(otf2-print q/traces.otf2 | awk '$1 == "ENTER" || $1 == "LEAVE"' | wc -l)
check "HP_TRACE_EVENT_SHARE=25: 15345 events kept (15 of 63 bins) plus at most 3 Leaves ($events)" \
    test "$events" -ge 15345 -a "$events" -le 15348
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
printf 'MPI_RECV 0 1000\nMPI_RECV 4294967296 1000\nMPI_SEND 0 1000\nMPI_SEND 4294967296 1000\n' \
    > mpi-expected.txt
check "MPI: all 1000 sends and receives per rank kept" diff -u mpi-expected.txt mpi-events.txt
leaves=$(otf2-print mpi/traces.otf2 | grep -c 'ENTER.*Region: "leaf"')
check "MPI: leaf() thinned (fewer than its 20000 visits in the trace: $leaves)" \
    test "$leaves" -gt 0 -a "$leaves" -lt 20000
finish
