#!/bin/sh
# hp-report timeline --format html (issue 25, item 4): one self-contained page (nothing
# fetched) with the trace as JSON, loaded in headless Chromium (Debian package
# `chromium`; the browser checks are skipped with a message when it is missing). For a
# 4-rank traffic.c run: the rendered DOM has one lane per rank (4 processes, 4 lanes),
# the 24 messages and message lines drawn, boxes drawn, the script finished, and no
# script error (the page's window.onerror counts them into data-errors, and the console
# on stderr has no "Uncaught"); a page with an injected error shows that both detectors
# work. A click on a box (the page's #click=LANE,BOX mode sends the mouse events) shows
# its call path and times. A threaded run gives a lane per thread location, of one process. A screenshot is taken;
# HP_UPDATE_SCREENSHOT=1 writes it to $HP_SRCDIR/doc/hp-timeline.png for doc/tracing.md.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 16

# attr NAME DOM: the value of the body's data-NAME in a dumped DOM
attr() {
    sed -n "s/.*<body[^>]* data-$1=\"\([^\"]*\)\".*/\1/p" "$2" | head -1
}

check "build traffic.c" hp-instrument mpicc -O1 -o traffic "$PROGRAMS/mpi/traffic.c"
check "traffic.c on 4 ranks with tracing" mpirun4 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=mpi ./traffic
check "hp-report timeline --format html" hp-report timeline mpi --format html -o mpi.html
check "the page references nothing outside itself" sh -c \
    '! grep -Eioh "(src|href)=|@import|url\(|https?://" mpi.html'
check "the trace is embedded as JSON, 24 messages" $PY -c '
import json, re
page = open("mpi.html").read()
d = json.loads(re.search(r"<script id=\"data\" type=\"application/json\">(.*?)</script>", page, re.S).group(1))
assert len(d["tracks"]) == 4 and len(d["msgs"]) == 5 * 24, (len(d["tracks"]), len(d["msgs"]))'
check "build threads.c" hp-instrument gcc -O1 -pthread -o threads "$PROGRAMS/threads.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=thr ./threads > /dev/null 2>&1
hp-report timeline thr --format html -o thr.html
check "python3-otf2 reads both traces as otf2-print does" sh -c \
    "$PY $HP_SRCDIR/test/tools/otf2_second_reader.py mpi/traces.otf2 &&
     $PY $HP_SRCDIR/test/tools/otf2_second_reader.py thr/traces.otf2"

if have_chromium; then
    chrome mpi --dump-dom "file://$WORK/mpi.html" > mpi.dom
    check_eq "mpi: script finished, no errors (onerror), 4 lanes of 4 processes, 24 messages" \
        "1 0 4 4 24" \
        "$(attr ready mpi.dom) $(attr errors mpi.dom) $(attr lanes mpi.dom) $(attr processes mpi.dom) $(attr messages mpi.dom)"
    check_eq "mpi: one lane element per rank" "4" "$(grep -o '<li class="lane"' mpi.dom | wc -l)"
    check "mpi: message lines and boxes drawn" test "$(attr lines-drawn mpi.dom)" -gt 0 \
        -a "$(attr rects-drawn mpi.dom)" -gt 0
    check "mpi: no script error on the console" sh -c '! grep -q Uncaught mpi.err'
    # A click on rank 0's first MPI_Send box shows its call path and times.
    send=$($PY -c '
import json, re
page = open("mpi.html").read()
d = json.loads(re.search(r"<script id=\"data\" type=\"application/json\">(.*?)</script>", page, re.S).group(1))
t = d["tracks"][0]
print(next(i for i, p in enumerate(t["p"]) if d["names"][d["paths"][2 * p + 1]] == "MPI_Send"))')
    chrome click --dump-dom "file://$WORK/mpi.html#click=0,$send" > click.dom
    check "a click on an MPI_Send box shows its call path, start, end and duration" sh -c \
        "grep -q 'call path: traffic &gt; main &gt; ring &gt; MPI_Send' click.dom &&
         grep -Eq 'start [0-9.]+ [mu]?s +end [0-9.]+ [mu]?s +duration [0-9.]+ ([mu]s|s|us|ns)' click.dom"
    chrome thr --dump-dom "file://$WORK/thr.html" > thr.dom
    check_eq "threads: a lane per location of the trace, one process, no errors" \
        "1 0 $(otf2-print -G thr/traces.otf2 | grep -c '^LOCATION ') 1" \
        "$(attr ready thr.dom) $(attr errors thr.dom) $(attr lanes thr.dom) $(attr processes thr.dom)"
    # The detectors: a page with a broken script must show up in both.
    sed 's|</body>|<script>null.broken = 1;</script></body>|' mpi.html > broken.html
    chrome broken --dump-dom "file://$WORK/broken.html" > broken.dom
    check_eq "an injected script error is caught by onerror and on the console" "1 yes" \
        "$(attr errors broken.dom) $(grep -q Uncaught broken.err && echo yes)"
    shot="$WORK/hp-timeline.png"
    [ -n "${HP_UPDATE_SCREENSHOT:-}" ] && shot="$HP_SRCDIR/doc/hp-timeline.png"
    chrome screenshot --hide-scrollbars --screenshot="$shot" --window-size=1200,420 \
        "file://$WORK/mpi.html" > /dev/null
    check "a screenshot is taken ($shot)" sh -c "head -c 8 '$shot' | od -c | grep -q 'P   N   G'"
else
    echo "# chromium is not installed (apt-get install chromium): browser checks skipped"
    for t in mpi-dom mpi-lanes mpi-lines mpi-console click threads broken screenshot; do
        skip "chromium: $t" "chromium is not installed"
    done
fi
check "bad option: named" sh -c \
    'hp-report timeline mpi --format html --max-per-bin x -o y.html 2>&1 | grep -q "max-per-bin .x.: expected a number"'
finish
