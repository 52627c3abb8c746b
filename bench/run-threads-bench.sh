#!/bin/sh
# Subtree selection and thread lifetimes, side by side (doc/bench.md):
#   calls    bench-calls.c (main -> mid x N -> leaf x 10) built plain and with
#            hp-instrument (GCC plug-in hooks), run unfiltered, with every call filtered
#            (EXCLUDE leaf mid), with leaf switched off below mid (HP_EXCLUDE_SUBTREES=mid),
#            with every call switched off (HP_SELECT_SUBTREES matching nothing), and with
#            everything selected (HP_SELECT_SUBTREES=main); and built with
#            hp-instrument --no-plugin (-finstrument-functions), all filtered and all off
#   threads  bench-threads.c (start and join N threads one after another, each calling
#            one instrumented function) plain, HP_THREAD_LOCATIONS=reuse and =each
#   openmp   bench-omp.c (20000 parallel regions of 2 threads one after another, each
#            thread calling one instrumented function) plain and with hp-instrument, with
#            gcc (libgomp) and, when clang -fopenmp works, with clang (LLVM's libomp); and
#            built with hp-instrument --nocompiler (sampled at 1 kHz: each fork unwinds
#            the forking path)
# Each variant runs REPS times, interleaved; the minimum counts. Prints a table, then
# one `bench: name=value` line per figure.
#
# Usage: run-threads-bench.sh BUILDDIR [MID_CALLS [THREADS [REPS]]]
#   defaults: 2000000 mid() calls, 400 threads (as many as HP_THREAD_LOCATIONS=each fits
#   into the default budget), 5 repetitions. CC (default cc) compiles.
# Exits 0 whatever the timings are; 1 when something could not be built or run, 2 on
# bad arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_builddir "BUILDDIR [MID_CALLS [THREADS [REPS]]]" "$@"
N=${2:-2000000}
T=${3:-400}
REPS=${4:-5}
R=20000 # parallel regions per OpenMP run
for v in "$N" "$T" "$REPS"; do is_count "$v" || { echo "bench: not a count: $v" >&2; exit 2; }; done
CC=${CC:-cc}
SRCDIR=$(dirname "$BENCHDIR")
INSTRUMENT=$BUILDDIR/hp-instrument
[ -x "$INSTRUMENT" ] || die "$INSTRUMENT not found (run make first)"

WORK=$BUILDDIR/bench/work-threads
rm -rf "$WORK"
mkdir -p "$WORK" || die "cannot create $WORK"
cd "$WORK" || die "cannot enter $WORK"
unset HP_FILTERING_FILE HP_EXPERIMENT_DIRECTORY HP_VERBOSE HP_SELECT_SUBTREES \
    HP_EXCLUDE_SUBTREES HP_THREAD_LOCATIONS

export HP_INSTRUMENT_LIBDIR="$BUILDDIR/.libs" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include"
build "$CC" -O2 -g -o calls-plain "$BENCHDIR/bench-calls.c"
build "$INSTRUMENT" "$CC" -O2 -o calls-core "$BENCHDIR/bench-calls.c"
build "$INSTRUMENT" --no-plugin "$CC" -O2 -o calls-cyg "$BENCHDIR/bench-calls.c"
build "$CC" -O2 -g -pthread -o threads-plain "$BENCHDIR/bench-threads.c"
build "$INSTRUMENT" "$CC" -O2 -pthread -o threads-core "$BENCHDIR/bench-threads.c"
build "$CC" -O2 -g -fopenmp -o omp-plain "$BENCHDIR/bench-omp.c"
build "$INSTRUMENT" "$CC" -O2 -fopenmp -o omp-core "$BENCHDIR/bench-omp.c"
build "$INSTRUMENT" --nocompiler "$CC" -O2 -fopenmp -o omp-nc "$BENCHDIR/bench-omp.c"
LIBOMP=no
if command -v clang >/dev/null 2>&1 &&
    clang -O2 -g -fopenmp -o omp-kplain "$BENCHDIR/bench-omp.c" 2>/dev/null; then
    LIBOMP=yes
    build "$INSTRUMENT" clang -O2 -fopenmp -o omp-kcore "$BENCHDIR/bench-omp.c"
fi
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE leaf mid\nSCOREP_REGION_NAMES_END\n' >filter-all.txt

# run VARIANT: runs it once and prints the loop time in ns; stops the script on failure.
run() {
    e="HP_EXPERIMENT_DIRECTORY=$WORK/exp-$1"
    case $1 in
        plain) out=$(./calls-plain "$N") ;;
        unfiltered) out=$(env "$e" ./calls-core "$N") ;;
        allfiltered) out=$(env "$e" HP_FILTERING_FILE=filter-all.txt ./calls-core "$N") ;;
        excluded) out=$(env "$e" HP_EXCLUDE_SUBTREES=mid ./calls-core "$N" 2>/dev/null) ;;
        alloff) out=$(env "$e" HP_SELECT_SUBTREES=none_matches ./calls-core "$N" 2>/dev/null) ;;
        selected) out=$(env "$e" HP_SELECT_SUBTREES=main ./calls-core "$N") ;;
        cygfiltered) out=$(env "$e" HP_FILTERING_FILE=filter-all.txt ./calls-cyg "$N") ;;
        cygoff) out=$(env "$e" HP_SELECT_SUBTREES=none_matches ./calls-cyg "$N" 2>/dev/null) ;;
        tplain) out=$(./threads-plain "$T") ;;
        treuse) out=$(env "$e" ./threads-core "$T") ;;
        teach) out=$(env "$e" HP_THREAD_LOCATIONS=each ./threads-core "$T") ;;
        oplain) out=$(./omp-plain "$R") ;;
        ocore) out=$(env "$e" ./omp-core "$R") ;;
        onc) out=$(env "$e" ./omp-nc "$R") ;;
        kplain) out=$(./omp-kplain "$R") ;;
        kcore) out=$(env "$e" ./omp-kcore "$R") ;;
    esac || die "$1 run failed (exit status $?)"
    rm -rf "$WORK/exp-$1"
    ns=${out#ns=}
    ns=${ns%% *}
    is_count "$ns" || die "$1 run printed '$out'"
    echo "$ns"
}

