#!/bin/sh
# The call-overhead micro-benchmark (`make bench`; doc/bench.md explains the figures).
#
# Builds bench-calls.c several ways and times them side by side in one run:
#   (a) plain        no instrumentation
#   (b) bare         -finstrument-functions, linked (by hp-instrument) to the no-op hooks
#   (b') tsc         the same, with hooks that only read the TSC once each (in-place floor)
#   (c) unfiltered   hp-instrument with our core
#   (d) filtered     the same binary as (c), with `leaf` excluded by a filter file
#   (d') allfiltered the same, with `leaf` and `mid` excluded (every call filtered)
#   (f) plugin       bench-calls.c compiled with hpmeasure's GCC plug-in, linked to our
#                    core by hp-instrument (skipped when there is no plug-in or CC cannot
#                    load it)
#   (g) pfiltered    the same binary as (f), with `leaf` excluded: its descriptor is
#                    switched off at its first call, so a call costs a load and a branch
#   (g') pallfiltered the same, with `leaf` and `mid` excluded
# and measures (e) the cost of one timestamp read with bench-timer.c. Each variant runs
# REPS times, interleaved, and the minimum counts (the machine is shared and noisy).
# With valgrind, (a), (b), (b'), (c) and (f) also run under cachegrind, twice (10^5 and
# 2*10^5 mid() calls), for their instructions per call: they do not change with the load.
# Prints a table, then one `bench: name=value` line per figure.
#
# Usage: run-bench.sh BUILDDIR [MID_CALLS [REPS]]
#   BUILDDIR   top build directory (holds hp-instrument and .libs/libhpmeasure.so)
#   MID_CALLS  calls of mid(), each making 10 leaf() calls (default 10000000)
#   REPS       repetitions per variant (default 5)
# Environment: CC (default cc) compiles the workload; it must be a compiler that
# hp-instrument accepts (gcc, cc, clang, ...).
#
# Exits 0 whatever the timings are; 1 when something could not be built or run, 2 on
# bad arguments.

set -u

usage() {
    echo "usage: $0 BUILDDIR [MID_CALLS [REPS]]" >&2
    exit 2
}

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_builddir "BUILDDIR [MID_CALLS [REPS]]" "$@"
N=${2:-10000000}
REPS=${3:-5}
is_count "$N" || usage
is_count "$REPS" || usage
CC=${CC:-cc}

bench_start hp-instrument libhpmeasure.so
bench_workdir '' # all of bench/work: `make bench` runs this script first
mkdir -p nop tsc || die "cannot create $WORK/nop, $WORK/tsc"
# The overhead budget stays off: these figures are the cost of recorded calls, and the
# default budget would switch the hot leaf() off after 1024 of them.
export HP_OVERHEAD_BUDGET=0

# ---------------------------------------------------------------- build
# Every build log goes to build.log (lib.sh); it is printed when a step fails.
CFLAGS_BENCH="-O2 -Wall -Wextra"
# shellcheck disable=SC2086 # CFLAGS_BENCH holds several words on purpose
build $CC $CFLAGS_BENCH -g -o plain "$BENCHDIR/bench-calls.c"
# shellcheck disable=SC2086
build $CC $CFLAGS_BENCH -fno-instrument-functions -fPIC -shared \
    -o nop/libhpmeasure.so "$BENCHDIR/hooks-nop.c"
# shellcheck disable=SC2086
build $CC $CFLAGS_BENCH -fno-instrument-functions -fPIC -shared -DBENCH_HOOKS_TSC \
    -o tsc/libhpmeasure.so "$BENCHDIR/hooks-nop.c"
# (b), (b') and (c) come from the same hp-instrument command line; only the library
# differs.
# shellcheck disable=SC2086
build env HP_INSTRUMENT_LIBDIR="$WORK/nop" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include" \
    "$INSTRUMENT" --no-plugin $CC $CFLAGS_BENCH -o bare "$BENCHDIR/bench-calls.c"
# shellcheck disable=SC2086
build env HP_INSTRUMENT_LIBDIR="$WORK/tsc" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include" \
    "$INSTRUMENT" --no-plugin $CC $CFLAGS_BENCH -o tsc-hooks "$BENCHDIR/bench-calls.c"
