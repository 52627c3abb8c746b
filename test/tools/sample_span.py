#!/usr/bin/python3
"""sample_span.py - how far the CallingContextSample events of an OTF2 archive reach on
each location, for the integration tests (python3-otf2 reader, independent of the writer).

    sample_span.py PATH/traces.otf2

One line per location that has a ProgramBegin or samples:
    LOCATION<TAB>SAMPLES<TAB>FIRST<TAB>LAST<TAB>END<TAB>END_GAP
FIRST, LAST and END are the times of its first and last sample and of its ProgramEnd
in seconds after the location's ProgramBegin; END_GAP is the time from its last sample to its ProgramEnd in
sampling periods of that last sample (its interrupt generator's period). A location
without samples prints - for the four. Exit status 1 when the archive cannot be read.
"""

import sys

import otf2
from otf2 import events as ev


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: sample_span.py PATH/traces.otf2")
    span = {}
    with otf2.reader.open(sys.argv[1]) as trace:
        res = trace.definitions.clock_properties.timer_resolution
        for loc, e in trace.events:
            s = span.setdefault(loc._ref, {"n": 0, "begin": None, "end": None,
                                           "first": None, "last": None, "period": 0})
            if isinstance(e, ev.ProgramBegin):
                s["begin"] = e.time
            elif isinstance(e, ev.ProgramEnd):
                s["end"] = e.time
            elif isinstance(e, ev.CallingContextSample):
                s["n"] += 1
                if s["first"] is None:
                    s["first"] = e.time
                s["last"] = e.time
                gen = e.interrupt_generator
                s["period"] = gen.period if gen is not None else 0
    for loc in sorted(span):
        s = span[loc]
        if s["n"] == 0 or s["begin"] is None or s["end"] is None:
            print("%d\t%d\t-\t-\t-\t-" % (loc, s["n"]))
            continue
        gap = (s["end"] - s["last"]) / res * 1e9 / s["period"] if s["period"] else float("inf")
        print("%d\t%d\t%.3f\t%.3f\t%.3f\t%.2f" % (loc, s["n"], (s["first"] - s["begin"]) / res,
                                                  (s["last"] - s["begin"]) / res,
                                                  (s["end"] - s["begin"]) / res, gap))


if __name__ == "__main__":
    main()
