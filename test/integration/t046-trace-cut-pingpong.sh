#!/bin/sh
# The consistent cut (issues 25 and 30) on issue 30's ping-pong: pingpong_compute.c, 2
# ranks, 0.5 ms of computation before each message, 3 s and at least 1500 rounds (256 KiB)
# or 3500 (1 MiB; enough to fill the events' share), tracing with sampling at 10 kHz
# (the adaptive buffer by default). When a rank's events fill their share, the ranks
# agree at MPI_Finalize on the earliest stop: each keeps its events before it, every
# kept message with both halves, and marks the rest by one TRACE EVENTS DROPPED region
# (Enter at the cut, Leave at its last record; with sampling on a CallingContextEnter and
# Leave of its calling context at the top, like every region) with no event but samples inside or
# after it; samples go on to the end on every rank (the last within 2 sampling periods
# of it). summary.txt says the range and counts of every rank, and each rank's kept and
# left-out message events make 2 per round. Both runs leave HP_TRACE_ADAPTIVE unset:
# tracing with sampling takes the adaptive buffer by default, with no flush. Sampling
# off: the flushing buffer as before, no cut, every message kept.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 21

# dropped DIR: per rank "marked" when TRACE EVENTS DROPPED is entered once as a calling
# context, left once after it, and only samples (and that Leave) follow its Enter before
# PROGRAM_END; "bad" with any plain ENTER or LEAVE (the trace is hybrid)
dropped() {
    otf2-print "$1/traces.otf2" | unsanitized awk '
        $1 == "ENTER" || $1 == "LEAVE" { bad[$2]++ }
        $1 == "CALLING_CONTEXT_ENTER" && /"TRACE EVENTS DROPPED"/ { in_[$2]++; open_[$2] = 1; next }
        $1 == "CALLING_CONTEXT_LEAVE" && /"TRACE EVENTS DROPPED"/ { out[$2]++; open_[$2] = 0; done_[$2] = 1; next }
        $1 == "PROGRAM_BEGIN" { locs[$2] = 1 }
        (open_[$2] || done_[$2]) && $1 != "CALLING_CONTEXT_SAMPLE" && $1 != "PROGRAM_END" { bad[$2]++ }
        END { for (l in locs) print l, (in_[l] == 1 && out[l] == 1 && !bad[l]) ? "marked" : "bad" }' |
        LC_ALL=C sort | awk '{ printf "%s%s", sep, $2; sep = " " }'
}
# kept_plus_dropped DIR: per rank, message events in the trace plus those summary.txt
# lists as left out
kept_plus_dropped() {
    otf2-print "$1/traces.otf2" | unsanitized awk '$1 == "MPI_SEND" || $1 == "MPI_RECV" { n[$2]++ }
        END { print n[0] + 0, n[4294967296] + 0 }' > "$1.kept"
    read k0 k1 < "$1.kept"
    d0=$(sed -n 's/^  rank 0: .* left out: [0-9]* events, \([0-9]*\) messages$/\1/p' "$1/summary.txt")
    d1=$(sed -n 's/^  rank 1: .* left out: [0-9]* events, \([0-9]*\) messages$/\1/p' "$1/summary.txt")
    echo $((k0 + ${d0:-99999})) $((k1 + ${d1:-99999}))
}

