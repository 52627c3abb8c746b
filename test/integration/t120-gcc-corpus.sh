#!/bin/sh
# GCC's own test programs (test/corpus/check.list, a slice of `make corpus`): each file is
# compiled plainly and with the build tree's hp-gcc, hp-g++, hp-gfortran, hp-clang and
# hp-clang++ at -O0, -O2 and -O3 (the execute tests also at -O2 -flto and run both ways,
# HP_INSTRUMENT_STRICT=1, HP_OVERHEAD_BUDGET=0). Any compiler crash, failed build where
# the plain one succeeds, different exit status or output, or unbalanced profile fails
# the test. The sources come from Debian's gcc-12-source (build-aux/setup.sh installs
# it). Not in the sanitizer run: what it checks is the compile-time side, the same in
# that build, and the ASan runtime in every compiler would double its time.
. "$HP_SRCDIR/test/integration/lib.sh"

tarball=/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz
if [ ! -f "$tarball" ]; then
    echo "1..0 # SKIP $tarball is missing (Debian package gcc-12-source)"
    exit 0
fi
if [ -n "${HP_ASAN_RUNTIME:-}" ]; then
    echo "1..0 # SKIP sanitizer build (see the head of this test)"
    exit 0
fi
plan 2

# The unpacked folders are kept beside the test's work directory for the next run.
$PY "$HP_SRCDIR/test/corpus/run-corpus.py" --hp "$HP_BUILDDIR" \
    --files "$HP_SRCDIR/test/corpus/check.list" --work "$WORK/corpus" \
    --testsuite "$HP_BUILDDIR/test/work/gcc-testsuite" >report.md 2>progress.log
status=$?
sed 's/^/# /' report.md
if [ "$status" -eq 0 ]; then
    ok "no crash, failed build, behaviour difference or unbalanced profile"
else
    not_ok "no crash, failed build, behaviour difference or unbalanced profile (exit status $status)"
    tail -n 5 progress.log | sed 's/^/# /'
fi

# The subset really ran: 36 files, 238 compiles of which plain builds 224 (clang++ rejects
# some g++ tests), 140 programs run both ways (every one whose two builds succeed).
check_eq "files, plain builds and programs run" "238 224 140" \
    "$(awk -F' *[|] *' '$2 == "all" { gsub(/[*]/, ""); print $4, $5, $8 }' report.md)"
finish
