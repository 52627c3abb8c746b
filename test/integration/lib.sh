# Shared helpers for the integration tests (sourced, POSIX sh + bash).
#
# The harness (Makefile.am, AM_TESTS_ENVIRONMENT) exports:
#   HP_SRCDIR      absolute top source directory
#   HP_BUILDDIR    absolute top build directory
#   PATH           starts with the build tree's bin wrappers (hp-instrument, hp-info)
#   HP_INSTRUMENT_LIBDIR  where hp-instrument finds libhpmeasure in the build tree
# The format checkers are in test/tools, the sample files in test/data (SOURCES.md).
# Each test prints TAP: `plan N` first, then `check`/`ok`/`not_ok` lines, then `finish`.
# Work happens in a fresh directory under $HP_BUILDDIR/test/work/<test name>.

set -u
hp_test_name=$(basename "$0" .sh)
hp_count=0
hp_failed=0
WORK="$HP_BUILDDIR/test/work/$hp_test_name"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 99
PROGRAMS="$HP_SRCDIR/test/programs"
PY=/usr/bin/python3
CUBEDUMP="$PY $HP_SRCDIR/test/tools/run_deep.py $HP_SRCDIR/test/tools/cubedump.py"
CUBECHECK="$PY $HP_SRCDIR/test/tools/run_deep.py $HP_SRCDIR/test/tools/cubecheck.py"
# Sanitizer builds (configure --enable-sanitizers, doc/testing.md): the programs a test
# builds with hp-instrument are not built with ASan but load the ASan-built libhpmeasure,
# whose runtime must come first, so it is preloaded into every command the test starts.
# Compilers, python and mpiexec then run with it too, hence no leak checks here (the unit
# tests keep them); hp-run puts its library in front of the runtime, which is safe (it
# defines no allocator), hence verify_asan_link_order=0.
if [ -n "${HP_ASAN_RUNTIME:-}" ]; then
    LD_PRELOAD="$HP_ASAN_RUNTIME${LD_PRELOAD:+:$LD_PRELOAD}"
    ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export LD_PRELOAD ASAN_OPTIONS
fi

# unsanitized CMD ARGS... : runs CMD without the preloaded ASan runtime in a sanitizer
# build (for programs that do not load libhpmeasure and cannot run with it, such as
# chromium, or whose output shows LD_PRELOAD); just runs it otherwise.
unsanitized() {
    if [ -n "${HP_ASAN_RUNTIME:-}" ]; then
        env -u LD_PRELOAD -u ASAN_OPTIONS "$@"
    else
        "$@"
    fi
}
# Keep experiments from one test from reading the filter or settings of the caller.
unset HP_FILTERING_FILE HP_EXPERIMENT_DIRECTORY HP_TOTAL_MEMORY HP_TIMER HP_VERBOSE

# have_chromium: true when `chromium` is on PATH; as root it is installed (apt-get)
# first when missing. Tests that drive a browser skip those checks when false.
have_chromium() {
    command -v chromium >/dev/null 2>&1 && return 0
    [ "$(id -u)" -eq 0 ] || return 1
    echo "# installing chromium (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
        >"$WORK/apt.log" 2>&1 ||
        { apt-get update -qq >>"$WORK/apt.log" 2>&1 &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
                >>"$WORK/apt.log" 2>&1; }
    command -v chromium >/dev/null 2>&1
}

# chrome NAME ARGS... : headless Chromium with a fresh profile directory, no network
# services; stderr (with the page's console) goes to $WORK/NAME.err.
chrome() {
    _n=$1
    shift
    _profile=$(mktemp -d "$WORK/chrome-profile.XXXXXX")
    unsanitized timeout -k 10 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$_profile" --enable-logging=stderr --v=0 "$@" 2>"$WORK/$_n.err"
    _rc=$?
    rm -rf "$_profile"
    return $_rc
}

plan() { echo "1..$1"; }

ok() {
    hp_count=$((hp_count + 1))
    echo "ok $hp_count - $*"
}

not_ok() {
    hp_count=$((hp_count + 1))
    hp_failed=$((hp_failed + 1))
    echo "not ok $hp_count - $*"
}

# check "description" command args... : ok when the command exits 0. Output goes to
# $WORK/last.out / last.err so that a failure can be inspected (and is printed as a
# TAP comment).
check() {
    desc=$1
    shift
    if "$@" >"$WORK/last.out" 2>"$WORK/last.err"; then
        ok "$desc"
    else
        not_ok "$desc"
        sed 's/^/# /' "$WORK/last.out" "$WORK/last.err" | head -40
    fi
}

# check_eq "description" expected actual
check_eq() {
    if [ "$2" = "$3" ]; then
        ok "$1"
    else
        not_ok "$1"
        echo "# expected: $2"
        echo "# actual:   $3"
    fi
}

# expect_fail "description" pattern command args... : ok when the command fails and
# its stderr contains the (grep -E) pattern.
expect_fail() {
    desc=$1
    pattern=$2
    shift 2
    if "$@" >"$WORK/last.out" 2>"$WORK/last.err"; then
        not_ok "$desc (command succeeded)"
    elif grep -Eq -- "$pattern" "$WORK/last.err"; then
        ok "$desc"
    else
        not_ok "$desc (stderr lacks /$pattern/)"
        sed 's/^/# /' "$WORK/last.err" | head -20
    fi
}

