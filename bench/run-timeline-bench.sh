#!/bin/sh
# run-timeline-bench.sh BUILDDIR [MID_CALLS]: hp-report timeline on a trace of about 10^6
# OTF2 events (part of `make bench`; doc/tracing.md, "Timelines").
#
# bench-calls.c (main -> mid() x N -> leaf() x 10) built with hp-instrument runs with
# tracing; N = 45455 gives 11 N + 2 = 500007 region visits, 1000014 Enter/Leave events
# on one track. Printed: the time to convert the trace to trace-event JSON (thinned by
# the default rule, and unthinned) and to the HTML timeline, each file's size and slice
# count; then, in headless Chromium (skipped when it is missing), the HTML page's time
# from navigation to the first frame drawn, and the mean and the slowest of 40 zoom
# frames into and out of the densest part (the page's #bench mode). Never fails on
# timings: exit 0 unless something could not be built or run.
set -u
BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"
bench_builddir "BUILDDIR [MID_CALLS]" "$@"
n=${2:-45455}
bench_start hp-report libhpmeasure.so
bench_workdir timeline
export HP_INSTRUMENT_LIBDIR="$BUILDDIR/.libs"
export HP_OVERHEAD_BUDGET=0  # every call traced: the budget would switch leaf() off
report="$BUILDDIR/hp-report"
"$BUILDDIR/hp-instrument" "${CC:-cc}" -O2 -o calls "$SRCDIR/bench/bench-calls.c" || exit 1
HP_ENABLE_TRACING=true HP_TOTAL_MEMORY=256M HP_EXPERIMENT_DIRECTORY=run ./calls "$n" \
    > /dev/null || exit 1

# convert OUT ARGS...: runs hp-report timeline run ARGS -o OUT, prints "ms bytes slices"
# (slices from the JSON's otherData; "-" for the HTML page, which keeps all).
convert() {
    out=$1
    shift
    t0=$(date +%s%N)
    "$report" timeline run "$@" -o "$out" || exit 1
    t1=$(date +%s%N)
    slices=$(head -c 4096 "$out" | grep -o '"slices":[0-9]*' | cut -d: -f2)
    echo "$(( (t1 - t0) / 1000000 )) $(stat -c %s "$out") ${slices:--}"
}

events=$(( (11 * n + 2) * 2 ))
printf 'hp-report timeline on a trace of %d OTF2 events (bench-calls, %d visits)\n\n' \
    "$events" $(( 11 * n + 2 ))
printf '  %-34s %8s %8s %9s\n' "" "ms" "MB" "slices"
row() {
    name=$1
    shift
    set -- $(convert "$@")
    printf '  %-34s %8d %8.1f %9s\n' "$name" "$1" "$(echo "$2" | awk '{ print $1 / 1e6 }')" "$3"
}
row "json (default thinning)" thinned.json
row "json --no-thinning" all.json --no-thinning
row "html (all kept)" run.html --format html

if ! command -v chromium >/dev/null 2>&1; then
    echo "  chromium is not installed: rendering not measured"
    exit 0
fi
profile=$(mktemp -d "$WORK/chrome.XXXXXX")
timeout -k 10 300 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --window-size=1400,600 --dump-dom "file://$WORK/run.html#bench" \
    > run.dom 2> chrome.err
attr() { sed -n "s/.*<body[^>]* data-$1=\"\([^\"]*\)\".*/\1/p" run.dom | head -1; }
printf '\n  %-34s %8s ms\n' "HTML: navigation to first frame" "$(attr load-ms)"
printf '  %-34s %8s ms\n' "HTML: first frame (draw only)" "$(attr draw-ms)"
printf '  %-34s %8s ms\n' "HTML: one zoom frame (mean of 40)" "$(attr zoom-ms)"
printf '  %-34s %8s ms\n' "HTML: slowest zoom frame" "$(attr zoom-max-ms)"
printf '  %-34s %8s\n' "HTML: script errors" "$(attr errors)"
exit 0