# shellcheck disable=SC2086
build env HP_INSTRUMENT_LIBDIR="$CORELIBDIR" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include" \
    "$INSTRUMENT" --no-plugin $CC $CFLAGS_BENCH -o core "$BENCHDIR/bench-calls.c"
# shellcheck disable=SC2086
build $CC $CFLAGS_BENCH -o timer "$BENCHDIR/bench-timer.c"
# (f), (g) and (g'): compiled with the plug-in's flags by hand, linked through
# hp-instrument as (c) is (the plug-in does not change the link): what `$INSTRUMENT $CC`
# does by default, which is why the builds of (b) to (c) say --no-plugin.
PLUGIN_CFLAGS=$(plugin_cflags "$BUILDDIR" "$CC")
if [ -n "$PLUGIN_CFLAGS" ]; then
    # shellcheck disable=SC2086 # both hold several words on purpose
    build $CC $CFLAGS_BENCH $PLUGIN_CFLAGS -c -o plugin.o "$BENCHDIR/bench-calls.c"
    # shellcheck disable=SC2086
    build env HP_INSTRUMENT_LIBDIR="$CORELIBDIR" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include" \
        "$INSTRUMENT" $CC $CFLAGS_BENCH -o plugin plugin.o
fi

cat >filter.txt <<'EOF'
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE leaf
SCOREP_REGION_NAMES_END
EOF
cat >filter-all.txt <<'EOF'
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE leaf mid
SCOREP_REGION_NAMES_END
EOF

# ---------------------------------------------------------------- run
# run VARIANT [CALLS]: runs it once (N mid() calls, or CALLS) and prints the loop time in
# ns; stops the script on failure. With CG set (the cachegrind command), under it.
CG=''
# shellcheck disable=SC2317 # called through min_of_rounds
run() {
    n=${2:-$N}
    rm -rf "$WORK/exp-$1"
    # shellcheck disable=SC2086 # CG is a command line
    case $1 in
        plain) out=$($CG ./plain "$n") ;;
        bare) out=$($CG ./bare "$n") ;;
        tsc) out=$($CG ./tsc-hooks "$n") ;;
        unfiltered) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" $CG ./core "$n") ;;
        filtered) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" \
            HP_FILTERING_FILE="$WORK/filter.txt" $CG ./core "$n") ;;
        allfiltered) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" \
            HP_FILTERING_FILE="$WORK/filter-all.txt" $CG ./core "$n") ;;
        plugin) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" $CG ./plugin "$n") ;;
        pfiltered) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" \
            HP_FILTERING_FILE="$WORK/filter.txt" $CG ./plugin "$n") ;;
        pallfiltered) out=$(HP_EXPERIMENT_DIRECTORY="$WORK/exp-$1" \
            HP_FILTERING_FILE="$WORK/filter-all.txt" $CG ./plugin "$n") ;;
    esac || die "$1 run failed (exit status $?)"
    [ -z "$CG" ] || return 0
    ns=${out#ns=}
    ns=${ns%% *}
    is_count "$ns" || die "$1 run printed '$out'"
    echo "$ns"
}

VARIANTS="plain bare tsc unfiltered filtered allfiltered"
min_plain='' min_bare='' min_tsc='' min_unfiltered='' min_filtered='' min_allfiltered=''
min_plugin='' min_pfiltered='' min_pallfiltered=''
PLUGIN=no
if [ -n "$PLUGIN_CFLAGS" ]; then
    PLUGIN=yes
    VARIANTS="$VARIANTS plugin pfiltered pallfiltered"
fi
# One repetition of the timestamp loops per round, so they see the same noise.
# shellcheck disable=SC2317 # called through min_of_rounds
timer_round() {
    ./timer 2000000 1 >>timer.txt || die "timer run failed"
}
# shellcheck disable=SC2086 # VARIANTS is a list
min_of_rounds -e timer_round run $VARIANTS

# The core writes which timer it read; the floor uses that timer's cost.
TIMER=$(sed -n 's/^timer: *//p' "$WORK/exp-unfiltered/summary.txt" 2>/dev/null)
[ -n "$TIMER" ] || TIMER=unknown
# The last experiments stay for inspection; the filters must have worked.
FILTERED_EXPS="$WORK/exp-filtered/summary.txt" ALLFILTERED_EXPS="$WORK/exp-allfiltered/summary.txt"
if [ "$PLUGIN" = yes ]; then
    FILTERED_EXPS="$FILTERED_EXPS $WORK/exp-pfiltered/summary.txt"
    ALLFILTERED_EXPS="$ALLFILTERED_EXPS $WORK/exp-pallfiltered/summary.txt"
