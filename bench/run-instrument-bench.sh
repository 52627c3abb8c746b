#!/bin/sh
# The compiler-instrumentation benchmark of issue 11 (`make bench`; doc/bench.md,
# "Compiler instrumentation of C++", explains the figures).
#
# Builds stencil-proxy.cpp (an accessor-heavy C++ stencil in the style of LULESH or
# miniFE) five ways and times them side by side in one run:
#   (a) plain       g++ -O2, no instrumentation
#   (b) cyg         -finstrument-functions with our core (what hp-instrument does today,
#                   and --no-plugin later). Tens of times slower: it runs a tenth of the
#                   steps and its times are scaled up by ten (every step does the same
#                   work)
#   (c) plugin      hpmeasure's GCC plug-in and run time, their defaults (functions
#                   declared inline, compiler-generated ones and system headers' left
#                   out; the overhead budget of 5% switches hot, short ones off)
#   (d) exact       the binary of (c) run with HP_OVERHEAD_BUDGET=0: every visit counted
#   (e) filtered    the plug-in with the compile-time filter that (c) wrote
#                   (demoted.filter in its experiment; hp-instrument --instrument-filter)
# Each variant runs REPS times, interleaved, and the minimum counts (the machine is shared
# and noisy). When valgrind is installed, each variant's instructions per time step are
# counted too (cachegrind, a run of 2N steps minus one of N: start-up, the steps before
# the budget switches anything off and writing the experiment drop out), the figure that
# noise does not move. Every build must print the same checksum as the plain one: a difference
# fails the script, since then instrumentation changed what the program computes. Prints
# a table of loop times (wall-clock and CPU) and ratios to plain, with the "estimated
# dilation" the summary.txt of each variant's fastest run gives, then one `bench: name=value` line per
# figure. Without the plug-in (not built, or CXX cannot load it), (c)-(e) are skipped.
#
# Usage: run-instrument-bench.sh BUILDDIR [REPS]
#   BUILDDIR   top build directory (hp-instrument, .libs/libhpmeasure.so and
#              .libs/hpmeasure/hpmeasure_gcc.so)
#   REPS       repetitions per variant (default 5)
# Environment: CXX (default g++) compiles the workload. HP_BENCH_INSTRUMENT_STEPS
# (default 120, at least 10) sets its time steps on a 256 x 256 element mesh.
# HP_BENCH_INSTRUCTIONS=0 skips the instruction counts (about a minute and a half).
#
# Exits 0 whatever the timings are; 1 when something could not be built or run or a
# checksum differs, 2 on bad arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_args "$@"
CXX=${CXX:-g++}
SIZE=256
STEPS=${HP_BENCH_INSTRUMENT_STEPS:-120}
if ! is_count "$STEPS" || [ "$STEPS" -lt 10 ]; then
    die "HP_BENCH_INSTRUMENT_STEPS must be a count >= 10"
fi
CYG_STEPS=$((STEPS / 10)) # the -finstrument-functions build's steps, scaled up afterwards
TIME_LIMIT=300            # seconds for one run; a hang must not stall `make bench`

bench_start hp-instrument libhpmeasure.so
# Inside bench/work (which `make clean` removes); run-bench.sh empties bench/work when
# it starts, so `make bench` runs it before this script.
bench_workdir instrument
export HP_INSTRUMENT_LIBDIR="$CORELIBDIR" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include"

# ---------------------------------------------------------------- build
SRC=$BENCHDIR/stencil-proxy.cpp
# -ffp-contract=off: builds that inline differently must not fuse different
# multiply-adds (where there is FMA), so that their checksums agree to the last bit.
CXXFLAGS_BENCH="-O2 -ffp-contract=off -Wall -Wextra -I$BENCHDIR"
# shellcheck disable=SC2086 # CXXFLAGS_BENCH holds several words on purpose
build "$CXX" $CXXFLAGS_BENCH -o plain "$SRC"
# shellcheck disable=SC2086
build "$INSTRUMENT" --no-plugin "$CXX" $CXXFLAGS_BENCH -o cyg "$SRC"

