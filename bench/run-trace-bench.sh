#!/bin/sh
# run-trace-bench.sh BUILDDIR [MID_CALLS [REPS]]: tracing against profiling only, side
# by side in one run (part of `make bench`; doc/bench.md).
#
# bench-calls.c (main -> mid() x N -> leaf() x 10) built with hp-instrument runs with
# profiling only and with HP_ENABLE_TRACING=true. Printed: ns per instrumented call
# (enter+exit, timed inside the program around its loop) for both and their ratio
# (target <= 2), events per second into the buffers, the time to write the archive at
# exit (whole run minus the loop), and bytes per event of the written trace (target
# <= 12). Minimum of REPS runs. Never fails on timings: exit 0 unless something could
# not be built or run.
set -u
BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"
bench_builddir "BUILDDIR [MID_CALLS [REPS]]" "$@"
n=${2:-1000000}
reps=${3:-3}
bench_start hp-instrument libhpmeasure.so
bench_workdir trace
export HP_INSTRUMENT_LIBDIR="$BUILDDIR/.libs"
# The figures are per recorded call: the default overhead budget would switch leaf() off.
export HP_OVERHEAD_BUDGET=0
"$BUILDDIR/hp-instrument" "${CC:-cc}" -O2 -o calls "$SRCDIR/bench/bench-calls.c" || exit 1

# "loop_ns wall_ns" of the fastest (by loop time) of $reps runs; extra env in "$@"
fastest() {
    best_loop=""
    best_wall=""
    i=0
    while [ $i -lt "$reps" ]; do
        rm -rf run
        t0=$(date +%s%N)
        out=$(env HP_EXPERIMENT_DIRECTORY=run "$@" ./calls "$n") || exit 1
        wall=$(( $(date +%s%N) - t0 ))
        loop=$(echo "$out" | sed -n 's/^ns=\([0-9]*\) .*/\1/p')
        if [ -z "$best_loop" ] || [ "$loop" -lt "$best_loop" ]; then
            best_loop=$loop
            best_wall=$wall
        fi
        i=$((i + 1))
    done
    echo "$best_loop $best_wall"
}

set -- $(fastest HP_ENABLE_TRACING=false)
prof_loop=$1
set -- $(fastest HP_ENABLE_TRACING=true HP_TOTAL_MEMORY=256M)
trace_loop=$1
trace_wall=$2
events=$(( (11 * n + 2) * 2 ))
bytes=$(du -sb run/traces | cut -f1)

awk -v n="$n" -v p="$prof_loop" -v t="$trace_loop" -v w="$trace_wall" -v e="$events" \
    -v b="$bytes" 'BEGIN {
    calls = 11 * n
    printf "Tracing vs profiling only (bench-calls, %d instrumented calls)\n\n", calls
    printf "  %-40s %10.2f ns/call\n", "profiling only", p / calls
    printf "  %-40s %10.2f ns/call\n", "profiling + tracing", t / calls
    printf "  %-40s %10.2f       (target <= 2)\n", "tracing / profiling", t / p
    printf "  %-40s %10.1f M events/s\n", "events into the buffers", e / t * 1000
    printf "  %-40s %10.3f s (%d events)\n", "writing the archive at exit", (w - t) / 1e9, e
    printf "  %-40s %10.2f bytes/event (target <= 12)\n", "trace on disk (traces/)", b / e
    printf "bench: trace_profiling_ns_per_call=%.2f\n", p / calls
    printf "bench: trace_tracing_ns_per_call=%.2f\n", t / calls
    printf "bench: trace_over_profiling=%.2f\n", t / p
    printf "bench: trace_events_per_s=%.0f\n", e / t * 1e9
    printf "bench: trace_write_s=%.3f\n", (w - t) / 1e9
    printf "bench: trace_bytes_per_event=%.2f\n", b / e
}'
rm -rf run
exit 0
