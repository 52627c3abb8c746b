#!/bin/sh
# The finalize-at-scale benchmark (`make bench`; doc/bench.md, "Finalize at scale").
#
# mpi-allreduce20.c (20 MPI_Allreduce, then MPI_Finalize) runs plain (mpicc), measured
# with a profile and measured with a trace (hp-instrument mpicc, HP_ENABLE_TRACING=true)
# at 2, 4, 8, 16, 32 and 64 ranks, oversubscribed on this machine's cores. The three
# variants run interleaved, REPS times each, and the fastest run of each counts (the
# machine is shared and noisy). Printed per rank count: wall time of the whole mpiexec,
# the measured runs over plain, and the finalize split of the fastest measured run
# (HP_VERBOSE=2's "finalize split" line, measurement/finalize/finalize_timing.h:
# unification, merge, Cube writing, trace writing and waiting, as rank 0 sees them),
# the bytes the unification tree moved, and the trace's size on disk. Then one
# `bench: name=value` line per figure, which bench/scale-model.py reads to extrapolate
# to 10^5 ranks (doc/architecture.md, "Finalize at scale").
#
# Usage: run-scale-bench.sh BUILDDIR [REPS | --quick]
#   BUILDDIR   top build directory (holds hp-instrument and .libs/libhpmeasure_mpi.so)
#   REPS       repetitions per variant (default 3)
#   --quick    2, 4 and 8 ranks, one repetition (a smoke run of the script)
# Environment: MPICC (default mpicc), MPIEXEC (default mpiexec); HP_BENCH_SCALE_RANKS
# overrides the list of rank counts ("2 4 8 16 32 64").
#
# Debian's MPICH busy-polls while it waits: with more ranks than cores, most of a run is
# the scheduler's, for plain and measured alike; the ratios say what we add to that.
# Exits 0 whatever the timings are, and when there is no MPI (skipped); 1 when something
# could not be built or run, 2 on bad arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

QUICK=0
if [ "${2:-}" = --quick ]; then
    QUICK=1
    set -- "$1"
fi
bench_args "$@"
[ $# -ge 2 ] || REPS=3
RANKS=${HP_BENCH_SCALE_RANKS:-2 4 8 16 32 64}
if [ "$QUICK" = 1 ]; then
    RANKS="2 4 8"
    REPS=1
fi
for n in $RANKS; do
    is_count "$n" || die "HP_BENCH_SCALE_RANKS must hold positive counts, not '$n'"
done
TIME_LIMIT=300 # seconds for one mpiexec; 64 oversubscribed ranks take about 15 s
bench_mpi_start hp-instrument libhpmeasure_mpi.so "Finalize at scale" scale

bench_workdir scale
export HP_SAMPLING_FREQUENCY=0 # finalize's cost, not the sampler's
build "$MPICC" -O2 -o plain "$BENCHDIR/mpi-allreduce20.c"
build env HP_INSTRUMENT_LIBDIR="$BUILDDIR/.libs" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include" \
    "$INSTRUMENT" "$MPICC" -O2 -o measured "$BENCHDIR/mpi-allreduce20.c"

now_ns() { date +%s%N; }

# run VARIANT NRANKS: one run; prints "wall_ns" and leaves the split line in split.txt
run() {
    rm -rf exp split.txt cpu.txt paths.txt
    : >run.log
    t0=$(now_ns)
    case $1 in
        plain) launch "$2" ./plain >out.txt ;;
        profile) launch "$2" HP_VERBOSE=2 HP_EXPERIMENT_DIRECTORY=exp ./measured >out.txt ;;
        trace) launch "$2" HP_VERBOSE=2 HP_EXPERIMENT_DIRECTORY=exp HP_ENABLE_TRACING=true \
            ./measured >out.txt ;;
    esac
    rc=$?
    t1=$(now_ns)
    [ $rc -eq 0 ] && grep -q "^sum=" out.txt ||
        die "$1 run on $2 ranks failed (status $rc; see $WORK/run.log)"
    grep -h "finalize split:" run.log >split.txt 2>/dev/null
    grep -h "finalize cpu:" run.log >cpu.txt 2>/dev/null
    # "regions:     23, call paths: 26": what the unification merged.
    sed -n 's/^regions: *[0-9]*, call paths: *\([0-9]*\).*/\1/p' exp/summary.txt \
        >paths.txt 2>/dev/null
    echo $((t1 - t0))
}

