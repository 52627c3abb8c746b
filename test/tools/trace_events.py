#!/usr/bin/python3
"""trace_events.py - event counts of an OTF2 archive read with the python3-otf2 bindings,
for the integration tests: a second reader next to otf2-print.

    trace_events.py kinds PATH/traces.otf2
        one line per event kind and location: KIND LOCATION COUNT, sorted, KIND in
        otf2-print's spelling (CallingContextEnter -> CALLING_CONTEXT_ENTER)
    trace_events.py visits PATH/traces.otf2
        one line per region and location: REGION LOCATION COUNT of its Enter and
        CallingContextEnter events (the region of the entered calling context), sorted
        as lib.sh's trace_enters prints them

Exit status 1 when a CallingContextEnter names no calling context, a location's
CallingContextLeave events do not close its CallingContextEnter events innermost first,
or some stay open at its end; 2 on bad usage.
"""

import collections
import re
import sys

import otf2
from otf2 import events as ev


def print_name(event):
    """CallingContextEnter -> CALLING_CONTEXT_ENTER, MpiIsend -> MPI_ISEND."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type(event).__name__).upper()


def read(path):
    kinds = collections.Counter()
    visits = collections.Counter()
    open_contexts = collections.defaultdict(list)
    bad = []
    with otf2.reader.open(path) as trace:
        for loc, e in trace.events:
            kinds[(print_name(e), loc._ref)] += 1
            if isinstance(e, ev.Enter):
                visits[(e.region.name, loc._ref)] += 1
            elif isinstance(e, ev.CallingContextEnter):
                if e.calling_context is None:
                    bad.append("location %d t=%d: CallingContextEnter without a context"
                               % (loc._ref, e.time))
                    continue
                visits[(e.calling_context.region.name, loc._ref)] += 1
                open_contexts[loc._ref].append(e.calling_context._ref)
            elif isinstance(e, ev.CallingContextLeave):
                stack = open_contexts[loc._ref]
                if not stack or e.calling_context is None or \
                        stack[-1] != e.calling_context._ref:
                    bad.append("location %d t=%d: CallingContextLeave is not of the innermost "
                               "open context" % (loc._ref, e.time))
                else:
                    stack.pop()
    for loc, stack in open_contexts.items():
        if stack:
            bad.append("location %d: %d calling contexts never left" % (loc, len(stack)))
    return kinds, visits, bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("kinds", "visits"):
        sys.stderr.write("usage: trace_events.py kinds|visits PATH/traces.otf2\n")
        sys.exit(2)
    kinds, visits, bad = read(sys.argv[2])
    counts = kinds if sys.argv[1] == "kinds" else visits
    lines = ["%s %d %d" % (k[0], k[1], n) for k, n in counts.items()]
    sys.stdout.write("".join(line + "\n" for line in sorted(lines)))
    for msg in bad:
        sys.stderr.write(msg + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
