#!/usr/bin/python3
"""otf2_second_reader.py - reads an OTF2 archive with a second, independent reader.

    /usr/bin/python3 otf2_second_reader.py PATH/traces.otf2            (compare)
    /usr/bin/python3 otf2_second_reader.py --enters PATH/traces.otf2   (region visits)

The first reader of the tests is otf2-print (libotf2's C reader, through its text
output); this one is the otf2 Python bindings (Debian's python3-otf2), which parse the
archive with their own event classes. Compare mode reads every event with both and
exits 0 when they agree on the number of events of each type on each location, printing
"agree: E events of T types on L locations"; otherwise one line per difference and
exit 1. --enters prints "REGION LOCATION COUNT" per region visit (Enter, or
CallingContextEnter by its calling context's region), sorted, the format of lib.sh's
trace_enters and profile_visits, so a test can diff the visits of both readers and of
the profile.
"""
import re
import subprocess
import sys
from collections import Counter

import otf2
from otf2 import events as ev


def snake(name):
    """MpiIsendComplete -> MPI_ISEND_COMPLETE, otf2-print's name of the event."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


def python_counts(path):
    counts = Counter()
    with otf2.reader.open(path) as trace:
        for loc, e in trace.events:
            counts[(snake(type(e).__name__), loc._ref)] += 1
    return counts


def otf2_print_counts(path):
    out = subprocess.run(["otf2-print", path], check=True, capture_output=True, text=True).stdout
    counts = Counter()
    started = False
    for line in out.splitlines():
        if line.startswith("=====") or line.startswith("-----"):
            started = True  # the event table starts after otf2-print's header rule
            continue
        f = line.split()
        if started and len(f) >= 3 and re.fullmatch(r"[A-Z][A-Z_]+", f[0]) and f[1].isdigit():
            counts[(f[0], int(f[1]))] += 1
    return counts


def enters(path):
    visits = Counter()
    with otf2.reader.open(path) as trace:
        for loc, e in trace.events:
            if isinstance(e, ev.Enter):
                visits["%s %d" % (e.region.name, loc._ref)] += 1
            elif isinstance(e, ev.CallingContextEnter):
                visits["%s %d" % (e.calling_context.region.name, loc._ref)] += 1
    for line in sorted(("%s %d" % kv for kv in visits.items()), key=lambda s: s.encode()):
        print(line)
    return 0


def compare(path):
    py, pr = python_counts(path), otf2_print_counts(path)
    differ = 0
    for key in sorted(set(py) | set(pr)):
        if py[key] != pr[key]:
            differ += 1
            print("differ: %s on location %d: python3-otf2 %d, otf2-print %d"
                  % (key[0], key[1], py[key], pr[key]))
    if not py:
        print("differ: python3-otf2 read no events")
        return 1
    if differ:
        return 1
    print("agree: %d events of %d types on %d locations"
          % (sum(py.values()), len({k[0] for k in py}), len({k[1] for k in py})))
    return 0


def main(argv):
    args = [a for a in argv[1:] if a != "--enters"]
    if len(args) != 1:
        sys.stderr.write("usage: otf2_second_reader.py [--enters] PATH/traces.otf2\n")
        return 2
    return enters(args[0]) if "--enters" in argv else compare(args[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
