#!/usr/bin/env python3
"""scale-model.py - finalize time and memory at 10^3 to 10^5 ranks, from the figures
of bench/run-scale-bench.sh (doc/architecture.md, "Finalize at scale" explains it).

    sh bench/run-scale-bench.sh BUILDDIR > scale.txt
    python3 bench/scale-model.py [--hop-us US] [--disk-mbs MBS] scale.txt

Reads the `bench: scale_<P>_<variant>_<figure>=<value>` lines and fits, by least
squares over the measured rank counts, the per-step costs of finalize as rank 0 (the
end of the critical path) pays them, in CPU time (the finalize split's `cpu` line:
with 64 ranks on 2 cores the wall time of a step is mostly other ranks' turns, which a
rank with a core of its own does not wait for):

  profile  work(P)  = c0 + c_log * log2(P) + c_rank * P    (build, unpack and merge
           one profile per tree round, then write a Cube file with P columns)
           bytes(P) = b0 + b_rank * P                      (what rank 0 receives in
           all: each round's message holds the 2^k ranks merged below it)
           merge per call path and rank: merge CPU / (call paths * P)
  trace    work(P)  = t0 + t_rank * P                      (every rank writes its own
           event files, t0; rank 0's global definitions hold one location per rank)
           written per rank: w bytes, the same at every P

Waiting is not fitted: here it is the scheduler's. The model charges it as hops of a
log-depth tree: log2(P) for the profile reduction and ROUNDS_TRACE * log2(P) for the
trace's collectives, each hop --hop-us microseconds (default 5: a cluster network),
plus rank 0's received bytes at 1 GB/s; the event files cost w / (--disk-mbs MB/s) on
every rank at once (a parallel file system that keeps up with P writers).

Memory at rank 0: the largest profile it holds while merging (the last round's message,
half the job, deserialized, plus the merged copy: 3x that message) plus, in trace mode,
16 bytes per rank (event counts, host keys). Other ranks hold at most half of that.

Prints the measured figures beside the model's for the measured rank counts, then the
model at 10^3, 10^4 and 10^5 ranks, as Markdown tables.
"""

import argparse
import math
import re
import sys

ROUNDS_TRACE = 12  # collectives of the trace step (region map, comms, open, counts, close)


def read_figures(lines):
    figs = {}
    for line in lines:
        m = re.match(r"bench: scale_(\d+)_(\w+)=(\S+)$", line.strip())
        if not m:
            continue
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        figs.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return figs


