#!/usr/bin/python3
"""sample_span.py - how far the CallingContextSample events of an OTF2 archive reach on
each location, for the integration tests (python3-otf2 reader, independent of the writer).

    sample_span.py PATH/traces.otf2 [N]

One line per location that has a ProgramBegin or samples:
    LOCATION<TAB>SAMPLES<TAB>FIRST<TAB>LAST<TAB>END<TAB>END_GAP<TAB>MESSAGE_N
FIRST, LAST and END are the times of its first and last sample and of its ProgramEnd
in seconds after the location's ProgramBegin; END_GAP is the time from its last sample to its ProgramEnd in
sampling periods of that last sample (its interrupt generator's period). MESSAGE_N is
the time of its N-th MpiSend or MpiRecv event (N = 200 unless given), - when it has
fewer: a point in the program's own progress, which a loaded machine only delays. A
location without samples prints - for the first four. Exit status 1 when the archive
cannot be read.
"""

import sys

import otf2
from otf2 import events as ev


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and not sys.argv[2].isdigit()):
        sys.exit("usage: sample_span.py PATH/traces.otf2 [N]")
    nth = int(sys.argv[2]) if len(sys.argv) == 3 else 200
    span = {}
    with otf2.reader.open(sys.argv[1]) as trace:
        res = trace.definitions.clock_properties.timer_resolution
        for loc, e in trace.events:
            s = span.setdefault(loc._ref, {"n": 0, "begin": None, "end": None,
                                           "first": None, "last": None, "period": 0,
                                           "messages": 0, "message_n": None})
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
            elif isinstance(e, (ev.MpiSend, ev.MpiRecv)):
                s["messages"] += 1
                if s["messages"] == nth:
                    s["message_n"] = e.time
    for loc in sorted(span):
        s = span[loc]
        message_n = "-"
        if s["message_n"] is not None and s["begin"] is not None:
            message_n = "%.3f" % ((s["message_n"] - s["begin"]) / res)
        if s["n"] == 0 or s["begin"] is None or s["end"] is None:
            print("%d\t%d\t-\t-\t-\t-\t%s" % (loc, s["n"], message_n))
            continue
        gap = (s["end"] - s["last"]) / res * 1e9 / s["period"] if s["period"] else float("inf")
        print("%d\t%d\t%.3f\t%.3f\t%.3f\t%.2f\t%s" % (loc, s["n"], (s["first"] - s["begin"]) / res,
                                                      (s["last"] - s["begin"]) / res,
                                                      (s["end"] - s["begin"]) / res, gap, message_n))


if __name__ == "__main__":
    main()
