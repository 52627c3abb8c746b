#!/bin/sh
# hp-report timeline (issue 25, items 3 and 5): an experiment's OTF2 trace as
# Chrome/Perfetto trace-event JSON, read back by test/tools/trace_event_check.py (the
# format's fields per phase, slices nested per track, one start and one finish per flow,
# each inside a slice of its track, stack frames, track and process names). On real runs
# (serial calltree.c, 4-thread threads.c, 4-rank traffic.c, sampled busy_paths.c):
# slices per region and track = the trace's Enter events (otf2-print) = the profile's
# visits; flows = the 24 messages of traffic.c (and the 12000 of thread_requests.c, sent
# and received by threads); instants = the trace's samples. The
# second reader, the otf2 Python bindings (otf2_second_reader.py), agrees with
# otf2-print on every event type and location of every trace here, and its visits equal
# the profile's. Thinning (loop.c, 100000 calls): at most 10 short slices per track and
# 1/2000 of the run, every MPI call kept, kept + dropped = read; --no-thinning keeps all.
# A trace in the calling-context layout (CallingContextEnter/Leave) converts the same way;
# a visit open at the trace's end ends there and is counted.
# Bad input gives exit status 2 and a message naming it.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 56
TECHECK="$PY $HP_SRCDIR/test/tools/trace_event_check.py"
READER2="$PY $HP_SRCDIR/test/tools/otf2_second_reader.py"

# other FIELD FILE.json: a number of the JSON's otherData
other() {
    $PY -c 'import json, sys; print(json.load(open(sys.argv[2]))["otherData"][sys.argv[1]])' "$1" "$2"
}

# timeline_matches NAME EXP [PER_RANK]: the JSON of EXP (no thinning) passes the checker,
# its slices are the trace's Enter events and the profile's visits, and the second reader
# agrees with otf2-print and the profile. 4 test points.
timeline_matches() {
    check "$1: timeline JSON written" hp-report timeline "$2" --no-thinning -o "$1.json"
    $TECHECK --counts "$1.json" > "$1.counts" 2> "$1.err"
    check "$1: trace-event checker passes" test $? -eq 0 -a ! -s "$1.err"
    trace_enters "$2/traces.otf2" > "$1.enters"
    profile_visits "$2/profile.cubex" ${3:-} > "$1.visits"
    check "$1: slices per region and track = otf2-print's Enters = profile visits" \
        sh -c "tail -n +2 $1.counts | diff -u $1.enters - && diff -u $1.visits $1.enters"
    $READER2 --enters "$2/traces.otf2" > "$1.py-enters"
    check "$1: python3-otf2 agrees with otf2-print, its visits with the profile" \
        sh -c "$READER2 $2/traces.otf2 && diff -u $1.visits $1.py-enters"
}

# --- serial, threads
check "build calltree.c" hp-instrument gcc -O1 -o calltree "$PROGRAMS/calltree.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp check "run with tracing" ./calltree
timeline_matches serial exp
check_eq "serial: one process, one track" "tracks 1, processes 1" \
    "$(head -1 serial.counts | cut -d, -f1,2)"

check "build threads.c" hp-instrument gcc -O1 -pthread -o threads "$PROGRAMS/threads.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=thr check "run threads with tracing" ./threads
timeline_matches threads thr
check_eq "threads: one process, a track per location of the trace" \
    "tracks $(otf2-print -G thr/traces.otf2 | grep -c '^LOCATION '), processes 1" \
    "$(head -1 threads.counts | cut -d, -f1,2)"

# --- 4 ranks with messages
check "build traffic.c" hp-instrument mpicc -O1 -o traffic "$PROGRAMS/mpi/traffic.c"
check "traffic.c on 4 ranks with tracing" mpirun4 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=mpi ./traffic
timeline_matches mpi mpi 1
check_eq "mpi: OTF2 events read = otf2-print's events (as python3-otf2 counts them)" \
    "$($READER2 mpi/traces.otf2 | sed -n 's/^agree: \([0-9]*\) events.*/\1/p')" "$(other events_read mpi.json)"
