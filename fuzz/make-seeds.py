#!/usr/bin/python3
"""make-seeds.py SAMPLES_DIR OUT_DIR: seed inputs for fuzz_cube_reader from .cubex files.

Each sample becomes two seeds: b'\\x01' + the whole file (raw mode) and, when Python's
tarfile can read it, b'\\x00' + anchor.xml and the members 0.index, 0.data, 1.index, ...
joined by the separator (structured mode; see fuzz_cube_reader.c).
"""
import os
import sys
import tarfile

SEP = b"\n--8<--\n"
samples, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for name in sorted(os.listdir(samples)):
    if not name.endswith(".cubex"):
        continue
    path = os.path.join(samples, name)
    with open(path, "rb") as f:
        raw = f.read()
    with open(os.path.join(out, name + ".raw"), "wb") as f:
        f.write(b"\x01" + raw)
    try:
        with tarfile.open(path) as t:
            members = {m.name: t.extractfile(m).read() for m in t.getmembers()}
    except Exception:
        continue
    parts = [members.get("anchor.xml", b"")]
    for i in range(8):
        if "%d.index" % i not in members:
            break
        parts += [members["%d.index" % i], members.get("%d.data" % i, b"")]
    with open(os.path.join(out, name + ".parts"), "wb") as f:
        f.write(b"\x00" + SEP.join(parts))
