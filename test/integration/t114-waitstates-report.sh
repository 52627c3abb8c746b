#!/bin/sh
# Where the wait states show (doc/wait-states.md): Cube metrics nested as in Scalasca's
# metric tree with Scalasca's unique and display names, values that a Cube browser can
# take as metric-inclusive (a parent holds at least its children), the hp-report table in
# text and CSV, the HTML report's per-rank bar of computation / communication / waiting
# (rendered by headless Chromium when installed), the Cube tools when installed, and the
# same results with tracing on.
# test/programs/mpi/waitstates.c "coll" gives collective patterns on 4 real MPICH ranks.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 12

check "build waitstates.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o waitstates "$MPIPROGS/waitstates.c"
check "measured run with tracing on" \
    mpirun4 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp ./waitstates coll
check "cubecheck.py passes" cubecheck exp/profile.cubex
check "the trace was written too" test -f exp/traces.otf2

# Every wait-state metric with its chain of parents up to the root, from the anchor.
$PY - exp/profile.cubex > tree.txt <<'PYEOF'
import sys, tarfile, xml.etree.ElementTree as ET
anchor = tarfile.open(sys.argv[1]).extractfile("anchor.xml").read()
root = ET.fromstring(anchor).find("metrics")
def walk(node, chain):
    for m in node.findall("metric"):
        name = m.findtext("uniq_name")
        path = chain + [name]
        print(" > ".join(path) + "\t" + m.findtext("disp_name"))
        walk(m, path)
walk(root, [])
PYEOF
cat > expected-tree.txt <<'EOF2'
time > mpi	MPI
time > mpi > mpi_synchronization	Synchronization
time > mpi > mpi_synchronization > mpi_sync_collective	Collective
time > mpi > mpi_synchronization > mpi_sync_collective > mpi_barrier_wait	Wait at Barrier
time > mpi > mpi_synchronization > mpi_sync_collective > mpi_barrier_completion	Barrier Completion
time > mpi > mpi_communication	Communication
time > mpi > mpi_communication > mpi_point2point	Point-to-point
time > mpi > mpi_communication > mpi_point2point > mpi_latesender	Late Sender
time > mpi > mpi_communication > mpi_point2point > mpi_latesender > mpi_latesender_wo	Messages in Wrong Order
time > mpi > mpi_communication > mpi_point2point > mpi_latesender > mpi_latesender_wo > mpi_lswo_different	From different sources
time > mpi > mpi_communication > mpi_point2point > mpi_latesender > mpi_latesender_wo > mpi_lswo_same	From same source
time > mpi > mpi_communication > mpi_point2point > mpi_latereceiver	Late Receiver
time > mpi > mpi_communication > mpi_collective	Collective
time > mpi > mpi_communication > mpi_collective > mpi_earlyreduce	Early Reduce
time > mpi > mpi_communication > mpi_collective > mpi_earlyscan	Early Scan
time > mpi > mpi_communication > mpi_collective > mpi_latebroadcast	Late Broadcast
time > mpi > mpi_communication > mpi_collective > mpi_wait_nxn	Wait at N x N
time > mpi > mpi_communication > mpi_collective > mpi_nxn_completion	N x N Completion
EOF2
check "Scalasca's metric tree below time, with Scalasca's names" \
    diff -u expected-tree.txt tree.txt -I '^[a-z_]*	' --ignore-matching-lines='^time	'

# Metric-inclusive values: at every call path and rank, a parent >= the sum of its children.
$CUBEDUMP exp/profile.cubex > dump.txt
check "every parent holds at least its children (call path x rank)" awk -F'\t' '
    function v(k) { return val[k "_incl"] + 0 }
    {
        split("", val)
        for (i = 3; i <= NF; i++) { k = $i; sub(/=.*/, "", k); x = $i; sub(/^[^=]*=/, "", x); val[k] = x }
        e = 1e-6 # cubedump prints 9 decimals of each
        if (v("mpi") + e < v("mpi_synchronization") + v("mpi_communication")) bad = bad $1 " mpi\n"
        if (v("mpi_communication") + e < v("mpi_point2point") + v("mpi_collective")) bad = bad $1 " comm\n"
        if (v("mpi_collective") + e < v("mpi_wait_nxn") + v("mpi_nxn_completion") + v("mpi_latebroadcast") + v("mpi_earlyreduce") + v("mpi_earlyscan")) bad = bad $1 " coll\n"
        if (v("mpi_sync_collective") + e < v("mpi_barrier_wait") + v("mpi_barrier_completion")) bad = bad $1 " barrier\n"
        if (v("time") + e < v("mpi")) bad = bad $1 " time\n"
    }
    END { printf "%s", bad; exit bad != "" }' dump.txt

check "hp-report prints the table" sh -c \
    'hp-report exp | grep -A4 "^Waiting time by cause" | grep -Eq "^Late Sender +[0-9]"'
check "hp-report --format csv has its rows keyed by Scalasca's names" sh -c \
    'hp-report exp --format csv | grep -Eq "^Wait at N x N,mpi_wait_nxn,[0-9.]+,[0-9.]+,main/nxn/one_late/allreduce/MPI_Allreduce \(rank [012]: "'
check "the coverage note is in the profile (hp-report reads it back)" sh -c \
    'hp-report exp | grep -q "^coverage: 100.0% of [0-9]* communicating MPI calls kept"'
check "hp-report html writes the page" hp-report html exp -o page.html
if command -v chromium >/dev/null 2>&1; then
    profile_dir=$(mktemp -d "$WORK/chrome.XXXXXX")
    unsanitized timeout -k 10 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$profile_dir" --dump-dom "file://$WORK/page.html" >page.dom 2>chrome.err
    check "the per-rank bar shows the waiting of each of the 4 ranks" sh -c '
        test "$(grep -o "[0-9.]*% MPI, [0-9.]*% waiting" page.dom | wc -l)" -eq 4 &&
        test "$(grep -Eo "<title>MPI waiting [0-9.]+ [mu]?s</title>" page.dom | wc -l)" -eq 4'
else
    skip "the per-rank bar shows the waiting of each of the 4 ranks" "chromium not installed"
fi
if command -v cube_dump >/dev/null 2>&1; then
    check "cube_dump reads the wait-state metric" sh -c \
        'cube_dump -m mpi_wait_nxn exp/profile.cubex | grep -q .'
else
    skip "cube_dump reads the wait-state metric" "Cube tools not installed"
fi
finish