check_eq "mpi: 4 processes (ranks), 4 tracks" "tracks 4, processes 4" \
    "$(head -1 mpi.counts | cut -d, -f1,2)"
check_eq "mpi: 24 flow arrows, one per message (otf2check: 24 matched pairs)" "24 24 0 0" \
    "$(sed -n 's/.*flows \([0-9]*\)$/\1/p' mpi.counts) $(other messages mpi.json) \
$(other unmatched_sends mpi.json) $(other unmatched_receives mpi.json)"
check_eq "mpi: flow starts sit on the senders' MPI calls, finishes on the receivers'" "24 24" \
    "$($PY -c '
import json, sys
d = json.load(open("mpi.json"))["traceEvents"]
mpi = {}
for e in d:
    if e["ph"] == "X" and e["cat"] == "mpi":
        mpi.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
n = {"s": 0, "f": 0}
for e in d:
    if e["ph"] in "sf" and any(a <= e["ts"] <= b for a, b in mpi[(e["pid"], e["tid"])]):
        n[e["ph"]] += 1
print(n["s"], n["f"])')"

# MPI from threads (thread_requests.c, 2 ranks x 2 threads x 3000 Isend/Irecv): the
# communicator names a rank's process, any thread of it sends or receives; all 12000
# messages become flows between the threads that sent and received them.
check "build thread_requests.c" hp-instrument mpicc -O1 -o thrreq "$PROGRAMS/mpi/thread_requests.c" -lpthread
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=thrmpi check "thread_requests.c on 2 ranks with tracing" \
    timeout 120 mpiexec -n 2 ./thrreq
hp-report timeline thrmpi -o thrmpi.json
check_eq "MPI from threads: 12000 flows, none unmatched, checker passes" "12000 0 0 ok" \
    "$(other messages thrmpi.json) $(other unmatched_sends thrmpi.json) \
$(other unmatched_receives thrmpi.json) $($TECHECK thrmpi.json > /dev/null && echo ok)"

# --- samples
check "build busy_paths.c with --nocompiler" \
    hp-instrument --nocompiler gcc -O1 -g -o busy "$PROGRAMS/sampling/busy_paths.c"
HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=smp \
    check "run with tracing and sampling at 1 kHz" ./busy 200
check "samples: timeline JSON written" hp-report timeline smp --no-thinning -o smp.json
check "samples: trace-event checker passes (stack frames resolve)" $TECHECK smp.json
nsamples=$(otf2-print smp/traces.otf2 | grep -c '^CALLING_CONTEXT_SAMPLE')
check_eq "samples: one instant per CallingContextSample ($nsamples), none lost" \
    "$nsamples $nsamples" "$(sed -n 's/.*instants \([0-9]*\),.*/\1/p' last.out) $(other samples smp.json)"
check "samples: a sample's stack frame chain is a busy path" $PY -c '
import json
d = json.load(open("smp.json"))
fr = d["stackFrames"]
def path(f):
    names = []
    while f is not None:
        names.insert(0, fr[str(f)]["name"]); f = fr[str(f)].get("parent")
    return "/".join(names)
paths = {path(e["sf"]) for e in d["traceEvents"] if e["ph"] == "i"}
assert any(p.endswith("main/rounds/outer/spin_deep") for p in paths), paths'
check "samples: python3-otf2 agrees with otf2-print" $READER2 smp/traces.otf2

# --- the calling-context layout (issue 25 item 1: traces written with sampling on use
# CallingContextEnter/Leave instead of Enter/Leave): a small archive written with the
# otf2 Python bindings, main > work x 3 with a sample of main > work > leaf in each.
cat > cc.py <<'PY'
import sys
import otf2
with otf2.writer.open(sys.argv[1], timer_resolution=1000000000) as trace:
    d = trace.definitions
    grp = d.location_group("Process", system_tree_parent=d.system_tree_node("machine"))
    w = trace.event_writer_from_location(d.location("Master thread", group=grp))
    scl = d.source_code_location("x.c", 1)
    main = d.calling_context(d.region("main"), scl, parent=None)
    work = d.calling_context(d.region("work"), scl, parent=main)
    leaf = d.calling_context(d.region("leaf"), scl, parent=work)
    gen = d.interrupt_generator("timer", otf2.InterruptGeneratorMode.TIME, otf2.Base.DECIMAL, 0, 1000000)
    w.calling_context_enter(1000, main, 1)
    for t in (1010, 1035, 1060):
        w.calling_context_enter(t, work, 1)
        w.calling_context_sample(t + 5, leaf, 2, gen)
        w.calling_context_leave(t + 15, work)
    if len(sys.argv) < 3:  # "open": main is never left, as in a run ended by a signal
        w.calling_context_leave(1085, main)