VARIANTS="plain unfiltered allfiltered excluded alloff selected cygfiltered cygoff"
VARIANTS="$VARIANTS tplain treuse teach oplain ocore onc"
[ "$LIBOMP" = no ] || VARIANTS="$VARIANTS kplain kcore"
for v in $VARIANTS; do eval "min_$v=''"; done
r=0
while [ $r -lt "$REPS" ]; do
    for v in $VARIANTS; do keep_min "min_$v" "$(run "$v")"; done
    r=$((r + 1))
done

# per call (11 N calls) or per thread, over plain, in ns with two decimals
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (a - b) / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
calls=$((11 * N))
unf=$(per "$min_unfiltered" "$min_plain" $calls)
allf=$(per "$min_allfiltered" "$min_plain" $calls)
excl=$(per "$min_excluded" "$min_plain" $calls)
off=$(per "$min_alloff" "$min_plain" $calls)
sel=$(per "$min_selected" "$min_plain" $calls)
cygf=$(per "$min_cygfiltered" "$min_plain" $calls)
cygo=$(per "$min_cygoff" "$min_plain" $calls)
tp=$(per "$min_tplain" 0 "$T")
tr=$(per "$min_treuse" 0 "$T")
te=$(per "$min_teach" 0 "$T")
printf '%-48s %8s\n' "calls ($calls per run, ns added per call)" ""
printf '  %-46s %8s\n' "unfiltered" "$unf" "every call filtered" "$allf" \
    "HP_EXCLUDE_SUBTREES=mid (10 of 11 off)" "$excl" \
    "HP_SELECT_SUBTREES matching nothing (all off)" "$off" \
    "HP_SELECT_SUBTREES=main (all selected)" "$sel" \
    "--no-plugin: every call filtered" "$cygf" \
    "--no-plugin: every call switched off" "$cygo"
printf '%-48s %8s\n' "threads ($T started and joined, us per thread)" ""
printf '  %-46s %8s\n' "plain" "$(per "$min_tplain" 0 $((T * 1000)))" \
    "HP_THREAD_LOCATIONS=reuse" "$(per "$min_treuse" 0 $((T * 1000)))" \
    "HP_THREAD_LOCATIONS=each" "$(per "$min_teach" 0 $((T * 1000)))"
op=$(per "$min_oplain" 0 "$R")
oc=$(per "$min_ocore" 0 "$R")
onc=$(per "$min_onc" 0 "$R")
printf '%-48s %8s\n' "openmp ($R parallel regions of 2 threads, ns each)" ""
printf '  %-46s %8s\n' "plain" "$op" "hp-instrument" "$oc" \
    "hp-instrument --nocompiler (fork unwound)" "$onc"
if [ "$LIBOMP" = yes ]; then
    kp=$(per "$min_kplain" 0 "$R")
    kc=$(per "$min_kcore" 0 "$R")
    printf '  %-46s %8s\n' "clang, libomp: plain" "$kp" "clang, libomp: hp-instrument" "$kc"
fi
echo "bench: unfiltered_ns_per_call=$unf"
echo "bench: allfiltered_ns_per_call=$allf"
echo "bench: excluded_ns_per_call=$excl"
echo "bench: alloff_ns_per_call=$off"
echo "bench: selected_ns_per_call=$sel"
echo "bench: cyg_allfiltered_ns_per_call=$cygf"
echo "bench: cyg_alloff_ns_per_call=$cygo"
echo "bench: cyg_alloff_over_allfiltered=$(ratio "$cygo" "$cygf")"
echo "bench: selected_over_unfiltered=$(ratio "$sel" "$unf")"
echo "bench: thread_plain_ns=$tp"
echo "bench: thread_reuse_ns=$tr"
echo "bench: thread_each_ns=$te"
echo "bench: thread_reuse_over_plain=$(ratio "$tr" "$tp")"
echo "bench: thread_each_over_plain=$(ratio "$te" "$tp")"
echo "bench: omp_region_plain_ns=$op"
echo "bench: omp_region_ns=$oc"
echo "bench: omp_region_over_plain=$(ratio "$oc" "$op")"
echo "bench: omp_region_nocompiler_ns=$onc"
echo "bench: omp_region_nocompiler_over_plain=$(ratio "$onc" "$op")"
if [ "$LIBOMP" = yes ]; then
    echo "bench: libomp_region_plain_ns=$kp"
    echo "bench: libomp_region_ns=$kc"
    echo "bench: libomp_region_over_plain=$(ratio "$kc" "$kp")"
fi
