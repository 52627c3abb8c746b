#!/bin/sh
# The sampling benchmark (`make bench`; doc/bench.md, "Sampling", explains the figures).
#
# Three parts, each with its variants side by side in one run, interleaved, minimum of
# REPS:
#   dilation   sampling-dilation.cpp (a particle loop over tiny C++ member functions)
#              built plain (g++ -O2), with full compiler instrumentation (hp-instrument
#              g++) and with hp-instrument --nocompiler g++, the latter run at
#              HP_SAMPLING_FREQUENCY=0 (the bare library), 100 and 1000 Hz; the loop
#              time of each and its ratio to plain; and the plain build with a timer
#              like hpmeasure's sending 1000 SIGPROF a second to an empty handler (the
#              floor of timer sampling here). The fully instrumented build is
#              about 50x slower: it runs a tenth of the steps, and its time is scaled
#              up by ten (every step does the same work).
#   unwind     bench-unwind (the core linked statically): ns per hp_unwind_here() from
#              the bottom of a recursion of depth 10, caches on and off, against
#              libunwind's unw_backtrace alone and one timestamp read
#   mpi        mpi-unwind.c on 2 ranks: MPI_Comm_rank called 10 frames deep, with the
#              wrapper unwinding (HP_SAMPLING_FREQUENCY=1, nothing excluded) and not
#              (HP_MPI_UNWIND_EXCLUDE=MPI_Comm_rank): what one unwind adds to an MPI call
# Thunks (HP_UNWIND_THUNKS) get a variant of the MPI part when `hp-info config-vars`
# says they are available; otherwise it is skipped with a note.
# Prints a table per part, then one `bench: name=value` line per figure.
#
# Usage: run-sampling-bench.sh BUILDDIR [REPS]
#   BUILDDIR   top build directory (hp-instrument, .libs/libhpmeasure.so and
#              bench/bench-unwind, which `make bench` builds)
#   REPS       repetitions per variant (default 5)
# Environment: CXX (default g++) and CC (default cc) compile the workloads, MPICC
# (default mpicc) and MPIEXEC (default mpiexec, given -n 2) the MPI part, which is
# skipped without MPI. HP_BENCH_SAMPLING_STEPS (default 600, at least 10) sets the
# dilation workload's steps.
#
# Exits 0 whatever the timings are; 1 when something could not be built or run, 2 on
# bad arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_args "$@"
CXX=${CXX:-g++}
CC=${CC:-cc}
STEPS=${HP_BENCH_SAMPLING_STEPS:-600}
if ! is_count "$STEPS" || [ "$STEPS" -lt 10 ]; then
    die "HP_BENCH_SAMPLING_STEPS must be a count >= 10"
fi
FULL_STEPS=$((STEPS / 10)) # the fully instrumented build's steps, scaled up afterwards

DEPTH=10             # frames above the unwinding call
UNWIND_ITERS=100000  # unwinds per variant and round of bench-unwind
MPI_CALLS=200000     # MPI_Comm_rank calls per rank of mpi-unwind
TIME_LIMIT=300       # seconds for one run; a hang must not stall `make bench`

bench_start hp-instrument libhpmeasure.so
UNWIND_BENCH=$BUILDDIR/bench/bench-unwind
[ -x "$UNWIND_BENCH" ] || die "$UNWIND_BENCH not found (make bench builds it; or: make bench/bench-unwind)"

# Inside bench/work (which `make clean` removes); run-bench.sh empties bench/work when
# it starts, so `make bench` runs it before this script.
bench_workdir sampling
export HP_INSTRUMENT_LIBDIR="$CORELIBDIR" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include"

# Thunks are being built elsewhere: until `hp-info config-vars` stops calling them "not
# available", their variant is skipped.
THUNKS=no
thunks_doc=$("$BUILDDIR/hp-info" config-vars 2>/dev/null | sed -n '/^HP_UNWIND_THUNKS/,/^$/p')
if [ -n "$thunks_doc" ] && ! echo "$thunks_doc" | grep -q 'not available'; then
    THUNKS=yes