# field NAME LINE: the value of the first "NAME=value" in LINE (after "max:" with
# prefix max_)
# ms SECONDS: milliseconds with one decimal ("-" stays)
ms() {
    case $1 in
        -) echo - ;;
        *) awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }' ;;
    esac
}

field() {
    [ -n "$2" ] || { echo -; return; }
    echo "$2" | awk -v want="$1" '{
        pre = ""
        for (i = 1; i <= NF; i++) {
            if ($i == "max:") { pre = "max_"; continue }
            split($i, kv, "=")
            if (pre kv[1] == want) { print kv[2]; exit }
        }
    }'
}

echo "Finalize at scale (mpi-allreduce20: 20 MPI_Allreduce; min of $REPS runs, wall time of"
echo "mpiexec in s; split of finalize on rank 0 in ms; sent = largest unification message"
echo "in bytes, trace_B = the trace on disk)"
echo
printf '  %5s %8s %8s %6s %8s %6s  %-6s %6s %6s %6s %6s %6s %9s %9s\n' ranks plain profile \
    ratio trace ratio split unify merge cube trace wait sent trace_B
for n in $RANKS; do
    best_plain="" best_profile="" best_trace=""
    split_profile="" split_trace="" cpu_profile="" cpu_trace="" trace_bytes=0 paths=""
    i=0
    while [ $i -lt "$REPS" ]; do
        for v in plain profile trace; do
            ns=$(run $v "$n") || exit 1
            eval "cur=\$best_$v"
            if [ -z "$cur" ] || [ "$ns" -lt "$cur" ]; then
                eval "best_$v=$ns"
                case $v in
                    profile)
                        split_profile=$(cat split.txt)
                        cpu_profile=$(cat cpu.txt)
                        paths=$(cat paths.txt)
                        ;;
                    trace)
                        split_trace=$(cat split.txt)
                        cpu_trace=$(cat cpu.txt)
                        trace_bytes=$(du -sb exp/traces exp/traces.def exp/traces.otf2 |
                            awk '{ s += $1 } END { print s + 0 }')
                        ;;
                esac
            fi
        done
        i=$((i + 1))
    done
    for v in profile trace; do
        eval "line=\$split_$v"
        eval "cpu=\$cpu_$v"
        # A build without the split (before it came in) still gets its times.
        [ -n "$line" ] || echo "bench: note: no finalize split from the $v run on $n ranks" >&2
        ratio=$(awk -v m="$(eval "echo \$best_$v")" -v p="$best_plain" \
            'BEGIN { printf "%.3f", m / p }')
        bytes=""
        [ $v = trace ] && bytes=$trace_bytes
        if [ $v = profile ]; then
            printf '  %5d %8.2f %8.2f %6.2f %8.2f %6.2f ' "$n" \
                "$(awk -v x="$best_plain" 'BEGIN { print x / 1e9 }')" \
                "$(awk -v x="$best_profile" 'BEGIN { print x / 1e9 }')" "$ratio" \
                "$(awk -v x="$best_trace" 'BEGIN { print x / 1e9 }')" \
                "$(awk -v m="$best_trace" -v p="$best_plain" 'BEGIN { print m / p }')"
        else
            printf '  %5s %8s %8s %6s %8s %6s ' "" "" "" "" "" ""
        fi
        printf ' %-6s %6s %6s %6s %6s %6s %9s %9s\n' "$v" \
            "$(ms "$(field unify "$line")")" "$(ms "$(field merge "$line")")" \
            "$(ms "$(field cube "$line")")" "$(ms "$(field trace "$line")")" \
            "$(ms "$(field wait "$line")")" "$(field max_sent "$line")" "${bytes:--}"
        {
            echo "bench: scale_${n}_plain_s=$(awk -v x="$best_plain" 'BEGIN { print x / 1e9 }')"
            echo "bench: scale_${n}_${v}_s=$(eval "awk -v x=\$best_$v 'BEGIN { print x / 1e9 }'")"
            echo "bench: scale_${n}_${v}_over_plain=$ratio"
            for f in total unify merge cube trace replay wait max_total max_sent max_received; do
                echo "bench: scale_${n}_${v}_$f=$(field $f "$line")"
            done
            for f in total unify merge cube trace replay wait max_trace; do
                echo "bench: scale_${n}_${v}_cpu_$f=$(field $f "$cpu")"
            done
            echo "bench: scale_${n}_call_paths=${paths:--}"
            [ $v = trace ] && echo "bench: scale_${n}_trace_bytes=$trace_bytes"
        } >>figures.txt
    done
done
echo
sort -u figures.txt | sort -t_ -k2,2n -s
rm -rf exp
exit 0
