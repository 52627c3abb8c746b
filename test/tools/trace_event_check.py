#!/usr/bin/python3
"""trace_event_check.py - checks a Chrome/Perfetto trace-event JSON file.

    trace_event_check.py [--counts] [--thinning] FILE.json

Validates what the two viewers (ui.perfetto.dev, chrome://tracing) rely on, as the
trace-event format describes it:
  - the file is one JSON object with a traceEvents list (displayTimeUnit ms|ns,
    otherData an object, stackFrames an object whose parents exist);
  - every event has ph, pid, tid (integers) and the fields of its phase: M (name of
    process_name / process_sort_index / thread_name / thread_sort_index /
    process_labels, args), X (name, ts, dur >= 0), B/E (name on B, ts; balanced per
    track, E not before its B), i/I (name, ts, s in g|p|t), s/t/f (name, cat, id, ts);
  - complete events (X) of a track nest: two slices either contain one another or do
    not overlap, so that a viewer draws them as a stack;
  - every flow id has exactly one start (s) and one finish (f), the finish not before
    the start, and each end lies inside a slice of its track (the flow binds to it);
  - every "sf" names a stack frame;
  - every track (pid, tid) that has events is named by thread_name metadata and every
    process by process_name metadata.
With --thinning, also checks hp-report timeline's thinning rule against otherData
(max_per_bin, bins, length_ns): per track and bin, at most max_per_bin slices of
category "region" shorter than a bin plus samples (instants) start in it, and the kept
slices and samples plus the dropped ones are the visits and samples read.
Prints one summary line ("tracks T, processes P, slices X, instants I, flows F"); with
--counts also "REGION LOCATION COUNT" per slice name and track, where LOCATION is the
OTF2 location of the track when otherData.locations lists them (tid - 1 indexes it),
else "pid/tid", sorted, for a diff against otf2-print's Enter counts.
Exit status 0 when valid, 1 with one line per problem (at most 20 of each kind).
"""
import json
import sys
from collections import Counter, defaultdict

KNOWN_METADATA = {"process_name", "process_sort_index", "thread_name", "thread_sort_index",
                  "process_labels"}


class Problems:
    def __init__(self):
        self.count = Counter()

    def add(self, kind, text):
        self.count[kind] += 1
        if self.count[kind] <= 20:
            print("error: %s: %s" % (kind, text))

    def __bool__(self):
        return bool(self.count)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_fields(e, n, bad):
    ph = e.get("ph")
    for f in ("pid", "tid"):
        if not isinstance(e.get(f), int):
            bad.add("fields", "event %d (ph %r) lacks an integer %s" % (n, ph, f))
            return False
    need = {"M": ("name", "args"), "X": ("name", "ts", "dur"), "B": ("name", "ts"),
            "E": ("ts",), "i": ("name", "ts"), "I": ("name", "ts"),
            "s": ("name", "cat", "id", "ts"), "t": ("name", "cat", "id", "ts"),
            "f": ("name", "cat", "id", "ts")}.get(ph)
    if need is None:
        bad.add("phase", "event %d has unknown ph %r" % (n, ph))
        return False
    for f in need:
        if f not in e:
            bad.add("fields", "event %d (ph %s) lacks %s" % (n, ph, f))
            return False
    if "ts" in need and not (number(e["ts"]) and e["ts"] >= 0):
        bad.add("fields", "event %d (ph %s) has ts %r" % (n, ph, e["ts"]))
        return False
    if ph == "X" and not (number(e["dur"]) and e["dur"] >= 0):
        bad.add("fields", "event %d (X) has dur %r" % (n, e["dur"]))
        return False
    if ph in "iI" and e.get("s", "t") not in ("g", "p", "t"):
        bad.add("fields", "event %d (instant) has scope %r" % (n, e.get("s")))
    if ph == "M" and e["name"] not in KNOWN_METADATA:
        bad.add("metadata", "event %d: unknown metadata %r" % (n, e["name"]))
    return True


def check_nesting(slices, bad):
    """slices: {track: [(ts, end, name)]}; a child lies inside its parent."""
    for track, lst in slices.items():
        lst.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for ts, end, name in lst:
            while stack and stack[-1][1] <= ts:
                stack.pop()
            if stack and end > stack[-1][1]:
                bad.add("nesting", "track %s: %s [%s, %s] overlaps %s [%s, %s] partly"
                        % (track, name, ts, end, stack[-1][2], stack[-1][0], stack[-1][1]))
            stack.append((ts, end, name))


def ns(us):
    return int(round(us * 1000))


def inside_slice(lst, ts):
    return any(s <= ns(ts) <= e for s, e, _ in lst)


def check_be(events, bad):
    open_ = defaultdict(list)
    for e in sorted(events, key=lambda e: e["ts"]):
        track = (e["pid"], e["tid"])
        if e["ph"] == "B":
            open_[track].append(e)
        elif not open_[track]:
            bad.add("balance", "track %s: E at %s without B" % (track, e["ts"]))
        else:
            open_[track].pop()
    for track, left in open_.items():
        if left:
            bad.add("balance", "track %s: %d B events never ended" % (track, len(left)))