fi

MPI=yes
have_mpi libhpmeasure_mpi.so || MPI=no

# ---------------------------------------------------------------- build
DIL_SRC=$BENCHDIR/sampling-dilation.cpp
build "$CXX" -O2 -o dil-plain "$DIL_SRC"
build "$INSTRUMENT" "$CXX" -O2 -o dil-full "$DIL_SRC"
build "$INSTRUMENT" --nocompiler "$CXX" -O2 -o dil-nc "$DIL_SRC"
build "$CC" -O2 -g -fPIC -shared -o libunwind-depth.so "$BENCHDIR/unwind-depth.c"
if [ "$MPI" = yes ]; then
    build "$MPICC" -O2 -o mpi-plain "$BENCHDIR/mpi-unwind.c"
    build "$INSTRUMENT" --nocompiler "$MPICC" -O2 -o mpi-nc "$BENCHDIR/mpi-unwind.c"
fi

# ---------------------------------------------------------------- run
# Sanity checks of an experiment's summary.txt: they only warn. The timing figures stay
# valid, but what was measured may not be what this benchmark claims.
warn() {
    echo "bench: warning: $*" >&2
}

# samples FILE: the samples of the "Sampling: N Hz per thread, M samples" line, or 0.
samples() {
    sed -n 's/^Sampling: .*, \([0-9]*\) samples.*/\1/p' "$1" 2>/dev/null | head -n 1 | grep . ||
        echo 0
}

# mpi_unwinds FILE: "MPI call paths learned by unwinding", or 0.
mpi_unwinds() {
    sed -n 's/^ *\([0-9]*\) *MPI call paths learned by unwinding.*/\1/p' "$1" 2>/dev/null |
        head -n 1 | grep . || echo 0
}

# run VARIANT: runs it once and prints its time in ns, wall-clock and CPU (the same
# figure twice for the MPI programs, which time wall-clock only); stops the script on
# failure. A
# measured run writes its experiment to exp-VARIANT, which stays until the next round
# (the last round's for inspection).
# shellcheck disable=SC2317 # called through min_of_rounds
run() {
    exp="$WORK/exp-$1"
    rm -rf "$exp"
    case $1 in
        dil_plain) out=$(launch 0 ./dil-plain "$STEPS") ;;
        dil_signal) out=$(launch 0 ./dil-plain "$STEPS" 1000) ;;
        dil_full) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" HP_OVERHEAD_BUDGET=0 \
            ./dil-full "$FULL_STEPS") ;;
        dil_nc0) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" HP_SAMPLING_FREQUENCY=0 \
            ./dil-nc "$STEPS") ;;
        dil_nc100) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" HP_SAMPLING_FREQUENCY=100 \
            ./dil-nc "$STEPS") ;;
        dil_nc1000) out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$exp" HP_SAMPLING_FREQUENCY=1000 \
            ./dil-nc "$STEPS") ;;
        mpi_plain) out=$(launch 2 ./mpi-plain "$MPI_CALLS" "$DEPTH") ;;
        mpi_unwind) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" HP_SAMPLING_FREQUENCY=1 \
            HP_MPI_UNWIND_EXCLUDE= ./mpi-nc "$MPI_CALLS" "$DEPTH") ;;
        mpi_nounwind) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" HP_SAMPLING_FREQUENCY=1 \
            HP_MPI_UNWIND_EXCLUDE=MPI_Comm_rank ./mpi-nc "$MPI_CALLS" "$DEPTH") ;;
        mpi_thunks) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" HP_SAMPLING_FREQUENCY=1 \
            HP_MPI_UNWIND_EXCLUDE= HP_UNWIND_THUNKS=true ./mpi-nc "$MPI_CALLS" "$DEPTH") ;;
    esac || die "$1 run failed (exit status $?; see $WORK/run.log)"
    ns=${out#ns=}
    ns=${ns%% *}
    cpu=$ns
    case $out in
        *cpu_ns=*) cpu=${out#*cpu_ns=} cpu=${cpu%% *} ;;
    esac
    if ! is_count "$ns" || ! is_count "$cpu"; then
        die "$1 run printed '$out'"
    fi
    if [ "$1" = dil_full ]; then
        ns=$((ns * STEPS / FULL_STEPS)) cpu=$((cpu * STEPS / FULL_STEPS))
    fi
    echo "$ns $cpu"
}