# (c)-(e) compile with the plug-in's flags by hand and link through hp-instrument, which
# adds the core (the plug-in does not change the link); this is what `$INSTRUMENT $CXX`
# and `$INSTRUMENT --instrument-filter=FILE $CXX` do, which is why (b) says --no-plugin.
PLUGIN_CFLAGS=$(plugin_cflags "$BUILDDIR" "$CXX")
PLUGIN=yes
if [ -n "$PLUGIN_CFLAGS" ]; then
    # shellcheck disable=SC2086 # both hold several words on purpose
    build "$CXX" $CXXFLAGS_BENCH $PLUGIN_CFLAGS -c -o plugin.o "$SRC"
    build "$INSTRUMENT" "$CXX" -O2 -o plugin plugin.o
else
    PLUGIN=no
fi

# ---------------------------------------------------------------- run
# The figures of one run: "WALL_NS CPU_NS CHECKSUM"; stops the script on failure. A
# measured run writes its experiment to exp-VARIANT; the fastest run's is kept as
# best-VARIANT.
run() {
    exp="$WORK/exp-$1"
    rm -rf "$exp"
    case $1 in
        plain) out=$(launch 0 ./plain "$SIZE" "$STEPS") ;;
        cyg) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" ./cyg "$SIZE" "$CYG_STEPS") ;;
        plugin) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" ./plugin "$SIZE" "$STEPS") ;;
        exact) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" HP_OVERHEAD_BUDGET=0 \
            ./plugin "$SIZE" "$STEPS") ;;
        filtered) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" ./filtered "$SIZE" "$STEPS") ;;
    esac || die "$1 run failed (exit status $?; see $WORK/run.log)"
    ns=${out#ns=} ns=${ns%% *}
    cpu=${out#*cpu_ns=} cpu=${cpu%% *}
    sum=${out#*checksum=} sum=${sum%% *}
    if ! is_count "$ns" || ! is_count "$cpu" || [ "$sum" = "$out" ]; then
        die "$1 run printed '$out'"
    fi
    if [ "$1" = cyg ]; then
        ns=$((ns * STEPS / CYG_STEPS)) cpu=$((cpu * STEPS / CYG_STEPS))
    fi
    echo "$ns $cpu $sum"
}

# check_sum VARIANT SUM REFERENCE: fails the script when they differ.
check_sum() {
    [ "$2" = "$3" ] ||
        die "$1 printed checksum $2, the plain build $3: instrumentation changed the results"
}

# The reference checksums: (b) runs fewer steps than the others.
REF_SUM=$(run plain) || exit 1
REF_SUM=${REF_SUM##* }
CYG_SUM=$(launch 0 ./plain "$SIZE" "$CYG_STEPS") || die "plain run failed (see $WORK/run.log)"
CYG_SUM=${CYG_SUM#*checksum=} CYG_SUM=${CYG_SUM%% *}

VARIANTS="plain cyg"
if [ "$PLUGIN" = yes ]; then
    VARIANTS="$VARIANTS plugin exact"
    # The filter of (e) is what a default run switched off, as a user would build it.
    t=$(run plugin) || exit 1
    check_sum plugin "${t##* }" "$REF_SUM"
    if [ -f exp-plugin/demoted.filter ]; then
        cp exp-plugin/demoted.filter demoted.filter
        # shellcheck disable=SC2086
        build "$CXX" $CXXFLAGS_BENCH $PLUGIN_CFLAGS \
            -fplugin-arg-hpmeasure_gcc-filter="$WORK/demoted.filter" -c -o filtered.o "$SRC"
        build "$INSTRUMENT" "$CXX" -O2 -o filtered filtered.o
        VARIANTS="$VARIANTS filtered"
    else
        echo "bench: warning: the default overhead budget switched nothing off; (e) skipped" >&2
    fi
fi

# checked_run VARIANT: run, its checksum checked; prints "WALL_NS CPU_NS". A run as fast
# as the fastest so far keeps its experiment as best-VARIANT: the estimate printed next
# to the minimum must come from that same run.
# shellcheck disable=SC2317 # called through min_of_rounds
checked_run() {
    t=$(run "$1") || exit 1
    sum=${t##* } t=${t% *}
    if [ "$1" = cyg ]; then
        check_sum "$1" "$sum" "$CYG_SUM"
    else
        check_sum "$1" "$sum" "$REF_SUM"
    fi
    best=''
    eval "best=\${min_$1:-}"
    if { [ -z "$best" ] || [ "${t%% *}" -le "$best" ]; } && [ -d "exp-$1" ]; then
        rm -rf "best-$1"
        mv "exp-$1" "best-$1" || die "cannot keep exp-$1"
    fi
    echo "$t"
}

for v in $VARIANTS; do
    eval "min_$v='' cpu_$v=''"
done
# shellcheck disable=SC2086 # VARIANTS is a list
min_of_rounds checked_run $VARIANTS

# ---------------------------------------------------------------- instructions
# count_steps VARIANT STEPS: the instructions (cachegrind's "I refs") of one run of STEPS
# time steps, or nothing when valgrind fails.
count_steps() {
    exp="$WORK/count-$1"
    rm -rf "$exp"
    vg="valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --log-fd=1"
    # shellcheck disable=SC2086 # vg holds several words on purpose
    case $1 in
        plain) set -- $vg ./plain "$SIZE" "$2" ;;
        cyg) set -- HP_EXPERIMENT_DIRECTORY="$exp" $vg ./cyg "$SIZE" "$2" ;;
        plugin) set -- HP_EXPERIMENT_DIRECTORY="$exp" $vg ./plugin "$SIZE" "$2" ;;
        exact) set -- HP_EXPERIMENT_DIRECTORY="$exp" HP_OVERHEAD_BUDGET=0 $vg ./plugin "$SIZE" "$2" ;;
        filtered) set -- HP_EXPERIMENT_DIRECTORY="$exp" $vg ./filtered "$SIZE" "$2" ;;
    esac
    launch 0 "$@" | sed -n 's/^==[0-9]*== I *refs: *//p' | tr -d ,
}