PY
$PY cc.py ccx
$PY cc.py ccopen open
hp-report timeline ccx --no-thinning -o cc.json
check_eq "calling-context trace: slices main 1, work 3 (the Python reader's visits), 3 samples" \
    "tracks 1, processes 1, slices 4, instants 3, flows 0
$($READER2 --enters ccx/traces.otf2)" "$($TECHECK --counts cc.json)"
check_eq "calling-context trace: work from 10 to 25 ns, a sample's path is main/work/leaf" \
    "0.010 0.015 main/work/leaf" "$($PY -c '
import json
d = json.load(open("cc.json"))
fr, ev = d["stackFrames"], d["traceEvents"]
w = [e for e in ev if e.get("name") == "work"][0]
s = [e for e in ev if e["ph"] == "i"][0]
names, f = [], str(s["sf"])
while f in fr:
    names.insert(0, fr[f]["name"]); f = str(fr[f].get("parent"))
print("%.3f %.3f %s" % (w["ts"], w["dur"], "/".join(names)))')"

hp-report timeline ccopen --no-thinning -o ccopen.json
check_eq "a visit left open at the trace's end ends there, counted: 4 slices, 1 unclosed" \
    "4 1" "$(other slices ccopen.json) $(other unclosed_visits ccopen.json)"

# --- thinning
check "build loop.c" hp-instrument gcc -O1 -o loop "$PROGRAMS/loop.c"
HP_OVERHEAD_BUDGET=0 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=big \
    check "run loop.c with tracing" ./loop
check "thinned timeline written (default rule)" hp-report timeline big -o big.json
check "thinned: checker passes and the stated rule holds" $TECHECK --thinning big.json
visits=$(otf2-print big/traces.otf2 | grep -c '^ENTER ')
check_eq "thinned: visits read = the trace's Enters; kept + dropped = read" \
    "$visits $visits" "$(other region_visits big.json) \
$(($(other slices big.json) + $(other dropped big.json)))"
check "thinned: far fewer slices than visits (rule at most 10 per bin and track)" \
    test "$(other slices big.json)" -lt $((visits / 4))
check "thinned: the rule is stated in otherData" sh -c \
    "grep -q '\"thinning\":\"per track, the run is cut into 2000 bins' big.json"
hp-report timeline mpi --max-per-bin 1 -o mpi1.json
check_eq "thinned to 1 per bin: every MPI call and all 24 messages kept" \
    "$(awk '/^MPI_/ { n += $3 } END { print n }' mpi.enters) 24" \
    "$($PY -c 'import json; d = json.load(open("mpi1.json"))["traceEvents"]
print(sum(e["ph"] == "X" and e["cat"] == "mpi" for e in d), sum(e["ph"] == "s" for e in d))')"
check "--no-thinning keeps all $visits" sh -c \
    "hp-report timeline big --no-thinning -o all.json && test \$($TECHECK all.json | sed 's/.*slices \([0-9]*\),.*/\1/') -eq $visits"
check "big: python3-otf2 agrees with otf2-print" $READER2 big/traces.otf2

# --- a region name with JSON's and HTML's special characters, UTF-8 and a stray byte
printf '%s\n' '#include <hp/user.h>' 'HP_USER_REGION_DEFINE(odd);' \
    'int main(void) { HP_USER_REGION_BEGIN(odd, "a\"b\\</script>\303\251\t\377", 0); HP_USER_REGION_END(odd); return 0; }' \
    > odd.c