DIL_VARIANTS="dil_plain dil_full dil_signal dil_nc0 dil_nc100 dil_nc1000"
MPI_VARIANTS=""
if [ "$MPI" = yes ]; then
    MPI_VARIANTS="mpi_plain mpi_unwind mpi_nounwind"
    [ "$THUNKS" = yes ] && MPI_VARIANTS="$MPI_VARIANTS mpi_thunks"
fi
for v in $DIL_VARIANTS $MPI_VARIANTS; do
    eval "min_$v='' cpu_$v=''"
done
: >unwind.txt
# One round of the unwind micro-benchmark per round, so it sees the same noise; it
# interleaves its own variants and keeps the fastest.
# shellcheck disable=SC2317 # called through min_of_rounds
unwind_round() {
    launch 0 "$UNWIND_BENCH" "$WORK/libunwind-depth.so" "$DEPTH" "$UNWIND_ITERS" 1 >>unwind.txt ||
        die "bench-unwind failed (see $WORK/run.log)"
}
# shellcheck disable=SC2086 # lists of variants
min_of_rounds -e unwind_round run $DIL_VARIANTS $MPI_VARIANTS

# What the last round's experiments say: the sampled runs sampled, the bare one did not,
# the unwinding MPI run unwound once per call and the excluded one never.
s100=$(samples exp-dil_nc100/summary.txt)
s1000=$(samples exp-dil_nc1000/summary.txt)
[ "$s1000" -gt 0 ] || warn "the 1000 Hz run took no samples (exp-dil_nc1000/summary.txt)"
[ "$s100" -gt 0 ] || warn "the 100 Hz run took no samples (exp-dil_nc100/summary.txt)"
if grep -q '^Sampling:' exp-dil_nc0/summary.txt 2>/dev/null; then
    warn "the HP_SAMPLING_FREQUENCY=0 run sampled (exp-dil_nc0/summary.txt)"
fi
if [ "$MPI" = yes ]; then
    u=$(mpi_unwinds exp-mpi_unwind/summary.txt)
    [ "$u" -ge $((2 * MPI_CALLS)) ] ||
        warn "the unwinding run learned only $u MPI call paths by unwinding (exp-mpi_unwind/summary.txt)"
    u=$(mpi_unwinds exp-mpi_nounwind/summary.txt)
    [ "$u" -lt "$MPI_CALLS" ] ||
        warn "the excluded run unwound $u times (exp-mpi_nounwind/summary.txt)"
fi

# Minimum of each unwind figure over the rounds; the counts are the same in every round.
unwind_min() {
    sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" unwind.txt | sort -g | head -n 1
}
u_cached=$(unwind_min cached_ns)
u_cold=$(unwind_min cold_ns)
u_bt=$(unwind_min backtrace_ns)
u_ts=$(unwind_min timestamp_ns)
u_frames=$(unwind_min frames)
u_ips=$(unwind_min backtrace_ips)
u_lookups=$(unwind_min cold_lookups)

