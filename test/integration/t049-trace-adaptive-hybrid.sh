#!/bin/sh
# Hybrid tracing (issue 30): with tracing and sampling on, the adaptive trace buffer is the
# default, and its samples cover the whole run. pingpong_compute.c: 2 ranks play
# ping-pong for 3 s with 0.5 ms of computation before each message, then compute 10 ms
# more. At 10 kHz in 256 KiB and 1 MiB buffers: every rank has samples from before its
# 200th message (of thousands) to its end, the last one within 2 sampling periods (of its final frequency) of
# its end; events stop at their share (always with 256K; with 1M only if the run is long
# enough), and the job's cut at the earliest stop is marked once per rank by TRACE
# EVENTS DROPPED with no Enter after it, or else every round is kept (sampling on: the
# regions, the marker included, are CallingContextEnter/Leave events); every kept message
# is matched (otf2check.py). Without
# HP_TRACE_ADAPTIVE the same run uses the adaptive buffer (numbered samples, no flush;
# HP_TRACE_ADAPTIVE=false the flushing one); with sampling off tracing uses the flushing
# buffer as before and keeps every message.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 22
SAMPLES="$PY $HP_SRCDIR/test/tools/trace_samples.py"
HYBRID="HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=10000"

# stops DIR ROUNDS [plain]: per rank "stopped" (TRACE EVENTS DROPPED once as a calling
# context, no region entered after it) or "complete" (ROUNDS sends); prints the two
# words. "bad" for a plain ENTER or LEAVE (hybrid traces have none) unless "plain" is
# given, and then for any calling-context event.
stops() {
    otf2-print "$1/traces.otf2" | unsanitized awk -v rounds="$2" -v plain_ok="${3:-}" '
        $1 == "ENTER" || $1 == "LEAVE" { if (!plain_ok) plain[$2]++; next }
        /^CALLING_CONTEXT/ && plain_ok { plain[$2]++; next }
        $1 == "CALLING_CONTEXT_ENTER" && /"TRACE EVENTS DROPPED"/ { marks[$2]++; stopped[$2] = 1; next }
        $1 == "CALLING_CONTEXT_LEAVE" && /"TRACE EVENTS DROPPED"/ { marks[$2]++; next }
        $1 == "CALLING_CONTEXT_ENTER" && stopped[$2] { after[$2]++ }
        $1 == "MPI_SEND" { sends[$2]++; locs[$2] = 1 }
        END { for (l in locs) print l, plain[l] ? "bad" : (marks[l] == 2 && !after[l]) ? "stopped" :
                                        (!marks[l] && sends[l] == rounds) ? "complete" : "bad" }' |
        LC_ALL=C sort | awk '{ printf "%s%s", sep, $2; sep = " " }'
}
# numbered DIR yes|no: every sample has its "sample number" (only the adaptive buffer
# gives one; trace_samples.py's column 5), or none has
numbered() {
    $SAMPLES "$1/traces.otf2" > "$1.samples" &&
        unsanitized awk -F'\t' -v want="$2" '{ n++; if (($5 ~ /^[0-9]+$/) != (want == "yes")) bad = 1 }
                                            END { exit bad || n == 0 }' "$1.samples"
}

check "build pingpong_compute.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o pp "$PROGRAMS/mpi/pingpong_compute.c"
for size in 256K 1M; do
    timeout 120 env $HYBRID HP_TRACE_ADAPTIVE=true HP_TRACE_BUFFER=$size \
        HP_EXPERIMENT_DIRECTORY=a$size mpiexec -n 2 ./pp 3 3500 > a$size.out 2> a$size.err
    check "$size: the run succeeds" grep -q '^rounds=' a$size.out
    rounds=$(sed -n 's/^rounds=//p' a$size.out)
    check "$size: samples on both ranks from before the 200th message to within 2 periods of the end" \
        trace_covers a$size 2
    check "$size: every kept message matched (otf2check.py)" trace_matched a$size
    check_eq "$size: events stopped at their share, the cut marked once per rank, nothing entered after" \
        "stopped stopped" "$(stops a$size "$rounds")"
    check "$size: no flush" sh -c "! otf2-print a$size/traces.otf2 | grep -q 'TRACE BUFFER FLUSH'"
    # both ranks stopped (above): the job's note counts both, not rank 0's alone
    check "$size: the stop is said in summary.txt for both ranks, with the events and messages left out" \
        grep -Eq 'events stopped at their share of the trace on 2 locations.*: [0-9]+ events \([0-9]+ messages\) left out' \
        a$size/summary.txt
done

# The default in hybrid mode: the adaptive buffer, with no flush, to the end of the run.
timeout 120 env $HYBRID HP_TRACE_BUFFER=256K HP_EXPERIMENT_DIRECTORY=def \
    mpiexec -n 2 ./pp 3 > def.out 2> def.err
check "default: hp.config says HP_TRACE_ADAPTIVE=true" grep -qx HP_TRACE_ADAPTIVE=true def/hp.config
check "default: no flush (nothing said, no TRACE BUFFER FLUSH)" sh -c \
    "! grep -q 'flushed to disk' def.err && ! otf2-print def/traces.otf2 | grep -q 'TRACE BUFFER FLUSH'"
check "default: samples cover the run on both ranks" trace_covers def 2
# numbered samples: only the adaptive buffer gives them their "sample number" (column 5)
check "default: every sample carries its number (the adaptive buffer)" numbered def yes
timeout 120 env $HYBRID HP_TRACE_ADAPTIVE=false HP_TRACE_BUFFER=256K \
    HP_EXPERIMENT_DIRECTORY=off mpiexec -n 2 ./pp 1 > off.out 2> off.err
check "HP_TRACE_ADAPTIVE=false: samples carry no number (the flushing buffer)" numbered off no
check "HP_TRACE_ADAPTIVE=false: hp.config says so" grep -qx HP_TRACE_ADAPTIVE=false off/hp.config

# Sampling off: unchanged, the flushing buffer keeps every message.
timeout 120 env HP_ENABLE_TRACING=true HP_TRACE_BUFFER=256K HP_EXPERIMENT_DIRECTORY=nos \
    mpiexec -n 2 ./pp 3 > nos.out 2> nos.err
rounds=$(sed -n 's/^rounds=//p' nos.out)
check "sampling off: hp.config says HP_TRACE_ADAPTIVE=false (the flushing buffer)" \
    grep -qx HP_TRACE_ADAPTIVE=false nos/hp.config
check_eq "sampling off: every round kept on both ranks" "complete complete" "$(stops nos "${rounds:-x}" plain)"
check "sampling off: every message matched" trace_matched nos
finish
