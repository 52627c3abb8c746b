#!/bin/sh
# hp-report html shows the counters as the text report does: per rank and counter the
# total, its part in MPI and the application's part (which add up), and the derived
# metrics (CPU use from task-clock); the numbers in the page rendered by headless
# Chromium are the text report's. A profile without counters says "No data" there.
# Skipped, with the reason, where chromium or MPI is not installed.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 8

if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpiexec >/dev/null 2>&1; then
    for t in build run html chromium counters derived nodata zero; do skip "$t" "no mpicc/mpiexec"; done
    finish
fi
check "build mpi_split.c" hp-instrument mpicc -O1 -o mpi_split "$PROGRAMS/counters/mpi_split.c"
check "run on 2 ranks with page-faults and task-clock" timeout -k 10 60 mpiexec -n 2 \
    env HP_METRIC_PERF=page-faults,task-clock HP_EXPERIMENT_DIRECTORY=exp ./mpi_split
check "hp-report html" hp-report html exp -o counters.html
check "hp-report html of the run without counters" sh -c \
    'HP_EXPERIMENT_DIRECTORY=plain ./mpi_split > /dev/null && hp-report html plain -o plain.html'
if ! command -v chromium >/dev/null 2>&1; then
    for t in chromium counters derived nodata; do
        ok "$t # SKIP chromium is not installed (Debian package chromium; build-aux/setup.sh installs it)"
    done
    finish
fi
# render PAGE: the DOM after the page's script ran; fails on console messages.
render() {
    _p=$(mktemp -d "$WORK/chrome-profile.XXXXXX")
    unsanitized timeout -k 10 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$_p" --enable-logging=stderr --v=0 --window-size=1200,900 \
        --dump-dom "file://$WORK/$1" > "$1.dom" 2> "$1.err"
    rm -rf "$_p"
    ! grep -E 'CONSOLE|Uncaught' "$1.err"
}
if render counters.html && render plain.html; then
    ok "chromium renders both pages without console messages"
else
    not_ok "chromium renders both pages without console messages"
fi
# The rows of the page's table KEY: cells joined by blanks, one row a line.
rows() {
    $PY - "$1" "$2" <<'PY'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<table class="counters" data-table="%s">(.*?)</table>' % sys.argv[2], dom, re.S)
for tr in re.findall(r"<tr>(.*?)</tr>", m.group(1) if m else "", re.S)[1:]:
    print(" ".join(html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)))
PY
}
hp-report exp > text.txt
# text_rows TITLE: the numbered rows of the text report's table under TITLE, one a line.
text_rows() {
    awk -v t="$1" 'index($0, t) == 1 { on = 1; next } /^[A-Z]/ { on = 0 }
                   on && $1 ~ /^[0-9]+$/' text.txt
}
check_eq "counters: the page's rows are the text report's (rank, counter, total, in MPI, application, MPI %)" \
    "$(text_rows "Counters per rank" | awk '{ print $1, $2, $3, $4, $5, $6 }' | paste -sd'|')" \
    "$(rows counters.html.dom counters | awk '{ gsub(",", ""); print }' | paste -sd'|')"
check_eq "derived metrics: CPU use per rank, application / in MPI / all as in the text report" \
    "$(text_rows "Derived metrics per rank" | awk '{ print $1, $(NF - 2), $(NF - 1), $NF }' | paste -sd'|')" \
    "$(rows counters.html.dom derived | awk '{ print $1, $(NF - 2), $(NF - 1), $NF }' | paste -sd'|')"
check "no counters: the page says so" \
    grep -q 'No data: this profile has no counters' plain.html.dom
finish