# ---------------------------------------------------------------- report
# shellcheck disable=SC2154 # the min_* and cpu_* variables are set by eval
awk -v reps="$REPS" -v steps="$STEPS" -v depth="$DEPTH" -v calls="$MPI_CALLS" \
    -v mpi="$MPI" -v thunks="$THUNKS" -v s100="$s100" -v s1000="$s1000" \
    -v dp="$min_dil_plain" -v df="$min_dil_full" -v d0="$min_dil_nc0" \
    -v d100="$min_dil_nc100" -v d1000="$min_dil_nc1000" -v ds="$min_dil_signal" \
    -v cp="$cpu_dil_plain" -v cf="$cpu_dil_full" -v c0="$cpu_dil_nc0" -v cs="$cpu_dil_signal" \
    -v c100="$cpu_dil_nc100" -v c1000="$cpu_dil_nc1000" \
    -v uc="$u_cached" -v ucold="$u_cold" -v ubt="$u_bt" -v uts="$u_ts" \
    -v uframes="$u_frames" -v uips="$u_ips" -v ulookups="$u_lookups" \
    -v mp="${min_mpi_plain:-0}" -v mu="${min_mpi_unwind:-0}" -v mn="${min_mpi_nounwind:-0}" \
    -v mt="${min_mpi_thunks:-0}" '
