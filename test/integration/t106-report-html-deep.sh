#!/bin/sh
# hp-report html on a call tree 1000 levels deep (recurse.c, recursion kept): in
# headless Chromium at 1200x900 the page does not scroll sideways, the tree opens at
# most 12 levels by itself and indents at most 24, every bar starts at the same x (one
# column), clicking down stops at 24 levels with an "expand deeper" button, which goes
# on from there with the path above it; the metric's description is a help tooltip;
# no console messages. Skipped, with the reason, where chromium is not installed
# (Debian package `chromium`, installed by build-aux/setup.sh).
# HP_UPDATE_SCREENSHOT=1 also writes doc/hp-report-html-deep.png from the probed page.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 9

check "build recurse.c" hp-instrument gcc -O0 -o recurse "$PROGRAMS/recurse.c"
HP_EXPERIMENT_DIRECTORY=exp check "run it 1000 levels deep" ./recurse 1000
check "hp-report html" hp-report html exp -o deep.html
$PY - "$HP_SRCDIR/test/tools/report_html_probe.html" deep.html deep-probe.html <<'PY'
import sys
page = open(sys.argv[2]).read()
i = page.rindex("</body>")
open(sys.argv[3], "w").write(page[:i] + open(sys.argv[1]).read() + page[i:])
PY

if ! command -v chromium >/dev/null 2>&1; then
    for t in console scroll first opened deeper help; do
        ok "chromium: $t # SKIP chromium is not installed (Debian package chromium; build-aux/setup.sh installs it)"
    done
    finish
fi
profile_dir=$(mktemp -d "$WORK/chrome-profile.XXXXXX")
unsanitized timeout -k 10 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile_dir" --enable-logging=stderr --v=0 --window-size=1200,900 \
    --dump-dom "file://$WORK/deep-probe.html" > dom.html 2> chrome.err
check "no console messages" sh -c "! grep -E 'CONSOLE|Uncaught' chrome.err"
probe=$(grep -o 'data-probe="[^"]*"' dom.html | sed 's/^data-probe="//; s/"$//; s/&quot;/"/g; s/&amp;/\&/g')
# field EXPR: EXPR over the probe's facts; a tuple prints as its values with blanks
field() {
    printf '%s' "$probe" | PYTHONIOENCODING=utf-8 $PY -c '
import json, sys
v = eval(sys.argv[1], {}, json.load(sys.stdin))
print(" ".join(map(str, v)) if isinstance(v, tuple) else v)' "$1"
}
# Rows: the root, main, main/after and dive at depths 2 and below.
check_eq "loaded: levels 0-12 shown (14 rows), no sideways scrolling, bars in one column" \
    "14 no 1" "$(field 'first["visible"] - 0, first["scroll"], first["barColumns"]')"
check_eq "clicked down: levels 0-24 (26 rows), no sideways scrolling, one bar column, one 'expand deeper'" \
    "26 no 1 1" "$(field 'opened["visible"], opened["scroll"], opened["barColumns"], opened["deeper"]')"
check_eq "expand deeper: the tree goes on below depth 24, without sideways scrolling" \
    "no 1 Showing the tree below depth 24: recurse / main / … 20 levels … / dive / dive / dive" \
    "$(field 'second["scroll"], second["barColumns"], path.split("up 24 levels")[0]')"
check_eq "the metric's description is its help tooltip" \
    "Total time (time, sec; a sum over threads and call paths)" "$(field 'help')"
shot="$WORK/hp-report-html-deep.png"
[ -n "${HP_UPDATE_SCREENSHOT:-}" ] && shot="$HP_SRCDIR/doc/hp-report-html-deep.png"
unsanitized timeout -k 10 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$profile_dir" --hide-scrollbars --window-size=1200,900 \
    --screenshot="$shot" "file://$WORK/deep-probe.html" > /dev/null 2>&1
check "a screenshot is taken ($shot)" sh -c "head -c 8 '$shot' | od -c | grep -q 'P   N   G'"
rm -rf "$profile_dir"
finish
