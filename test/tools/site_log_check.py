#!/usr/bin/env python3
"""site_log_check.py - helpers of t091-site-log.sh, independent of hpmeasure's C code.

    site_log_check.py record LOG FIELD...     prints FIELD values of the single record
                                              (a.b for nested: mpi.MPI_Send.calls)
    site_log_check.py jobs LOG                checks every line is a JSON record, prints
                                              the sorted job ids, one per line
    site_log_check.py generate LOG N SEED     writes N random job records (and 2 bad lines)
    site_log_check.py summary LOG BY PERIOD   the expected `hp-report site --format csv`
                                              rows, computed here from the JSON
    site_log_check.py compare EXPECTED ACTUAL compares two such CSVs, numbers to 1e-9
"""
import csv
import datetime
import json
import random
import sys


def records(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def cmd_record(path, fields):
    recs = list(records(path))
    assert len(recs) == 1, "%d records" % len(recs)
    for field in fields:
        v = recs[0]
        for part in field.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        print(v)


def cmd_jobs(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    assert lines[-1] == "", "the log does not end with a newline"
    for line in sorted(json.loads(l)["job"] for l in lines[:-1]):
        print(line)


def cmd_generate(path, n, seed):
    rnd = random.Random(int(seed))
    crnd = random.Random(int(seed) + 1)  # counters: the other fields stay as they were
    users = ["alice", "bob", "chen", "dana", "émile"]
    apps = ["lulesh", "cp2k", "wrf", "a\"quoted\\app"]
    funcs = ["MPI_Allreduce", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Wait"]
    t0 = 1788220800  # 2026-09-01T00:00:00Z
    with open(path, "w", encoding="utf-8") as f:
        for i in range(int(n)):
            ranks = rnd.choice([1, 2, 4, 16, 64, 256])
            wall = rnd.uniform(1, 36000)
            mpi = {fn: {"calls": rnd.randrange(1, 10**6), "time_s": rnd.uniform(0, wall * ranks / 8),
                        "bytes": rnd.randrange(0, 10**9)} for fn in rnd.sample(funcs, rnd.randrange(0, 5))}
            rec = {"v": 1, "user": rnd.choice(users), "job": str(i), "app": rnd.choice(apps),
                   "exe": "/x", "host": "n1", "nodes": max(1, ranks // 16), "ranks": ranks,
                   "threads": 1, "start_epoch": t0 + rnd.randrange(0, 120 * 86400),
                   "wall_s": wall, "mpi_s": sum(m["time_s"] for m in mpi.values()),
                   "mpi": mpi, "hpmeasure": "0.1.0"}
            kind = crnd.choice([None, "perf_instructions", "PAPI_TOT_INS", "perf_task_clock"])
            if kind is not None:
                total = crnd.randrange(0, 10**15)
                inside = crnd.randrange(0, total + 1)
                rec["counters"] = {kind: {"total": total, "mpi": inside, "app": total - inside}}
            rec["start"] = datetime.datetime.fromtimestamp(rec["start_epoch"], datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            f.write(json.dumps(rec, ensure_ascii=(i % 2 == 0)) + "\n")
            if i == 10:
                f.write("not json\n")
            if i == 20:
                f.write('{"v":1,"user":"x"}\n')


def valid_records(path):
    """The job records of a log: lines that are JSON objects with what a summary needs."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict) and all(k in r for k in ("start_epoch", "wall_s", "ranks")):
                yield r


def cmd_summary(path, by, period):
    groups = {}
    for r in valid_records(path):
        if by not in r:
            continue
        d = datetime.datetime.fromtimestamp(r["start_epoch"], datetime.timezone.utc)
        if period == "week":
            y, w, _ = d.isocalendar()
            p = "%04d-W%02d" % (y, w)
        else:
            p = "%04d-%02d" % (d.year, d.month)
        g = groups.setdefault((p, r[by]), {"jobs": 0, "node": 0.0, "rank": 0.0, "mpi": 0.0, "f": {},
                                           "ijobs": 0, "irank": 0.0, "ins": 0.0, "imp": 0.0})
        g["jobs"] += 1
        g["node"] += r["nodes"] * r["wall_s"]
        g["rank"] += r["ranks"] * r["wall_s"]
        g["mpi"] += r["mpi_s"]
        ins = [r.get("counters", {}).get(n) for n in ("perf_instructions", "PAPI_TOT_INS")]
        ins = [c for c in ins if c is not None]
        if ins:
            g["ijobs"] += 1
            g["irank"] += r["ranks"] * r["wall_s"]
            g["ins"] += ins[0]["total"]
            g["imp"] += ins[0]["mpi"]
        for fn, m in r["mpi"].items():
            g["f"][fn] = g["f"].get(fn, 0.0) + m["time_s"]
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["period", by, "jobs", "node_hours", "rank_hours", "mpi_hours", "mpi_percent",
                "instr_jobs", "ginstr_per_rank_s", "instr_mpi_percent", "top_mpi"])
    for (p, k) in sorted(groups, key=lambda pk: (pk[0].encode(), pk[1].encode())):
        g = groups[(p, k)]
        top = sorted(g["f"].items(), key=lambda kv: (-kv[1], kv[0].encode()))[:3]
        text = ", ".join("%s %.1f%%" % (fn, 100 * t / g["mpi"] if g["mpi"] > 0 else 0) for fn, t in top)
        w.writerow([p, k, g["jobs"], g["node"] / 3600, g["rank"] / 3600, g["mpi"] / 3600,
                    100 * g["mpi"] / g["rank"] if g["rank"] > 0 else 0, g["ijobs"],
                    g["ins"] / g["irank"] / 1e9 if g["irank"] > 0 else 0,
                    100 * g["imp"] / g["ins"] if g["ins"] > 0 else 0, text])


def cmd_compare(expected, actual):
    with open(expected, encoding="utf-8") as f:
        exp = list(csv.reader(f))
    with open(actual, encoding="utf-8") as f:
        act = [row for row in csv.reader(f) if row and not row[0].startswith("# ")]
    if len(exp) != len(act):
        sys.exit("%d rows expected, %d found" % (len(exp), len(act)))
    for e, a in zip(exp, act):
        for x, y in zip(e, a):
            try:
                ok = abs(float(x) - float(y)) <= 1e-9 * max(1.0, abs(float(x)))
            except ValueError:
                ok = x == y
            if not ok or len(e) != len(a):
                sys.exit("expected %s\nfound    %s" % (e, a))
    print("%d rows match" % (len(exp) - 1))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"record": lambda: cmd_record(args[0], args[1:]), "jobs": lambda: cmd_jobs(args[0]),
     "generate": lambda: cmd_generate(*args), "summary": lambda: cmd_summary(*args),
     "compare": lambda: cmd_compare(*args)}[cmd]()