function ratio(a, b) { return b > 0 ? a / b : 0 }
function pct(a, b) { return (ratio(a, b) - 1) * 100 }
function row(name, wall, cpu) {
    printf "  %-44s %9.3f %8.3fx %9.3f %8.3fx\n", name, wall / 1e9, ratio(wall, dp), cpu / 1e9, ratio(cpu, cp)
}
BEGIN {
    printf "hpmeasure sampling overhead: min of %d runs\n\n", reps
    printf "  %-44s %9s %9s %9s %9s\n", "sampling-dilation.cpp, " steps " steps", "wall [s]", "vs plain", "CPU [s]", "vs plain"
    row("plain g++ -O2", dp, cp)
    row("hp-instrument g++ (full instrumentation) *", df, cf)
    row("plain, empty SIGPROF handler at 1000 Hz", ds, cs)
    row("--nocompiler, HP_SAMPLING_FREQUENCY=0", d0, c0)
    row("--nocompiler, 100 Hz (" s100 " samples)", d100, c100)
    row("--nocompiler, 1000 Hz (" s1000 " samples)", d1000, c1000)
    printf "  * ran %d steps; its time is scaled to %d\n", steps / 10, steps
    printf "  dilation, wall (CPU): full %.0f%% (%.0f%%), 100 Hz %.2f%% (%.2f%%), 1000 Hz %.2f%% (%.2f%%)\n", \
        pct(df, dp), pct(cf, cp), pct(d100, dp), pct(c100, cp), pct(d1000, dp), pct(c1000, cp)
    printf "  1000 Hz against the bare library (0 Hz): wall %.2f%%, CPU %.2f%%    (target <= 2%%)\n", \
        pct(d1000, d0), pct(c1000, c0)
    printf "  the timer signals alone (empty handler) against plain: wall %.2f%%, CPU %.2f%%\n\n", \
        pct(ds, dp), pct(cs, cp)

    printf "  %-44s %9s %9s\n", "one unwind from depth " depth " (bench-unwind)", "ns", "/ cached"
    printf "  %-44s %9.1f %8.2fx    (target <= 1000 ns)\n", "hp_unwind_here, caches on", uc, 1
    printf "  %-44s %9.1f %8.2fx    (target >= 5x)\n", "hp_unwind_here, caches off", ucold, ratio(ucold, uc)
    printf "  %-44s %9.1f %8.2fx\n", "unw_backtrace alone", ubt, ratio(ubt, uc)
    printf "  %-44s %9.1f\n", "one timestamp read (hp_timer_now)", uts
    printf "  (%d frames returned, %d addresses in the backtrace, %d function-start lookups cold)\n\n", \
        uframes, uips, ulookups

    if (mpi == "yes") {
        printf "  %-44s %9s %9s\n", "MPI_Comm_rank from depth " depth ", 2 ranks", "ns/call", "added ns"
        printf "  %-44s %9.1f %9s\n", "plain (mpicc)", mp / calls, "-"
        printf "  %-44s %9.1f %9.1f\n", "--nocompiler, not unwinding (excluded)", mn / calls, (mn - mp) / calls
        printf "  %-44s %9.1f %9.1f\n", "--nocompiler, unwinding (1 Hz sampling)", mu / calls, (mu - mp) / calls
        if (thunks == "yes")
            printf "  %-44s %9.1f %9.1f\n", "--nocompiler, unwinding with thunks", mt / calls, (mt - mp) / calls
        printf "  one unwind adds %.1f ns to an MPI call    (target <= 1000 ns)\n", (mu - mn) / calls
    } else {
        printf "  MPI_Comm_rank from depth %d: skipped (no MPI)\n", depth
    }
    if (thunks != "yes")
        printf "  thunks (HP_UNWIND_THUNKS): skipped, not available in this build (hp-info config-vars)\n"
    printf "\n"

    printf "bench: sampling_repetitions=%d\n", reps
    printf "bench: sampling_dilation_steps=%d\n", steps
    printf "bench: sampling_plain_s=%.4f\n", dp / 1e9
    printf "bench: sampling_full_instrumentation_s=%.4f\n", df / 1e9
    printf "bench: sampling_nc0_s=%.4f\n", d0 / 1e9
    printf "bench: sampling_100hz_s=%.4f\n", d100 / 1e9
    printf "bench: sampling_1000hz_s=%.4f\n", d1000 / 1e9
    printf "bench: sampling_empty_signal_1000hz_s=%.4f\n", ds / 1e9
    printf "bench: sampling_dilation_full=%.3f\n", ratio(df, dp)
    printf "bench: sampling_dilation_nc0=%.3f\n", ratio(d0, dp)
    printf "bench: sampling_dilation_100hz=%.3f\n", ratio(d100, dp)
    printf "bench: sampling_dilation_1000hz=%.3f\n", ratio(d1000, dp)
    printf "bench: sampling_cpu_dilation_full=%.3f\n", ratio(cf, cp)
    printf "bench: sampling_cpu_dilation_nc0=%.3f\n", ratio(c0, cp)
    printf "bench: sampling_cpu_dilation_100hz=%.3f\n", ratio(c100, cp)
    printf "bench: sampling_cpu_dilation_1000hz=%.3f\n", ratio(c1000, cp)
    printf "bench: sampling_1000hz_over_nc0=%.3f\n", ratio(d1000, d0)
    printf "bench: sampling_cpu_1000hz_over_nc0=%.3f\n", ratio(c1000, c0)
    printf "bench: sampling_empty_signal_dilation=%.3f\n", ratio(ds, dp)
    printf "bench: sampling_cpu_empty_signal_dilation=%.3f\n", ratio(cs, cp)
    printf "bench: sampling_samples_1000hz=%d\n", s1000
    printf "bench: unwind_depth=%d\n", depth
    printf "bench: unwind_cached_ns=%.1f\n", uc
    printf "bench: unwind_cold_ns=%.1f\n", ucold
    printf "bench: unwind_backtrace_ns=%.1f\n", ubt
    printf "bench: unwind_timestamp_ns=%.1f\n", uts
    printf "bench: unwind_cold_over_cached=%.2f\n", ratio(ucold, uc)
    printf "bench: unwind_frames=%d\n", uframes
    printf "bench: unwind_cold_lookups=%d\n", ulookups
    if (mpi == "yes") {
        printf "bench: mpi_unwind_plain_ns=%.1f\n", mp / calls
        printf "bench: mpi_unwind_excluded_ns=%.1f\n", mn / calls
        printf "bench: mpi_unwind_ns=%.1f\n", mu / calls
        printf "bench: mpi_unwind_added_ns=%.1f\n", (mu - mn) / calls
        if (thunks == "yes")
            printf "bench: mpi_unwind_thunks_ns=%.1f\n", mt / calls
    } else
        printf "bench: mpi_unwind=skipped\n"
    printf "bench: unwind_thunks=%s\n", thunks == "yes" ? "measured" : "skipped"
}'
exit 0
