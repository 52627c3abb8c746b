#!/bin/sh
# The counter benchmark (`make bench`; doc/counters.md explains the figures).
#
# Builds bench-calls.c against the TSC-only hooks (the timer-only probe: one rdtsc per
# enter and exit, nothing else) and against our core, and times side by side in one run:
#   tsc        the timer-only probe
#   core0      hpmeasure, no counter configured (the default)
#   core1      hpmeasure, HP_METRIC_PERF=task-clock
#   core4      hpmeasure, HP_METRIC_PERF=page-faults,minor-faults,context-switches,cpu-migrations
#              (one perf group: one read; a clock event would add a group of its own)
#   rusage     hpmeasure, HP_METRIC_RUSAGE=ru_minflt,ru_nvcsw
# and, with bench-counter-read.c, one read() of a perf group of 1 and 4 events, one
# getrusage and one bare system call. Each variant runs REPS times, interleaved, and the
# minimum counts. Prints a table with each enter+exit cost as a ratio to the timer-only
# probe, then one `bench: name=value` line per figure.
#
# Usage: run-counters-bench.sh BUILDDIR [MID_CALLS [REPS]]
#   MID_CALLS  calls of mid(), each making 10 leaf() calls (default 100000: with counters
#              every call costs two system calls)
#   REPS       repetitions per variant (default 3)
# Exits 0 whatever the timings are; 1 when something could not be built or run.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_builddir "BUILDDIR [MID_CALLS [REPS]]" "$@"
N=${2:-100000}
REPS=${3:-3}
is_count "$N" && is_count "$REPS" || die "MID_CALLS and REPS must be counts"
CC=${CC:-cc}
bench_start hp-instrument libhpmeasure.so
bench_workdir counters
mkdir -p tsc || die "cannot create $WORK/tsc"

CFLAGS_BENCH="-O2 -Wall -Wextra"
# shellcheck disable=SC2086 # CFLAGS_BENCH holds several words on purpose
build $CC $CFLAGS_BENCH -g -o plain "$BENCHDIR/bench-calls.c"
# shellcheck disable=SC2086
build $CC $CFLAGS_BENCH -fno-instrument-functions -fPIC -shared -DBENCH_HOOKS_TSC \
    -o tsc/libhpmeasure.so "$BENCHDIR/hooks-nop.c"
# shellcheck disable=SC2086
build env HP_INSTRUMENT_LIBDIR="$WORK/tsc" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include" \
    "$INSTRUMENT" $CC $CFLAGS_BENCH -o tsc-hooks "$BENCHDIR/bench-calls.c"
# shellcheck disable=SC2086
build env HP_INSTRUMENT_LIBDIR="$CORELIBDIR" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include" \
    "$INSTRUMENT" $CC $CFLAGS_BENCH -o core "$BENCHDIR/bench-calls.c"
# shellcheck disable=SC2086
build $CC $CFLAGS_BENCH -I"$BENCHDIR" -o counter-read "$BENCHDIR/bench-counter-read.c"

PERF4=page-faults,minor-faults,context-switches,cpu-migrations
# shellcheck disable=SC2317 # called through min_of_rounds
run() {
    rm -rf "$WORK/exp-$1"
    case $1 in
        plain) out=$(./plain "$N") ;;
        tsc) out=$(./tsc-hooks "$N") ;;
        core0) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" ./core "$N") ;;
        core1) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" HP_METRIC_PERF=task-clock \
            ./core "$N") ;;
        core4) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" HP_METRIC_PERF=$PERF4 ./core "$N") ;;
        rusage) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" HP_METRIC_RUSAGE=ru_minflt,ru_nvcsw \
            ./core "$N") ;;
    esac || die "$1 run failed (exit status $?)"
    ns=${out#ns=}
    ns=${ns%% *}
    is_count "$ns" || die "$1 run printed '$out'"
    echo "$ns"
}

# One round of the counter reads per round, so they see the same noise.
# shellcheck disable=SC2317 # called through min_of_rounds
reads_round() {
    ./counter-read 200000 >>reads.txt || die "counter-read failed"
}
min_of_rounds -e reads_round run plain tsc core0 core1 core4 rusage
# The runs with counters must have recorded them (a counter refused here is noted).
grep -q 'cpu-migrations' "$WORK/exp-core4/summary.txt" ||
    echo "bench: warning: the core4 run recorded no cpu-migrations" >&2

# Minimum of each read figure over the rounds ("n/a" stays when perf refused the group).
read_min() {
    sed -n "s/.*$1=\([^ ]*\).*/\1/p" reads.txt | sort -g | head -n 1
}
perf1=$(read_min perf1_ns) perf4=$(read_min perf4_ns)
rusage=$(read_min rusage_ns) sys=$(read_min syscall_ns)

# shellcheck disable=SC2154 # min_* are set by keep_min
awk -v n="$N" -v reps="$REPS" -v a="$min_plain" -v t="$min_tsc" -v c0="$min_core0" \
    -v c1="$min_core1" -v c4="$min_core4" -v ru="$min_rusage" \
    -v p1="$perf1" -v p4="$perf4" -v rr="$rusage" -v sys="$sys" '
function per_call(x) { return (x - a) / calls }
function row(name, ns) { printf "  %-44s %12.2f %10.2f\n", name, ns, (tsc > 0 ? ns / tsc : 0) }
BEGIN {
    calls = 11 * n
    tsc = per_call(t)
    printf "hpmeasure counter overhead: %d instrumented calls, min of %d runs\n\n", calls, reps
    printf "  %-44s %12s %10s\n", "enter+exit", "ns/call", "x timer"
    row("timer-only probe (rdtsc at enter and exit)", tsc)
    row("hpmeasure, no counter", per_call(c0))
    row("hpmeasure, 1 perf counter (task-clock)", per_call(c1))
    row("hpmeasure, 4 perf counters (one group)", per_call(c4))
    row("hpmeasure, 2 rusage fields", per_call(ru))
    printf "\n  %-44s %12s %10s\n", "one read alone", "ns", "x timer"
    row("read() of a perf group of 1", p1)
    row("read() of a perf group of 4", p4)
    row("getrusage(RUSAGE_THREAD)", rr)
    row("a bare system call (getppid), for scale", sys)
    printf "  published event tracer with 4 PAPI counters: 772 ns per event\n\n"

    printf "bench: counters_calls=%d\n", calls
    printf "bench: timer_probe_ns_per_call=%.2f\n", tsc
    printf "bench: counters0_ns_per_call=%.2f\n", per_call(c0)
    printf "bench: counters1_ns_per_call=%.2f\n", per_call(c1)
    printf "bench: counters4_ns_per_call=%.2f\n", per_call(c4)
    printf "bench: rusage2_ns_per_call=%.2f\n", per_call(ru)
    printf "bench: counters0_over_timer=%.2f\n", (tsc > 0 ? per_call(c0) / tsc : 0)
    printf "bench: counters1_over_timer=%.2f\n", (tsc > 0 ? per_call(c1) / tsc : 0)
    printf "bench: counters4_over_timer=%.2f\n", (tsc > 0 ? per_call(c4) / tsc : 0)
    printf "bench: perf1_read_ns=%s\n", p1
    printf "bench: perf4_read_ns=%s\n", p4
    printf "bench: rusage_read_ns=%s\n", rr
    printf "bench: syscall_ns=%s\n", sys
}'
exit 0