def check_flows(flows, slices, bad):
    for fid, ends in flows.items():
        kinds = Counter(e["ph"] for e in ends)
        if kinds["s"] != 1 or kinds["f"] != 1:
            bad.add("flows", "flow id %r has %d starts and %d finishes"
                    % (fid, kinds["s"], kinds["f"]))
            continue
        s = next(e for e in ends if e["ph"] == "s")
        f = next(e for e in ends if e["ph"] == "f")
        if f["ts"] < s["ts"]:
            bad.add("flows", "flow id %r finishes (%s) before it starts (%s)"
                    % (fid, f["ts"], s["ts"]))
        for e in (s, f):
            if not inside_slice(slices.get((e["pid"], e["tid"]), []), e["ts"]):
                bad.add("flows", "flow id %r: its %s at %s is in no slice of track %s"
                        % (fid, e["ph"], e["ts"], (e["pid"], e["tid"])))


def check_thinning(doc, bad):
    od = doc.get("otherData", {})
    if not od.get("max_per_bin"):
        return
    bin_ns = od["length_ns"] // od["bins"] + 1
    per_bin = Counter()
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        start = int(round(e.get("ts", 0) * 1000))
        short = ph == "X" and e.get("cat") == "region" and int(round(e["dur"] * 1000)) < bin_ns
        if short or ph == "i":
            per_bin[(e["pid"], e["tid"], min(start // bin_ns, od["bins"] - 1))] += 1
    for key, n in per_bin.items():
        if n > od["max_per_bin"]:
            bad.add("thinning", "track %s bin %d: %d thinnable events kept, more than %d"
                    % (key[:2], key[2], n, od["max_per_bin"]))
    if od["slices"] + od["samples"] + od["dropped"] != od["region_visits"] + od["samples_read"]:
        bad.add("thinning", "slices %d + samples %d + dropped %d != visits %d + samples read %d"
                % (od["slices"], od["samples"], od["dropped"], od["region_visits"],
                   od["samples_read"]))


def main(argv):
    counts = "--counts" in argv
    thinning = "--thinning" in argv
    args = [a for a in argv[1:] if a not in ("--counts", "--thinning")]
    if len(args) != 1:
        sys.stderr.write("usage: trace_event_check.py [--counts] [--thinning] FILE.json\n")
        return 2
    try:
        with open(args[0]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as err:
        print("error: %s: not readable JSON: %s" % (args[0], err))
        return 1
    bad = Problems()
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("error: %s: not an object with a traceEvents list" % args[0])
        return 1
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        bad.add("top", "displayTimeUnit %r" % doc["displayTimeUnit"])
    if not isinstance(doc.get("otherData", {}), dict):
        bad.add("top", "otherData is not an object")
    frames = doc.get("stackFrames", {})
    for k, fr in frames.items():
        if "name" not in fr or ("parent" in fr and str(fr["parent"]) not in frames):
            bad.add("stackFrames", "frame %s: no name or unknown parent" % k)

    slices, be, flows = defaultdict(list), [], defaultdict(list)
    used, thread_names, process_names = set(), {}, set()
    n_inst = 0
    for n, e in enumerate(doc["traceEvents"]):
        if not isinstance(e, dict) or not check_fields(e, n, bad):
            continue
        ph, track = e["ph"], (e["pid"], e["tid"])
        if ph == "M":
            if e["name"] == "thread_name":
                thread_names[track] = e["args"].get("name")
            elif e["name"] == "process_name":
                process_names.add(e["pid"])
            continue
        used.add(track)
        if "sf" in e and str(e["sf"]) not in frames:
            bad.add("stackFrames", "event %d names unknown frame %r" % (n, e["sf"]))
        if ph == "X":
            # in integer nanoseconds: ts + dur in floats may end 1 ulp off its child's end
            start = ns(e["ts"])
            slices[track].append((start, start + ns(e["dur"]), e["name"]))
        elif ph in "BE":
            be.append(e)
        elif ph in "iI":
            n_inst += 1
        elif ph in "sf":
            flows[e["id"]].append(e)
    for track in sorted(used):
        if track not in thread_names:
            bad.add("metadata", "track %s has events but no thread_name" % (track,))
        if track[0] not in process_names:
            bad.add("metadata", "process %d has events but no process_name" % track[0])
    check_nesting(slices, bad)
    check_be(be, bad)
    check_flows(flows, slices, bad)
    if thinning:
        check_thinning(doc, bad)

    n_slices = sum(len(v) for v in slices.values())
    print("tracks %d, processes %d, slices %d, instants %d, flows %d"
          % (len(thread_names), len(process_names), n_slices, n_inst, len(flows)))
    if counts:
        locs = doc.get("otherData", {}).get("locations")
        per = Counter()
        for (pid, tid), lst in slices.items():
            loc = locs[tid - 1] if locs and 0 < tid <= len(locs) else "%d/%d" % (pid, tid)
            for _, _, name in lst:
                per["%s %s" % (name, loc)] += 1
        for line in sorted(("%s %d" % kv for kv in per.items()), key=lambda s: s.encode()):
            print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