fi
# shellcheck disable=SC2086 # lists of files
if grep -q ' leaf$' $FILTERED_EXPS $ALLFILTERED_EXPS || grep -q ' mid$' $ALLFILTERED_EXPS; then
    echo "bench: warning: a filtered run still recorded a filtered function" >&2
fi

# Minimum of each timestamp figure over the rounds (rdtsc is "n/a" off x86).
rdtsc_ns=$(sed -n 's/.*rdtsc_ns=\([^ ]*\).*/\1/p' timer.txt | sort -g | head -n 1)
cgt_ns=$(sed -n 's/.*clock_gettime_ns=\([^ ]*\).*/\1/p' timer.txt | sort -g | head -n 1)

# Instructions per instrumented call (the figures to decide by on a shared machine): each
# variant under cachegrind with CG_N1 and CG_N2 mid() calls; the difference leaves out
# start-up and the writing of the experiment.
CG_N1=100000 CG_N2=200000
CG_VARIANTS="plain bare tsc unfiltered"
[ "$PLUGIN" = yes ] && CG_VARIANTS="$CG_VARIANTS plugin"
IR_LIST=''
if command -v valgrind >/dev/null 2>&1; then
    CG="$CACHEGRIND"
    for v in $CG_VARIANTS; do
        run "$v" "$CG_N1" >/dev/null || exit 1
        ir1=$(cachegrind_count "$v") || exit 1
        run "$v" "$CG_N2" >/dev/null || exit 1
        ir2=$(cachegrind_count "$v") || exit 1
        IR_LIST="$IR_LIST $v=$((ir2 - ir1))"
    done
    CG=''
fi

# ---------------------------------------------------------------- report
awk -v n="$N" -v ir_list="$IR_LIST" -v cg_calls="$((11 * (CG_N2 - CG_N1)))" -v reps="$REPS" -v timer="$TIMER" \
    -v a="$min_plain" -v b="$min_bare" -v bt="$min_tsc" -v c="$min_unfiltered" -v d="$min_filtered" \
    -v e="$min_allfiltered" \
    -v plugin="$PLUGIN" -v f="${min_plugin:-0}" -v g="${min_pfiltered:-0}" \
    -v gg="${min_pallfiltered:-0}" \
    -v tsc="$rdtsc_ns" -v cgt="$cgt_ns" '
