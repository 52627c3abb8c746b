#!/bin/sh
# hp-report html: the page is one self-contained file (no network references) that
# headless Chromium loads without console errors and renders with the expected function
# names, for an MPI run (test/programs/report/halo.c, 4 ranks), a run without MPI and a
# Score-P sample; bad options and paths give exit status 2. Chromium (Debian package
# `chromium`) is installed here when missing and we are root; otherwise the browser
# checks are skipped.
#
# HP_UPDATE_SCREENSHOT=1 also writes the documentation's screenshot,
# $HP_SRCDIR/doc/hp-report-html.png (1200x900), from the MPI page.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 19
REPORT="$PROGRAMS/report"

# check_page NAME PAGE WORD... : loads PAGE, fails on any console message (the page
# logs nothing itself, so every one is an error) or when the rendered DOM lacks the
# marker the script sets at its end or any WORD.
check_page() {
    _n=$1
    _page=$2
    shift 2
    if ! chrome "$_n" --dump-dom "file://$WORK/$_page" >"$WORK/$_n.dom"; then
        not_ok "$_n: chromium failed"
        sed 's/^/# /' "$WORK/$_n.err" | tail -5
        return
    fi
    if grep -E 'CONSOLE|Uncaught' "$WORK/$_n.err" >"$WORK/$_n.console"; then
        not_ok "$_n: console messages"
        sed 's/^/# /' "$WORK/$_n.console" | head -5
        return
    fi
    if ! grep -q 'data-rendered="yes"' "$WORK/$_n.dom"; then
        not_ok "$_n: the script did not finish"
        return
    fi
    for _w in "$@"; do
        if ! grep -qF -- "$_w" "$WORK/$_n.dom"; then
            not_ok "$_n: rendered page lacks '$_w'"
            return
        fi
    done
    ok "$_n: loads without console errors and shows $*"
}

# --- pages
if command -v mpicc >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; then
    check "build halo.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o halo "$REPORT/halo.c" -lm
    check "run it on 4 ranks" mpirun4 HP_EXPERIMENT_DIRECTORY=mexp ./halo
    mpi=yes
else
    skip "build halo.c" "no mpicc/mpiexec"
    skip "run halo" "no mpicc/mpiexec"
    mpi=no
fi
check "build tiny_calls.cpp" hp-instrument g++ -O1 -o tiny "$REPORT/tiny_calls.cpp"
HP_EXPERIMENT_DIRECTORY=exp check "run it" ./tiny
check "hp-report html (no MPI)" hp-report html exp -o tiny.html
check "hp-report html (Score-P sample)" hp-report html \
    "$HP_SRCDIR/test/data/cube/kripke_p8_profile.cubex" -o kripke.html
if [ $mpi = yes ]; then
    check "hp-report html (MPI)" hp-report html mexp -o halo.html
else
    skip "hp-report html (MPI)" "no MPI run"
fi

# Self-contained: nothing is fetched (no src/href to another document or host).
# (the SVG namespace name is an identifier, not a fetch)
check "the pages reference nothing outside themselves" sh -c \
    '! grep -Eioh "(src|href)=|@import|url\(|https?://[^\"]*" tiny.html kripke.html |
       grep -vx "http://www.w3.org/2000/svg"'
check "the profile is embedded as JSON" grep -q '<script type="application/json" id="hp-data">' tiny.html
check "the page says that there is no trace" grep -q 'No trace in this experiment' tiny.html

# --- in the browser
if have_chromium; then
    if [ $mpi = yes ]; then
        check_page halo halo.html relax exchange_halos residual MPI_Sendrecv MPI_Allreduce \
            "rank 3" "% MPI" "No trace in this experiment"
    else
        skip "halo page" "no MPI run"
    fi
    check_page tiny tiny.html "vec::dot(double, double)" "kernel(Grid&amp;)" \
        "No MPI functions in this profile."
    check_page kripke kripke.html MPI_Testany MPI_Isend "rank 7"
    shot="$WORK/hp-report-html.png"
    [ -n "${HP_UPDATE_SCREENSHOT:-}" ] && shot="$HP_SRCDIR/doc/hp-report-html.png"
    page=halo.html
    [ $mpi = yes ] || page=tiny.html
    chrome screenshot --hide-scrollbars --screenshot="$shot" --window-size=1200,900 \
        "file://$WORK/$page" >/dev/null
    check "a screenshot is taken ($shot)" sh -c "head -c 8 '$shot' | od -c | grep -q 'P   N   G'"
else
    for t in halo tiny kripke screenshot; do skip "chromium: $t" "chromium is not installed"; done
fi

# --- bad input
expect_fail "-o without a file name" '^hp-report html: -o needs a file name$' hp-report html exp -o
check_eq "... exits with status 2" 2 "$(hp-report html exp -o >/dev/null 2>&1; echo $?)"
expect_fail "an unknown option" "unknown option '--bogus'" hp-report html --bogus exp
check_eq "a missing profile exits with status 2" 2 "$(hp-report html no-such-dir -o x.html >/dev/null 2>&1; echo $?)"
expect_fail "an unwritable output names the file" 'no-such-dir/x\.html: cannot write' \
    hp-report html exp -o no-such-dir/x.html
finish