def least_squares(rows, ys):
    """Coefficients x minimising |A x - y| for small A (normal equations), >= 0."""
    n = len(rows[0])
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    aty = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(n)]
    # Gaussian elimination with a tiny ridge for near-singular fits.
    for i in range(n):
        ata[i][i] += 1e-12
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(ata[r][c]))
        ata[c], ata[p] = ata[p], ata[c]
        aty[c], aty[p] = aty[p], aty[c]
        for r in range(c + 1, n):
            f = ata[r][c] / ata[c][c]
            for k in range(c, n):
                ata[r][k] -= f * ata[c][k]
            aty[r] -= f * aty[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (aty[r] - sum(ata[r][k] * x[k] for k in range(r + 1, n))) / ata[r][r]
    return [max(v, 0.0) for v in x]


def fit(figs):
    ranks = sorted(figs)
    f = figs
    prof_work = [profile_work(f[p]) for p in ranks]
    trace_work = [f[p]["trace_cpu_trace"] for p in ranks]
    received = [f[p]["profile_max_received"] for p in ranks]
    c = least_squares([[1, math.log2(p), p] for p in ranks], prof_work)
    t = least_squares([[1, p] for p in ranks], trace_work)
    b = least_squares([[1, p] for p in ranks], received)
    w = sum(f[p]["trace_bytes"] / p for p in ranks) / len(ranks)
    merge = [f[p]["profile_cpu_merge"] / (f[p]["call_paths"] * p) for p in ranks
             if f[p].get("call_paths", 0) > 0]
    per_node = sum(merge) / len(merge) if merge else float("nan")
    return {"c": c, "t": t, "b": b, "w": w, "merge_per_node": per_node}


def profile_work(f):
    return f["profile_cpu_unify"] + f["profile_cpu_merge"] + f["profile_cpu_cube"]


def model(m, p, hop_us, disk_mbs):
    lg = math.log2(p) if p > 1 else 0
    c, t, b, w = m["c"], m["t"], m["b"], m["w"]
    recv = b[0] + b[1] * p
    hop = hop_us * 1e-6
    prof_work = c[0] + c[1] * lg + c[2] * p
    prof_wait = lg * hop + recv / 1e9
    trace_work = t[0] + t[1] * p + w / (disk_mbs * 1e6)
    trace_wait = ROUNDS_TRACE * lg * hop + 8.0 * p / 1e9
    largest = recv / 2 if p > 1 else recv  # the last round's message: half the job
    mem_prof = 3 * largest
    mem_trace = mem_prof + 16 * p
    return {
        "profile_s": prof_work + prof_wait,
        "trace_s": prof_work + prof_wait + trace_work + trace_wait,
        "profile_work": prof_work,
        "trace_work": trace_work,
        "received": recv,
        "mem_profile": mem_prof,
        "mem_trace": mem_trace,
    }


def human_bytes(n):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000:
            return "%.0f %s" % (n, unit) if unit == "B" else "%.1f %s" % (n, unit)
        n /= 1000.0
    return "%.1f PB" % n


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("figures", nargs="?", help="output of run-scale-bench.sh (default stdin)")
    ap.add_argument("--hop-us", type=float, default=5.0,
                    help="latency of one tree hop in microseconds (default 5)")
    ap.add_argument("--disk-mbs", type=float, default=500.0,
                    help="write bandwidth per rank in MB/s (default 500)")
    args = ap.parse_args(argv[1:])
    src = open(args.figures) if args.figures else sys.stdin
    figs = read_figures(src)
    need = ("profile_cpu_unify", "profile_cpu_merge", "profile_cpu_cube",
            "profile_max_received", "trace_cpu_trace", "trace_bytes")
    figs = {p: v for p, v in figs.items() if all(k in v for k in need)}
    if len(figs) < 3:
        sys.stderr.write("scale-model.py: need the figures of at least 3 rank counts "
                         "with the finalize split (bench/run-scale-bench.sh output)\n")
        return 2
    m = fit(figs)
    c, t, b = m["c"], m["t"], m["b"]
    print("Fitted per-step costs (rank 0):")
    print("  profile work  = %.2e s + %.2e s * log2(P) + %.2e s * P" % tuple(c))
    print("  received      = %.0f B + %.0f B * P" % tuple(b))
    print("  trace work    = %.2e s + %.2e s * P;  %.0f B written per rank" %
          (t[0], t[1], m["w"]))
    print("  merge         = %.2e s per call path and rank" % m["merge_per_node"])
    print()
    print("| ranks | profile CPU s, rank 0 (measured / model) | trace CPU s, rank 0 "
          "(measured / model) | rank 0 receives (measured / model) |")
    print("|---|---|---|---|")
    for p in sorted(figs):
        f = figs[p]
        mm = model(m, p, args.hop_us, args.disk_mbs)
        print("| %d | %.4f / %.4f | %.4f / %.4f | %s / %s |" % (
            p, profile_work(f), mm["profile_work"], f["trace_cpu_trace"], t[0] + t[1] * p,
            human_bytes(f["profile_max_received"]), human_bytes(mm["received"])))
    print()
    print("| ranks | profile finalize | trace finalize | rank 0 memory, profile "
          "| rank 0 memory, trace | trace on disk |")
    print("|---|---|---|---|---|---|")
    for p in (10**3, 10**4, 10**5):
        mm = model(m, p, args.hop_us, args.disk_mbs)
        print("| %d | %.2f s | %.2f s | %s | %s | %s |" % (
            p, mm["profile_s"], mm["trace_s"], human_bytes(mm["mem_profile"]),
            human_bytes(mm["mem_trace"]), human_bytes(m["w"] * p)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