# Every profile a test wrote must meet the rules of the strictest Cube readers
# (doc/formats/cube-reader-rules.md), checked when the test finishes: cubecheck.py
# --reader-rules on each .cubex under $WORK that hpmeasure wrote (its anchor.xml, the
# first member, names hpmeasure as the Creator; the broken files that tests make by
# hand do not), and CubeLib's cube_dump where it is installed. A test that makes
# hpmeasure write a broken profile on purpose names it (a find -path pattern relative
# to $WORK) in HP_READER_RULES_EXEMPT. A failure adds one "not ok".
reader_rules() {
    find "$WORK" -name '*.cubex' -type f ! -path "$WORK/${HP_READER_RULES_EXEMPT:-.none}" |
        LC_ALL=C sort | while read -r f; do
            head -c 4096 "$f" | grep -aq '<attr key="Creator" value="hpmeasure' && echo "$f"
        done > "$WORK/reader-rules.list"
    n=$(wc -l < "$WORK/reader-rules.list")
    [ "$n" -gt 0 ] || return 0
    if ! xargs $CUBECHECK --reader-rules < "$WORK/reader-rules.list" \
            > "$WORK/reader-rules.out" 2>&1; then
        not_ok "the $n profiles this test wrote meet the Cube reader rules"
        grep -v ' PASS ' "$WORK/reader-rules.out" | sed 's/^/# /' | head -20
        return 0
    fi
    if command -v cube_dump > /dev/null 2>&1; then
        while read -r f; do
            if ! unsanitized cube_dump "$f" > /dev/null 2> "$WORK/reader-rules.err"; then
                not_ok "CubeLib's cube_dump reads $f"
                sed 's/^/# /' "$WORK/reader-rules.err" | head -10
                return 0
            fi
        done < "$WORK/reader-rules.list"
        echo "# CubeLib's cube_dump reads the $n profile(s)"
    else
        echo "# SKIP cube_dump: not installed, CubeLib's own reader not tried on the $n profile(s)"
    fi
    echo "# $n profile(s) meet the Cube reader rules"
}

finish() {
    reader_rules
    [ "$hp_failed" -eq 0 ]
    exit $?
}

# "region location count" of the ENTER events of an OTF2 archive, sorted; in hybrid
# traces (sampling on) of the CALLING_CONTEXT_ENTER events, by their context's region.
trace_enters() {
    otf2-print "$1" | awk '$1 == "ENTER" { loc = $2; sub(/^.*Region: "/, ""); sub(/" <[0-9]+>$/, "")
                                           n[$0 " " loc]++ }
                           $1 == "CALLING_CONTEXT_ENTER" { loc = $2; sub(/^.*Calling Context: "/, "")
                                           sub(/" <[0-9]+>, Unwind Distance: [0-9]+$/, "")
                                           n[$0 " " loc]++ }
                          END { for (k in n) print k, n[k] }' | LC_ALL=C sort
}

# "KIND location count" of the events otf2-print shows, sorted (trace_events.py kinds
# gives the same from the Python reader).
trace_kinds() {
    otf2-print "$1" | awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && NF > 2 { n[$1 " " $2]++ }
                          END { for (k in n) print k, n[k] }' | LC_ALL=C sort
}

# The same from a profile: "region location visits" summed over call paths, with the
# trace's location ids (rank << 32 | thread; pass the number of threads per rank, 1 for
# MPI jobs, or 0 when location index = thread, i.e. one process).
profile_visits() {
    $CUBEDUMP "$1" | awk -F'\t' -v per_rank="${2:-0}" '
        { n = split($1, p, "/"); sub("visits=", "", $3)
          loc = per_rank > 0 ? sprintf("%.0f", int($2 / per_rank) * 4294967296 + $2 % per_rank) : $2
          if ($3 > 0) v[p[n] " " loc] += $3 }
        END { for (k in v) printf "%s %d\n", k, v[k] }' | LC_ALL=C sort
}

# trace_covers DIR NLOC: every location's samples in DIR/traces.otf2 reach from before
# its 200th message event to within 2 sampling periods of its end, at least 100 each,
# NLOC locations (sample_span.py: loc n first last end gap message-200; its output kept
# in DIR.span). For MPI jobs that compute before each message (ping-pong): the start is
# measured in the program's progress, not in seconds, which MPI_Init alone can take on a
# loaded machine; 200 messages leave room for 2^6 samples per kept one (halvings).
trace_covers() {
    $PY "$HP_SRCDIR/test/tools/sample_span.py" "$1/traces.otf2" > "$1.span" &&
        unsanitized awk -F'\t' -v want="$2" '{ n++; if ($2 < 100 || $7 == "-" || $3 >= $7 + 0 ||
                                                       $4 <= $5 - 1 || $6 > 2) bad = 1 }
                                             END { exit bad || n != want }' "$1.span"
}

# trace_matched DIR: otf2check.py (hybrid samples allowed) passes on DIR/traces.otf2 and
# every send it saw is matched (its report kept in DIR.check)
trace_matched() {
    $PY "$HP_SRCDIR/test/tools/otf2check.py" "$1/traces.otf2" > "$1.check" &&
        grep -Eq 'p2p: ([0-9]+) sends, \1 receives, \1 matched pairs' "$1.check" &&
        ! grep -q unmatched "$1.check"
}

# without_asan_ld_warnings FILE: FILE without the linker's warnings about libasan's own
# tmpnam calls, which every link of a sanitizer build prints (doc/testing.md).
without_asan_ld_warnings() {
    grep -v '^/usr/bin/ld: .*libasan[.]so.*: warning: the use of' "$1"
}