# instructions_per_step VARIANT: (I(2N) - I(N)) / N, N = 12 steps (1 for the
# -finstrument-functions build, tens of times slower), or n/a.
instructions_per_step() {
    n=12
    [ "$1" = cyg ] && n=1
    one=$(count_steps "$1" "$n")
    two=$(count_steps "$1" $((2 * n)))
    if is_count "$one" && is_count "$two" && [ "$two" -gt "$one" ]; then
        echo $(((two - one) / n))
    else
        echo n/a
    fi
}

for v in plain cyg plugin exact filtered; do
    eval "ins_$v=n/a"
done
INSTRUCTIONS=no
if [ "${HP_BENCH_INSTRUCTIONS:-1}" != 0 ] && command -v valgrind >/dev/null 2>&1; then
    INSTRUCTIONS=yes
    for v in $VARIANTS; do
        eval "ins_$v=\$(instructions_per_step $v)"
    done
fi

# ---------------------------------------------------------------- what the experiments say
# dilation VARIANT: the "estimated dilation: N%" of its fastest run's experiment (~100
# when the estimate exceeds the run time), or n/a.
dilation() {
    sed -n 's/^ *estimated dilation: *\(~*[0-9.]*\)%.*/\1/p' "best-$1/summary.txt" 2>/dev/null |
        head -n 1 | grep . || echo n/a
}

for v in $VARIANTS; do
    [ "$v" = plain ] && continue
    [ -f "best-$v/summary.txt" ] || die "$v wrote no summary.txt (see $WORK/run.log)"
done
est_cyg=$(dilation cyg)
est_plugin=n/a est_exact=n/a est_filtered=n/a
instrumented=0 demoted=0 filtered_out=0
if [ "$PLUGIN" = yes ]; then
    est_plugin=$(dilation plugin)
    est_exact=$(dilation exact)
    instrumented=$(sed -n 's/.*GCC plug-in: \([0-9]*\) functions instrumented.*/\1/p' \
        best-plugin/summary.txt | head -n 1)
    demoted=$(sed -n 's/.*; \([0-9]*\) regions\{0,1\} switched off during the run.*/\1/p' \
        best-plugin/summary.txt | head -n 1)
    if [ -n "${min_filtered:-}" ]; then
        est_filtered=$(dilation filtered)
        filtered_out=$(sed -n 's/.*, \([0-9]*\) by the compile-time filter.*/\1/p' \
            best-filtered/summary.txt | head -n 1)
    fi
fi

# ---------------------------------------------------------------- report
# shellcheck disable=SC2154 # the min_* and cpu_* variables are set by eval
awk -v reps="$REPS" -v size="$SIZE" -v steps="$STEPS" -v cyg_steps="$CYG_STEPS" \
    -v plugin="$PLUGIN" -v sum="$REF_SUM" \
    -v instrumented="${instrumented:-0}" -v demoted="${demoted:-0}" \
    -v filtered_out="${filtered_out:-0}" \
    -v a="$min_plain" -v b="$min_cyg" -v c="${min_plugin:-0}" -v d="${min_exact:-0}" \
    -v e="${min_filtered:-0}" \
    -v ca="$cpu_plain" -v cb="$cpu_cyg" -v cc="${cpu_plugin:-0}" -v cd="${cpu_exact:-0}" \
    -v ce="${cpu_filtered:-0}" \
    -v xb="$est_cyg" -v xc="$est_plugin" -v xd="$est_exact" -v xe="$est_filtered" \
    -v ia="$ins_plain" -v ib="$ins_cyg" -v ic="$ins_plugin" -v id="$ins_exact" \
    -v ie="$ins_filtered" -v instructions="$INSTRUCTIONS" '
