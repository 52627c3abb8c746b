#!/bin/sh
# hp-report site --format html from a site log whose jobs counted no instructions (no
# HP_METRIC_PERF=instructions, as on a machine without an instruction counter): the
# plot and the text above it say that there is no data and why, the table still lists
# the job, and headless Chromium renders it without console messages. Skipped, with
# the reason, where chromium or MPI is not installed.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 6

if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpiexec >/dev/null 2>&1; then
    for t in build run page plot table chromium; do skip "$t" "no mpicc/mpiexec"; done
    finish
fi
check "build site.c" hp-instrument mpicc -O1 -o site "$PROGRAMS/mpi/site.c"
HP_SITE_LOG="$WORK/site.jsonl" HP_EXPERIMENT_DIRECTORY=exp \
    check "a job with HP_SITE_LOG and no counters" timeout -k 10 60 mpiexec -n 2 ./site
hp-report site site.jsonl --by app --period month --format html > site.html 2> site.err
check_eq "the page says why the plot is empty" \
    "<p class='nodata' id='nodata'>No data to plot: no job counted instructions (HP_METRIC_PERF=instructions or HP_METRIC_PAPI=PAPI_TOT_INS), as on a machine without an instruction counter, such as most virtual machines. The table below has the jobs' other numbers.</p>" \
    "$(grep "id='nodata'" site.html)"
check_eq "the plot has the note and no point" "1 0" \
    "$(grep -c "<text class='nodata'" site.html) $(grep -c '<circle' site.html)"
check "the table lists the job's application" grep -q '<td>site</td>' site.html
if command -v chromium >/dev/null 2>&1; then
    profile_dir=$(mktemp -d "$WORK/chrome-profile.XXXXXX")
    unsanitized timeout -k 10 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile_dir" --enable-logging=stderr --v=0 \
        --dump-dom "file://$WORK/site.html" > dom.html 2> chrome.err
    rm -rf "$profile_dir"
    check "chromium renders the note, no console messages" sh -c \
        "grep -q 'No data: no job counted instructions' dom.html && ! grep -E 'CONSOLE|Uncaught' chrome.err"
else
    skip "chromium renders the note" "chromium is not installed (Debian package chromium; build-aux/setup.sh installs it)"
fi
finish
