#!/bin/sh
# run-filter-bench.sh BUILDDIR [REPS]: what a filter suggested by
# `hp-report score --suggest-filter` saves. A C++ program with many tiny, very frequent
# functions (test/programs/report/tiny_calls.cpp, 100x its test size) runs plain,
# instrumented, and instrumented with the suggested filter; prints the wall times (min of
# REPS runs) and the dilation of each against plain.
# Never fails on timings: exit 0 unless something could not be built or run.
set -u
build=${1:?usage: run-filter-bench.sh BUILDDIR [REPS]}
reps=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
work="$build/bench/work/filter"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export HP_INSTRUMENT_LIBDIR="$build/.libs" HP_INSTRUMENT_INCLUDEDIR="$src/include"
# What the suggested filter saves is measured against every call recorded: the default
# overhead budget would switch the tiny functions off by itself.
export HP_OVERHEAD_BUDGET=0
prog="$src/test/programs/report/tiny_calls.cpp"
CXX=${CXX:-g++}

"$CXX" -O1 -DSTEPS_COUNT=2000 -o plain "$prog" || exit 1
"$build/hp-instrument" "$CXX" -O1 -DSTEPS_COUNT=2000 -o measured "$prog" || exit 1
HP_EXPERIMENT_DIRECTORY=first ./measured > /dev/null || exit 1
"$build/hp-report" score --suggest-filter first > suggested.filt || exit 1

# seconds of the fastest of $reps runs of "$@"
fastest() {
    best=""
    i=0
    while [ $i -lt "$reps" ]; do
        rm -rf run
        t0=$(date +%s%N)
        HP_EXPERIMENT_DIRECTORY=run "$@" > /dev/null || exit 1
        t=$(( $(date +%s%N) - t0 ))
        if [ -z "$best" ] || [ $t -lt "$best" ]; then best=$t; fi
        i=$((i + 1))
    done
    awk -v ns="$best" 'BEGIN { printf "%.4f", ns / 1e9 }'
}
plain=$(fastest ./plain)
measured=$(fastest ./measured)
filtered=$(fastest env HP_FILTERING_FILE=suggested.filt ./measured)

echo "Suggested filter: what it saves (tiny_calls.cpp, min of $reps runs)"
echo
awk -v p="$plain" -v m="$measured" -v f="$filtered" 'BEGIN {
    printf "  %-34s %10s %10s\n", "", "seconds", "vs plain"
    printf "  %-34s %10.4f %10s\n", "plain g++ -O1", p, "1.00x"
    printf "  %-34s %10.4f %9.2fx\n", "instrumented", m, m / p
    printf "  %-34s %10.4f %9.2fx\n", "instrumented + suggested filter", f, f / p }'
echo
echo "  suggested filter: $(grep -c 'EXCLUDE' suggested.filt) EXCLUDE rules ($work/suggested.filt)"
echo "bench: filter_plain_s=$plain"
echo "bench: filter_instrumented_s=$measured"
echo "bench: filter_filtered_s=$filtered"
awk -v p="$plain" -v m="$measured" -v f="$filtered" 'BEGIN {
    printf "bench: filter_dilation_unfiltered=%.2f\nbench: filter_dilation_filtered=%.2f\n", m / p, f / p }'
exit 0