check "build a program with a region named a\"b\\</script>é<TAB><0xff>" hp-instrument gcc -O1 -o odd odd.c
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=oddexp ./odd
hp-report timeline oddexp -o odd.json
hp-report timeline oddexp --format html -o odd.html
check_eq "the name reads back from the JSON and the page's JSON, the stray byte as U+FFFD" \
    '"a\"b\\</script>\u00e9\t\ufffd" 1 1' "$($PY -c '
import json, re
names = {e["name"] for e in json.load(open("odd.json"))["traceEvents"] if e["ph"] == "X"}
page = open("odd.html", encoding="utf-8").read()
d = json.loads(re.search(r"<script id=\"data\" type=\"application/json\">(.*?)</script>", page, re.S).group(1))
odd = [n for n in names if n.startswith("a")]
print(json.dumps(odd[0]), len(odd), int(odd[0] in d["names"]))')"

# A rank killed before it wrote its event file: the other ranks are drawn (traffic.c's
# ranks make the same calls: 3/4 of the slices), with a note naming the location.
rm -rf miss && cp -r mpi miss && rm miss/traces/4294967296.evt
hp-report timeline miss --no-thinning -o miss.json 2> miss.err
check_eq "rank 1's .evt missing: status 0, one note, 3/4 of the slices, the checker passes" \
    "0 1 $(( $(head -1 mpi.counts | sed 's/.*slices \([0-9]*\),.*/\1/') * 3 / 4 )) 0" \
    "$? $(grep -c '^hp-report timeline: miss/traces.otf2: note: location 4294967296 has no event file' miss.err) \
$($TECHECK miss.json | sed 's/.*slices \([0-9]*\),.*/\1/') $($TECHECK miss.json | grep -c '^error')"

# --- the checker itself rejects what a viewer would draw wrongly
printf '%s\n' '{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}},' \
    '{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":10},' \
    '{"ph":"s","name":"m","cat":"c","id":1,"pid":1,"tid":1,"ts":1},{"ph":"X","pid":1,"tid":1,"ts":1}]}' > bad.json
$TECHECK bad.json > bad.out
check_eq "checker: a partly overlapping slice, a flow without finish, a slice without name and dur, no process name" \
    "1 1 1 1" "$(grep -c '^error: nesting: track (1, 1): b' bad.out) $(grep -c '^error: flows: flow id 1 has 1 starts and 0 finishes' bad.out) \
$(grep -c '^error: fields: event 4 (ph X) lacks' bad.out) $(grep -c '^error: metadata: process 1 has events but no process_name' bad.out)"

# --- bad input
expect_fail "no trace in the experiment: named, with the fix" \
    "nodir: No such file|has no traces.otf2 \(run with HP_ENABLE_TRACING=true" \
    sh -c 'mkdir -p notrace && hp-report timeline notrace -o x.json'
expect_fail "a file that is not OTF2: named" "serial.json: not an OTF2 archive" \
    hp-report timeline serial.json -o x.json
expect_fail "a bad --format: named with the accepted ones" "--format 'svg': expected json or html" \
    hp-report timeline exp --format svg -o x.svg
hp-report timeline exp -o nodir/x.json 2> unwritable.err
check_eq "an output that cannot be written: named, status 2 (as hp-report html)" \
    "2 1" "$? $(grep -c '^hp-report timeline: nodir/x.json: cannot write: No such file' unwritable.err)"
# traces.def cut anywhere from byte 20 on: exit status 2 and the archive named, never a
# crash (the unfixed reader crashed on most lengths from 180 bytes on here). Without its
# last byte only, the file still reads whole.
cut_status() {
    size=$(wc -c < exp/traces.def)
    for n in $(seq 20 $((size - 2))); do
        rm -rf cut && cp -r exp cut && truncate -s $n cut/traces.def
        hp-report timeline cut -o cut.json 2> cut.err
        rc=$?
        if [ $rc -ne 2 ] || ! grep -q 'cut/traces.otf2: libotf2 could not read the trace' cut.err; then
            echo "length $n: status $rc"; cat cut.err
        fi
    done
}
check_eq "traces.def cut to every length from 20 bytes to all but its last byte: status 2 and a message each time" \
    "" "$(cut_status)"
finish
