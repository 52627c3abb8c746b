#!/usr/bin/python3
"""check_report_csv.py HP_REPORT FILE.cubex EXCL.csv INCL.csv

Checks every value of a Score-P sample's CSVs (cube_dump csv2 layout: "Cnode ID,
Thread ID,<metric>,..." with one row per file cnode id and location id; the .excl file
holds exclusive values, the .incl file inclusive ones) against hp-report's output:
for each metric and location, `hp-report FILE --format csv --metric M --rank R
--threshold 0 --depth 1000000` and its calltree rows (cnode = document order). Metrics
without data must be all zero in the CSVs and make hp-report exit 2 saying so.
Prints one line per mismatch; exit status 0 when everything matches.
"""
import csv
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET


def anchor_of(path):
    with tarfile.open(path) as t:
        return ET.fromstring(t.extractfile("anchor.xml").read())


def main():
    report, cube, excl_csv, incl_csv = sys.argv[1:5]
    root = anchor_of(cube)
    doc_index = {int(c.get("id")): i for i, c in enumerate(root.iter("cnode"))}
    rank_of = {}
    for group in root.iter("locationgroup"):
        for loc in group.iter("location"):
            rank_of[int(loc.get("Id"))] = int(group.find("rank").text)
    expected = {}
    for kind, path in (("excl", excl_csv), ("incl", incl_csv)):
        with open(path) as f:
            rows = list(csv.reader(f))
        names = [n.strip() for n in rows[0]]
        for row in rows[1:]:
            cnode, loc = int(row[0]), int(row[1])
            for name, value in zip(names[2:], row[2:]):
                expected[(name, rank_of[loc], doc_index[cnode], kind)] = float(value)
    bad = checked = 0
    for metric in names[2:]:
        for rank in sorted(set(rank_of.values())):
            p = subprocess.run([report, cube, "--format", "csv", "--metric", metric,
                                "--rank", str(rank), "--threshold", "0", "--depth", "1000000"],
                               capture_output=True, text=True)
            want = {k: v for k, v in expected.items() if k[0] == metric and k[1] == rank}
            if p.returncode == 2 and "has no data" in p.stderr:
                nonzero = [k for k, v in want.items() if v != 0]
                checked += len(want)
                if nonzero:
                    print("%s: %s has no data but the CSV has %d non-zero values" %
                          (cube, metric, len(nonzero)))
                    bad += 1
                continue
            if p.returncode != 0:
                print("%s --metric %s --rank %d: exit %d: %s" % (cube, metric, rank,
                                                                  p.returncode, p.stderr))
                bad += 1
                continue
            got = {}
            table = None
            for row in csv.reader(p.stdout.splitlines()):
                if row and row[0].startswith("# "):
                    table = row[0][2:]
                elif table == "calltree" and row and row[0].isdigit():
                    got[(metric, rank, int(row[0]), "incl")] = float(row[3])
                    got[(metric, rank, int(row[0]), "excl")] = float(row[4])
            for key, value in want.items():
                checked += 1
                g = got.get(key)
                if g is None or abs(g - value) > 1e-5 * max(abs(g), abs(value)) + 1e-9:
                    print("%s: %s rank %d cnode %d %s: got %s, want %r" % ((cube,) + key[:4] + (g, value)))
                    bad += 1
    print("%d values checked, %d mismatches" % (checked, bad))
    return 1 if bad or checked == 0 else 0


sys.exit(main())