# job_notes DIR: summary.txt's notes on the adaptive buffers are every rank's, gathered
# to rank 0 after the trace is written, not rank 0's alone: events stopped on as many
# locations as the cut's block lists ranks that stopped (one thread each here), and the
# sampling frequency halved on as many locations, as often, as the periods of the
# trace's samples say (10 kHz: 100000 ns << k).
job_notes() {
    stopped=$(grep -Ec '^  rank [0-9]+: events stopped at' "$1/summary.txt")
    $PY "$HP_SRCDIR/test/tools/trace_samples.py" "$1/traces.otf2" | unsanitized awk -F'\t' '
        !($1 in p) { p[$1] = $6 }
        END { for (l in p) { k = 0; q = p[l] / 100000; while (q > 1) { q /= 2; k++ }
                             if (k > 0) { n++; t += k } }
              printf "%d %d\n", n, t }' > "$1.halved"
    read nh kh < "$1.halved"
    echo "# $1: stopped on $stopped ranks, halved on $nh locations, $kh times"
    grep -q '^Measurement notes on the trace (all 2 ranks):$' "$1/summary.txt" &&
        grep -q "events stopped at their share of the trace on $stopped locations" "$1/summary.txt" &&
        if [ "$nh" -gt 0 ]; then
            grep -q "frequency was halved on $nh locations ($kh times in all" "$1/summary.txt"
        else
            ! grep -q 'frequency was halved' "$1/summary.txt"
        fi
}

check "build pingpong_compute.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o pp "$PROGRAMS/mpi/pingpong_compute.c"
# at least as many rounds as fill the events' share (about 800 in 256K, 3300 in 1M)
for run in 256K:1500 1M:3500; do
    size=${run%:*} least=${run#*:}
    timeout 300 env HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=10000 HP_TRACE_BUFFER=$size \
        HP_EXPERIMENT_DIRECTORY=c$size mpiexec -n 2 ./pp 3 $least > c$size.out 2> c$size.err
    # 3 s or $least rounds, whichever is more: a quiet machine does more rounds in 3 s
    rounds=$(sed -n 's/^rounds=//p' c$size.out)
    check "$size: the run succeeds with at least $least rounds" test "${rounds:-0}" -ge "$least"
    check "$size: samples on both ranks from before the 200th message to within 2 periods of the end" \
        trace_covers c$size 2
    check "$size: every kept message matched (otf2check.py)" trace_matched c$size
    check_eq "$size: the dropped range marked once per rank, only samples after its start" \
        "marked marked" "$(dropped c$size)"
    check "$size: summary.txt has the cut and each rank's range" \
        sh -c "grep -q '^Trace cut (HP_TRACE_ADAPTIVE)' c$size/summary.txt &&
               grep -Eq '^  rank 0: events stopped at [0-9.]+ s; from [0-9.]+ to [0-9.]+ s left out' c$size/summary.txt &&
               grep -Eq '^  rank 1: events (stopped at [0-9.]+ s|never stopped); from' c$size/summary.txt"
    check_eq "$size: per rank, kept and left-out message events make 2 per round" \
        "$((2 * rounds)) $((2 * rounds))" "$(kept_plus_dropped c$size)"
    check "$size: no flush" sh -c "! otf2-print c$size/traces.otf2 | grep -q 'TRACE BUFFER FLUSH'"
    check "$size: summary.txt's notes on stops and halvings count every rank's" job_notes c$size
done

# Sampling off: the flushing buffer, no cut, nothing dropped, every message matched.
timeout 300 env HP_ENABLE_TRACING=true HP_TRACE_BUFFER=256K HP_EXPERIMENT_DIRECTORY=nos \
    mpiexec -n 2 ./pp 3 1500 > nos.out 2> nos.err
nos_status=$?
rounds=$(sed -n 's/^rounds=//p' nos.out)
check "sampling off: the run succeeds with at least 1500 rounds" \
    test "$nos_status" -eq 0 -a "${rounds:-0}" -ge 1500
check "sampling off: no cut, nothing marked, every message matched" \
    sh -c "! grep -q 'Trace cut' nos/summary.txt && ! otf2-print nos/traces.otf2 | grep -q 'TRACE EVENTS DROPPED'"
check "sampling off: every message matched" trace_matched nos
check_eq "sampling off: all message events of each rank kept (2 per round)" \
    "$((2 * ${rounds:-0})) $((2 * ${rounds:-0}))" \
    "$(otf2-print nos/traces.otf2 | awk '$1 == "MPI_SEND" || $1 == "MPI_RECV" { n[$2]++ }
        END { print n[0] + 0, n[4294967296] + 0 }')"
finish