function ratio(x, y) { return y > 0 ? x / y : 0 }
function ins_ratio(ins) { return ins == "n/a" || ia == "n/a" ? "n/a" : sprintf("%.3fx", ins / ia) }
function row(name, wall, cpu, est, ins, target) {
    if (wall == 0) {
        printf "  %-40s %s\n", name, "skipped"
        return
    }
    printf "  %-40s %8.3f %8.2fx %8.3f %8.2fx %9s %9s%s\n", name, wall / 1e9, ratio(wall, a),
        cpu / 1e9, ratio(cpu, ca), est == "n/a" ? est : est "%", ins_ratio(ins), target
}
function key(name, wall, cpu, est, ins) {
    if (wall == 0) {
        printf "bench: instrument_%s=skipped\n", name
        return
    }
    printf "bench: instrument_%s_s=%.4f\n", name, wall / 1e9
    printf "bench: instrument_%s_ratio=%.3f\n", name, ratio(wall, a)
    printf "bench: instrument_%s_cpu_ratio=%.3f\n", name, ratio(cpu, ca)
    printf "bench: instrument_%s_estimated_dilation=%s\n", name, est
    r = ins_ratio(ins)
    sub(/x$/, "", r)
    printf "bench: instrument_%s_instructions_ratio=%s\n", name, r
}
BEGIN {
    printf "hpmeasure compiler instrumentation of C++: stencil-proxy.cpp, %dx%d elements, %d steps, min of %d runs\n\n", size, size, steps, reps
    printf "  %-40s %8s %9s %8s %9s %9s %9s\n", "variant", "wall [s]", "vs plain", "CPU [s]", "vs plain", "est. dil.", "instr."
    row("(a) plain g++ -O2", a, ca, "n/a", ia, "")
    row("(b) -finstrument-functions + core *", b, cb, xb, ib, "")
    if (plugin != "yes") {
        printf "  (c)-(e) GCC plug-in: skipped (not built, or the compiler cannot load it)\n"
    } else {
        row("(c) plug-in, defaults (budget 5%)", c, cc, xc, ic, "  (target <= 1.10x)")
        row("(d) plug-in, HP_OVERHEAD_BUDGET=0", d, cd, xd, id, "  (exact visits)")
        row("(e) plug-in, filter from (c)", e, ce, xe, ie, "")
    }
    printf "  * ran %d steps; its time is scaled to %d\n", cyg_steps, steps
    if (plugin == "yes")
        printf "  plug-in: %d functions instrumented; the default budget switched off %d, the filter left out %d\n", \
            instrumented, demoted, filtered_out
    printf "  every build printed checksum %s (the cyg build its own, for %d steps)\n", sum, cyg_steps
    printf "  est. dil. = the \"estimated dilation\" line of the fastest run'"'"'s summary.txt\n"
    if (instructions == "yes")
        printf "  instr. = instructions per time step against plain (valgrind cachegrind, 24 minus 12 steps; (b) 2 minus 1)\n\n"
    else
        printf "  instr. = n/a: valgrind not installed or HP_BENCH_INSTRUCTIONS=0\n\n"

    printf "bench: instrument_repetitions=%d\n", reps
    printf "bench: instrument_steps=%d\n", steps
    printf "bench: instrument_plain_s=%.4f\n", a / 1e9
    if (ia != "n/a")
        printf "bench: instrument_plain_instructions_per_step=%d\n", ia
    key("cyg", b, cb, xb, ib)
    if (plugin == "yes") {
        key("plugin", c, cc, xc, ic)
        key("exact", d, cd, xd, id)
        key("filtered", e, ce, xe, ie)
        printf "bench: instrument_plugin_functions=%d\n", instrumented
        printf "bench: instrument_budget_demoted=%d\n", demoted
    } else
        printf "bench: instrument_plugin=skipped\n"
}'
exit 0