function per_call(t) { return (t - a) / calls }
BEGIN {
    calls = 11 * n
    bare = per_call(b); tsch = per_call(bt); unf = per_call(c); filt = per_call(d); allf = per_call(e)
    if (timer == "monotonic" || tsc == "n/a") { ts = cgt; ts_name = "clock_gettime" }
    else { ts = tsc; ts_name = "rdtsc" }
    floor = bare + 2 * ts
    ratio = floor > 0 ? unf / floor : 0
    ratio_tsc = tsch > 0 ? unf / tsch : 0

    printf "hpmeasure call overhead: %d x mid() -> 10 x leaf() = %d instrumented calls, min of %d runs\n\n", n, calls, reps
    printf "  %-36s %10s %14s\n", "variant", "loop [s]", "ns/call"
    printf "  %-36s %10.3f %14s\n", "(a) plain, no instrumentation", a / 1e9, "-"
    printf "  %-36s %10.3f %14.2f\n", "(b) bare hooks (no-op library)", b / 1e9, bare
    printf "  %-36s %10.3f %14.2f\n", "(b\047) hooks reading the TSC only", bt / 1e9, tsch
    printf "  %-36s %10.3f %14.2f\n", "(c) hpmeasure, unfiltered", c / 1e9, unf
    printf "  %-36s %10.3f %14.2f\n", "(d) hpmeasure, leaf filtered", d / 1e9, filt
    printf "  %-36s %10.3f %14.2f\n", "(d\047) hpmeasure, leaf+mid filtered", e / 1e9, allf
    printf "\n  timestamp read: rdtsc %s ns, clock_gettime(MONOTONIC) %.2f ns (core reads: %s)\n", tsc, cgt, timer
    printf "  %-36s %25.2f ns/call\n", "floor = bare hook + 2 x " ts_name, floor
    printf "  %-36s %25.2f    (target <= 1.5)\n", "unfiltered / floor", ratio
    printf "  %-36s %25.2f\n", "unfiltered / TSC-only hooks (b\047)", ratio_tsc
    printf "  %-36s %25.2f ns (target <= 2)\n", "filtered (d) - bare hook", filt - bare
    printf "  %-36s %25.2f ns\n", "all filtered (d\047) - bare hook", allf - bare
    if (plugin == "yes") {
        pun = per_call(f); pfilt = per_call(g); pallf = per_call(gg)
        over_cyg = pun > 0 && unf > 0 ? pun / unf : 0
        printf "\n  %-36s %10s %14s\n", "GCC plug-in (descriptor per function)", "loop [s]", "ns/call"
        printf "  %-36s %10.3f %14.2f\n", "(f) plug-in, unfiltered", f / 1e9, pun
        printf "  %-36s %10.3f %14.2f\n", "(g) plug-in, leaf filtered", g / 1e9, pfilt
        printf "  %-36s %10.3f %14.2f\n", "(g\047) plug-in, leaf+mid filtered", gg / 1e9, pallf
        printf "  %-36s %25.2f    (target <= 1)\n", "plug-in unfiltered / hpmeasure (c)", over_cyg
        printf "  %-36s %25.2f ns (target <= 1)\n", "filtered call (g\047) - plain", pallf
    } else {
        printf "\n  GCC plug-in variants: skipped (no plug-in built, or the compiler cannot load it)\n"
    }
    printf "  for scale, Score-P (published): ~65 ns/call unfiltered, ~11 ns/call filtered\n\n"
    # Instructions per call over plain, where cachegrind ran (ir_list "v=Ir ...").
    nir = split(ir_list, items, " ")
    for (i = 1; i <= nir; i++) {
        split(items[i], kv, "=")
        ir[kv[1]] = kv[2] / cg_calls
    }
    if (nir > 0) {
        printf "  instructions per call over plain (cachegrind):"
        for (i = 1; i <= nir; i++) {
            split(items[i], kv, "=")
            if (kv[1] != "plain")
                printf " %s %.1f", kv[1], ir[kv[1]] - ir["plain"]
        }
        printf "\n\n"
    }

    printf "bench: mid_calls=%d\n", n
    printf "bench: instrumented_calls=%d\n", calls
    printf "bench: repetitions=%d\n", reps
    printf "bench: plain_loop_s=%.4f\n", a / 1e9
    printf "bench: bare_hook_ns_per_call=%.2f\n", bare
    printf "bench: tsc_hooks_ns_per_call=%.2f\n", tsch
    printf "bench: unfiltered_ns_per_call=%.2f\n", unf
    printf "bench: filtered_ns_per_call=%.2f\n", filt
    printf "bench: allfiltered_ns_per_call=%.2f\n", allf
    printf "bench: rdtsc_ns=%s\n", tsc
    printf "bench: clock_gettime_ns=%.2f\n", cgt
    printf "bench: core_timer=%s\n", timer
    printf "bench: floor_ns_per_call=%.2f\n", floor
    printf "bench: unfiltered_over_floor=%.2f\n", ratio
    printf "bench: unfiltered_over_tsc_hooks=%.2f\n", ratio_tsc
    printf "bench: filtered_minus_bare_ns=%.2f\n", filt - bare
    printf "bench: allfiltered_minus_bare_ns=%.2f\n", allf - bare
    for (v in ir)
        if (v != "plain")
            printf "bench: %s_added_instructions_per_call=%.1f\n", v, ir[v] - ir["plain"]
    if (plugin == "yes") {
        printf "bench: plugin_unfiltered_ns_per_call=%.2f\n", pun
        printf "bench: plugin_filtered_ns_per_call=%.2f\n", pfilt
        printf "bench: plugin_allfiltered_ns_per_call=%.2f\n", pallf
        printf "bench: plugin_unfiltered_over_cyg=%.2f\n", over_cyg
    } else
        printf "bench: plugin=skipped\n"
}'
exit 0
