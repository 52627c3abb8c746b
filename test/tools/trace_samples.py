#!/usr/bin/python3
"""trace_samples.py - the CallingContextSample events of an OTF2 archive as text lines,
for the integration tests (python3-otf2 reader, independent of the writer).

    trace_samples.py PATH/traces.otf2

One line per sample, in each location's time order:
    LOCATION<TAB>CONTEXT<TAB>PATH<TAB>UNWIND_DISTANCE<TAB>NUMBER<TAB>PERIOD
NUMBER is the sample's "sample number" attribute (adaptive trace buffer) or -, PERIOD
its interrupt generator's period in ns.
CONTEXT is the calling context id, PATH the region names of its context and its
parents from the root, joined by '/' (the form of cubedump.py's paths). Exit status 1
when a sample names no calling context or the archive cannot be read.
"""

import sys

import otf2
from otf2 import events as ev


def context_path(cc):
    names = []
    while cc is not None:
        names.append(cc.region.name if cc.region is not None else "?")
        cc = cc.parent
    return "/".join(reversed(names))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: trace_samples.py PATH/traces.otf2")
    status = 0
    with otf2.reader.open(sys.argv[1]) as trace:
        for loc, e in trace.events:
            if not isinstance(e, ev.CallingContextSample):
                continue
            if e.calling_context is None:
                sys.stderr.write("sample at %d on location %d: no calling context\n"
                                 % (e.time, loc._ref))
                status = 1
                continue
            number = "-"
            for attribute, value in (e.attributes or {}).items():
                if attribute.name == "sample number":
                    number = str(value)
            gen = e.interrupt_generator
            period = gen.period if gen is not None else 0
            print("%d\t%d\t%s\t%d\t%s\t%d" % (loc._ref, e.calling_context._ref,
                                              context_path(e.calling_context),
                                              e.unwind_distance, number, period))
    sys.exit(status)


if __name__ == "__main__":
    main()
