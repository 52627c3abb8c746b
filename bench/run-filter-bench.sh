#!/bin/sh
# run-filter-bench.sh BUILDDIR [REPS]: what a filter suggested by
# `hp-report score --suggest-filter` saves. A C++ program with many tiny, very frequent
# functions (test/programs/report/tiny_calls.cpp, 100x its test size) runs plain,
# instrumented, and instrumented with the suggested filter, taking turns in each of REPS
# rounds; prints the wall times (the minimum of each) and the dilation against plain.
# Never fails on timings: exit 0 unless something could not be built or run.
set -u
BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"
bench_args "$@"
bench_start hp-instrument libhpmeasure.so
bench_workdir filter
export HP_INSTRUMENT_LIBDIR="$BUILDDIR/.libs" HP_INSTRUMENT_INCLUDEDIR="$SRCDIR/include"
# What the suggested filter saves is measured against every call recorded: the default
# overhead budget would switch the tiny functions off by itself.
export HP_OVERHEAD_BUDGET=0
prog="$SRCDIR/test/programs/report/tiny_calls.cpp"
CXX=${CXX:-g++}

"$CXX" -O1 -DSTEPS_COUNT=2000 -o plain "$prog" || exit 1
"$BUILDDIR/hp-instrument" "$CXX" -O1 -DSTEPS_COUNT=2000 -o measured "$prog" || exit 1
HP_EXPERIMENT_DIRECTORY=first ./measured > /dev/null || exit 1
"$BUILDDIR/hp-report" score --suggest-filter first > suggested.filt || exit 1

# run VARIANT: the wall time of one run in ns
# shellcheck disable=SC2317 # called through min_of_rounds
run() {
    rm -rf run
    t0=$(date +%s%N)
    case $1 in
        plain) HP_EXPERIMENT_DIRECTORY=run ./plain ;;
        measured) HP_EXPERIMENT_DIRECTORY=run ./measured ;;
        filtered) HP_EXPERIMENT_DIRECTORY=run HP_FILTERING_FILE=suggested.filt ./measured ;;
    esac >/dev/null || die "$1 run failed"
    echo $(( $(date +%s%N) - t0 ))
}
min_of_rounds run plain measured filtered
seconds() {
    awk -v ns="$1" 'BEGIN { printf "%.4f", ns / 1e9 }'
}
# shellcheck disable=SC2154 # the min_* variables are set by min_of_rounds
plain=$(seconds "$min_plain") measured=$(seconds "$min_measured") \
    filtered=$(seconds "$min_filtered")

echo "Suggested filter: what it saves (tiny_calls.cpp, min of $REPS runs)"
echo
awk -v p="$plain" -v m="$measured" -v f="$filtered" 'BEGIN {
    printf "  %-34s %10s %10s\n", "", "seconds", "vs plain"
    printf "  %-34s %10.4f %10s\n", "plain g++ -O1", p, "1.00x"
    printf "  %-34s %10.4f %9.2fx\n", "instrumented", m, m / p
    printf "  %-34s %10.4f %9.2fx\n", "instrumented + suggested filter", f, f / p }'
echo
echo "  suggested filter: $(grep -c 'EXCLUDE' suggested.filt) EXCLUDE rules ($WORK/suggested.filt)"
echo "bench: filter_plain_s=$plain"
echo "bench: filter_instrumented_s=$measured"
echo "bench: filter_filtered_s=$filtered"
awk -v p="$plain" -v m="$measured" -v f="$filtered" 'BEGIN {
    printf "bench: filter_dilation_unfiltered=%.2f\nbench: filter_dilation_filtered=%.2f\n", m / p, f / p }'
exit 0
