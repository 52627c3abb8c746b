#!/usr/bin/env python3
"""Checks a sampled profile of test/programs/sampling/split.c against the truth the
program measured itself, and against an instrumented profile of the same program.

usage: sampling_check.py TRUTH_S SAMPLED.dump TRUTH_I INSTRUMENTED.dump INTERVAL_MS

The .dump files are cubedump.py output, each with the truth its run measured: TRUTH_* has
a line "rank f1 f2 mpi span" (seconds) per rank. For every rank it checks, in percentage
points of the rank's time:
  - the sampled inclusive times of main/f1 and main/f2 are within 5 points of the truth;
  - the instrumented profile's are within 5 points of its run's truth, and the sampled
    share is within 5 points of the instrumented one once each is taken relative to its
    own run's truth (sampled - truth_s vs instrumented - truth_i). Two runs on a shared
    machine do not split their time alike (clock-bounded loops overshoot when
    descheduled, MPI waits differ), so comparing the raw shares of two runs would
    measure the machine's load, not the profiler;
  - sampled time + MPI time + UNWIND FAILED = the rank's wall time: what is left (the
    program root's exclusive time, the part after the last sample) is at most one
    sampling interval plus 50 ms for scheduling on a shared machine (see below).
Prints one line per rank and check (with the raw cross-run difference for information);
exits 1 when a check fails.
"""
import sys

TOLERANCE_POINTS = 5.0
# On a quiet machine what is left stays below one interval (0.2-0.9 ms measured at 1 kHz);
# with the machine's 2 cores shared by other test runs, a rank descheduled around its last
# samples leaves more (up to 12 ms seen with two busy loops beside the 2 ranks, and more
# than 15 ms twice when six builds and test suites shared the machine). What this check
# is for, MPI time or samples lost, adds up to 100s of ms over split.c's 2 s of run.
DELIVERY_SLACK_S = 0.05


def load(path):
    """{(path, location): {field: value}}"""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            values = {}
            for kv in parts[2:]:
                k, v = kv.split("=", 1)
                values[k] = float(v)
            rows[(parts[0], int(parts[1]))] = values
    return rows


def rank_view(rows, rank):
    """Times of one location (rank = location with one thread per rank)."""
    mine = {p: v for (p, loc), v in rows.items() if loc == rank}
    root = next(p for p in mine if "/" not in p)
    wall = mine[root]["time_incl"]
    f1 = mine.get(root + "/main/f1", {}).get("time_incl", 0.0)
    f2 = mine.get(root + "/main/f2", {}).get("time_incl", 0.0)
    mpi = sum(v["time_excl"] for p, v in mine.items() if p.split("/")[-1].startswith("MPI_"))
    failed = sum(v["time_incl"] for p, v in mine.items() if p.endswith("/UNWIND FAILED"))
    return {"wall": wall, "f1": f1, "f2": f2, "mpi": mpi, "failed": failed,
            "rest": mine[root]["time_excl"]}


def read_truth(path):
    with open(path) as f:
        return {int(t[0]): {"f1": float(t[1]), "f2": float(t[2]), "span": float(t[4])}
                for t in (line.split() for line in f if line.strip())}


def main(argv):
    truth_s_path, sampled_path, truth_i_path, instrumented_path, interval_ms = argv[1:6]
    interval = float(interval_ms) / 1000.0
    sampled, instrumented = load(sampled_path), load(instrumented_path)
    truth_s, truth_i = read_truth(truth_s_path), read_truth(truth_i_path)
    failures = 0

    def check(ok, text):
        nonlocal failures
        print(("ok   " if ok else "FAIL ") + text)
        failures += 0 if ok else 1

    for rank in sorted(truth_s):
        ts, ti = truth_s[rank], truth_i[rank]
        s, i = rank_view(sampled, rank), rank_view(instrumented, rank)
        for fn in ("f1", "f2"):
            true_s = 100 * ts[fn] / ts["span"]
            share_s = 100 * s[fn] / ts["span"]
            check(abs(share_s - true_s) <= TOLERANCE_POINTS,
                  "rank %d %s: sampled %.1f%% vs truth %.1f%%" % (rank, fn, share_s, true_s))
            true_i = 100 * ti[fn] / ti["span"]
            share_i = 100 * i[fn] / ti["span"]
            check(abs(share_i - true_i) <= TOLERANCE_POINTS,
                  "rank %d %s: instrumented %.1f%% vs its truth %.1f%%"
                  % (rank, fn, share_i, true_i))
            check(abs((share_s - true_s) - (share_i - true_i)) <= TOLERANCE_POINTS,
                  "rank %d %s: sampled vs instrumented, each against its run's truth: "
                  "%+.1f vs %+.1f points (raw shares of the two runs: %.1f%% vs %.1f%%)"
                  % (rank, fn, share_s - true_s, share_i - true_i, share_s, share_i))
        check(0 <= s["rest"] <= interval + DELIVERY_SLACK_S,
              "rank %d: wall %.6f s = sampled + MPI %.6f s + UNWIND FAILED %.6f s + %.6f s "
              "after the last sample (at most one interval %.3f s + %.3f s)"
              % (rank, s["wall"], s["mpi"], s["failed"], s["rest"], interval,
                 DELIVERY_SLACK_S))
    check(len(truth_s) > 0 and set(truth_s) == set(truth_i),
          "%d ranks reported their truth in both runs" % len(truth_s))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
