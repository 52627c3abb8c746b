#!/usr/bin/env python3
"""cubecheck.py - structural validator for Cube4 .cubex files (stdlib only).

Rules are taken from the CubeLib 4.8.2 reader (Cube4Scanner.ll / Cube4Parser.yy,
CubeSparseIndex.cpp, Cube.cpp) and the CubeW 4.8.2 writer (cubew_metric.c,
cubew_tar_writing.c), see doc/formats/CUBE4-OTF2.md. Copied from the project's
shared tools (test/data/SOURCES.md).

    python3 cubecheck.py [--values] [--tree] [--reader-rules] FILE.cubex...

E = CubeLib/CubeGUI would reject or misread the file, W = suspicious / other
readers (pycubexr) would fail, I = info.  Exit 0 = no errors, 1 = errors.
--reader-rules makes the rules of the strictest readers (pycubexr, which Extra-P
uses, and CubeLib) errors; they are what hpmeasure's writer promises, listed in
doc/formats/cube-reader-rules.md (R1..R7 there and in the messages).
"""
import argparse
import io
import re
import struct
import sys
import zlib
import xml.etree.ElementTree as ET

# The dtypes pycubexr knows (its METRIC_FORMATS); a metric with another one fails its
# Metric() assertion, and so does a metric type other than these two.
PYCUBEXR_DTYPES = {"CHAR", "COMPLEX", "DOUBLE", "FLOAT", "INT", "INT16", "INT32", "INT64",
                   "INT8", "INTEGER", "MAXDOUBLE", "MINDOUBLE", "RATE", "SHORT INT",
                   "SIGNED INT", "SIGNED INTEGER", "SIGNED SHORT INT", "TAU_ATOMIC", "UINT16",
                   "UINT32", "UINT64", "UINT8", "UNSIGNED INT", "UNSIGNED INTEGER",
                   "UNSIGNED SHORT INT"}
PYCUBEXR_TYPES = {"INCLUSIVE", "EXCLUSIVE"}
# pycubexr (like CubeLib) refuses UINT64 values above this unless told otherwise.
UINT64_READABLE_MAX = 0xFFFFFFFFFFFFFBFF
# pycubexr builds the call tree recursively (one Python frame a level) and converts
# inclusive/exclusive values recursively (two frames a level), under Python's default
# recursion limit of 1000 frames.
RECURSIVE_READER_DEPTH = 480

# dtype -> (struct code per element or None, byte size)   [cubew_services.c, CubeMetric.cpp]
DTYPES = {
    "DOUBLE": ("d", 8), "FLOAT": ("d", 8), "MINDOUBLE": ("d", 8), "MAXDOUBLE": ("d", 8),
    "INTEGER": ("q", 8), "INT64": ("q", 8), "SIGNED INTEGER": ("q", 8),
    "UINT64": ("Q", 8), "UNSIGNED INTEGER": ("Q", 8),
    "INT32": ("i", 4), "INT": ("i", 4), "SIGNED INT": ("i", 4),
    "UINT32": ("I", 4), "UNSIGNED INT": ("I", 4),
    "INT16": ("h", 2), "SHORT INT": ("h", 2), "SIGNED SHORT INT": ("h", 2),
    "UINT16": ("H", 2), "UNSIGNED SHORT INT": ("H", 2),
    "INT8": ("b", 1), "UINT8": ("B", 1), "CHAR": ("B", 1),
    "COMPLEX": (None, 16), "RATE": (None, 16), "TAU_ATOMIC": (None, 36),
}
METRIC_TYPES = {"EXCLUSIVE", "INCLUSIVE", "SIMPLE", "POSTDERIVED", "DERIVED",
                "PREDERIVED_INCLUSIVE", "PREDERIVED_EXCLUSIVE"}
DERIVED = {"POSTDERIVED", "DERIVED", "PREDERIVED_INCLUSIVE", "PREDERIVED_EXCLUSIVE"}
SUPPORTED_VERSIONS = {"4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "4.7", "3.0"}
LG_TYPES = {"process", "metrics", "accelerator"}
LOC_TYPES = {"thread", "accelerator stream", "metric", "cpu thread", "gpu", "metrics"}


class Rep(object):
    def __init__(self, strict=False):
        self.items = []
        self.strict = strict

    def E(self, m): self.items.append(("ERROR", m))
    def W(self, m): self.items.append(("WARN", m))
    def I(self, m): self.items.append(("INFO", m))

    def R(self, rule, m):
        """A reader rule (cube-reader-rules.md): an error under --reader-rules."""
        (self.E if self.strict else self.W)("%s: %s" % (rule, m))

    def n(self, lv): return sum(1 for l, _ in self.items if l == lv)


def dtype_size(dt):
    m = re.fullmatch(r"\s*(HISTOGRAM|NDOUBLES)\s*\(\s*(\d+)\s*\)\s*", dt)
    if m:
        n = int(m.group(2))
        return (None, (n + 2) * 8 if m.group(1) == "HISTOGRAM" else n * 8)
    return DTYPES.get(dt)


def deep_enum(roots):
    out = []

    def rec(c):
        out.append(c)
        for ch in c.findall("cnode"):
            rec(ch)
    for r in roots:
        rec(r)
    return out


def wide_enum(roots):
    out = []

    def rec(c, is_root):
        if is_root:
            out.append(c)
        kids = c.findall("cnode")
        out.extend(kids)
        for ch in kids:
            rec(ch, False)
    for r in roots:
        rec(r, True)
    return out


def check_anchor_text(txt, rep):
    """Constraints of CubeLib's hand-written flex scanner (Cube4Scanner.ll)."""
    if not txt.startswith("<?xml"):
        rep.E("anchor.xml must start with '<?xml' (gzip-compressed anchor only for reading by pycubexr)")
    m = re.search(r"<cube\b[^>]*>", txt)
    if not m:
        rep.E("no <cube ...> element")
        return
    tag = m.group(0)
    mv = re.fullmatch(r'<cube version="([0-9.]+)">', tag)
    if not mv:
        rep.E("CubeLib matches the literal text '<cube version=\"4.x\">' (exactly one attribute, "
              "double quotes, no extra spaces); found %r" % tag)
    elif mv.group(1) not in SUPPORTED_VERSIONS:
        rep.E("anchor version %s not accepted by CubeLib 4.8 (accepted: %s)"
              % (mv.group(1), sorted(SUPPORTED_VERSIONS)))
    else:
        rep.I("anchor syntax version %s" % mv.group(1))
    if "<!--" in txt:
        rep.E("XML comments are not understood by CubeLib's scanner ('unexpected character')")
    if "<!DOCTYPE" in txt:
        rep.E("DOCTYPE not supported by CubeLib's scanner")
    if re.search(r"<\w+\s+[^>]*'", txt.split("?>", 1)[-1]) and not re.search(r'="', txt):
        rep.W("attributes must use double quotes for CubeLib")


def check_order(parent, expected, rep, what):
    """children of `parent` must appear in the order of `expected` (list of tag names,
    each may repeat); unknown tags are errors."""
    pos = 0
    for ch in parent:
        if ch.tag not in expected:
            rep.E("%s: unexpected element <%s>" % (what, ch.tag))
            continue
        i = expected.index(ch.tag)
        if i < pos:
            rep.E("%s: element <%s> out of order (required order: %s)" % (what, ch.tag, expected))
        pos = max(pos, i)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cubex", nargs="+")
    ap.add_argument("--values", action="store_true", help="print per-metric totals")
    ap.add_argument("--tree", action="store_true", help="print call tree")
    ap.add_argument("--reader-rules", action="store_true",
                    help="the strict readers' rules (doc/formats/cube-reader-rules.md) are errors")
    a = ap.parse_args()
    failed = 0
    for path in a.cubex:
        rep = Rep(a.reader_rules)
        status = run(a, path, rep)
        prefix = path + ": " if len(a.cubex) > 1 else ""
        for lv, m in rep.items:
            if len(a.cubex) == 1 or lv != "INFO":
                print("%s%-5s %s" % (prefix, lv, m))
        ne, nw = rep.n("ERROR"), rep.n("WARN")
        print("%sSUMMARY: %s  errors=%d warnings=%d" % (prefix, "PASS" if ne == 0 else "FAIL",
                                                       ne, nw))
        failed += 1 if ne or status else 0
    sys.exit(1 if failed else 0)


def run(a, path, rep):
    raw = open(path, "rb").read()
    # ------------------------------------------------------------ tar layer
    if raw[:2] == b"\x1f\x8b":
        rep.W(".cubex is gzip-compressed as a whole: pycubexr can open it, CubeLib cannot")
        raw = zlib.decompress(raw, 16 + zlib.MAX_WBITS)
    std = walk_tar(raw, rep, cubelib_rule=False)
    cl = walk_tar(raw, None, cubelib_rule=True)
    if std is None:
        return 1
    files = {n: raw[off:off + size] for n, (off, size) in std.items()}
    names = list(std)
    rep.I("tar members (%d): %s" % (len(names), names[:12] + (["..."] if len(names) > 12 else [])))
    if {k: v for k, v in (cl or {}).items()} != std:
        rep.E("CubeLib's TarReader (next header = pos+512+(size/512+1)*512) and a standard tar "
              "reader see different members/offsets: standard=%s cubelib=%s"
              % (sorted(std.items())[:6], sorted((cl or {}).items())[:6]))
    if "anchor.xml" not in names:
        rep.E("no anchor.xml member")
        return 1
    # ------------------------------------------------------------ anchor.xml
    atxt_b = files["anchor.xml"]
    if atxt_b[:2] == b"\x1f\x8b":
        rep.I("anchor.xml is gzip-compressed (what cubew writes with CUBEW_ZLIB_COMPRESSION=true; "
              "pycubexr and zlib-enabled CubeLib read it)")
        atxt_b = zlib.decompress(atxt_b, 16 + zlib.MAX_WBITS)
    try:
        atxt = atxt_b.decode("utf-8")
    except UnicodeDecodeError as e:
        rep.E("anchor.xml is not UTF-8: %s" % e)
        atxt = atxt_b.decode("latin-1")
    check_anchor_text(atxt, rep)
    try:
        root = ET.fromstring(atxt_b)
    except ET.ParseError as e:
        rep.E("anchor.xml is not well-formed XML: %s" % e)
        return 1
    if root.tag != "cube":
        rep.E("root element is <%s>, expected <cube>" % root.tag)
        return 1
    check_order(root, ["attr", "doc", "metrics", "program", "system"], rep, "<cube>")
    for t in ("metrics", "program", "system"):
        if len(root.findall(t)) != 1:
            rep.E("<cube> must contain exactly one <%s>" % t)
            return 1

    # metrics
    metrics = {}

    def walk_metrics(node, parent_type, depth):
        for m in node.findall("metric"):
            mid = m.get("id")
            mtype = m.get("type", "EXCLUSIVE")
            if mid is None or not mid.isdigit():
                rep.E("metric without integer id attribute")
                continue
            mid = int(mid)
            if mid in metrics:
                rep.E("duplicate metric id %d" % mid)
            if mtype not in METRIC_TYPES:
                rep.W("metric %d: unknown type %r (CubeLib treats it as EXCLUSIVE)" % (mid, mtype))
            for t in ("disp_name", "uniq_name", "dtype", "uom"):
                if m.find(t) is None:
                    (rep.E if t in ("uniq_name", "dtype") else rep.W)("metric %d: missing <%s>" % (mid, t))
            dt = (m.findtext("dtype") or "").strip()
            uniq = (m.findtext("uniq_name") or "").strip()
            if uniq and not re.fullmatch(r"[A-Za-z0-9_]+", uniq):
                rep.W("metric %d: uniq_name %r has characters outside [A-Za-z0-9_] (CubePL naming)"
                      % (mid, uniq))
            if mtype not in DERIVED and dtype_size(dt) is None:
                if dt == "SCALE_FUNC":
                    rep.W("metric %d: SCALE_FUNC (size differs between cubew and CubeLib) not checked" % mid)
                else:
                    rep.E("metric %d: unknown dtype %r" % (mid, dt))
            if mtype == "INCLUSIVE" and dt in ("MINDOUBLE", "MAXDOUBLE", "TAU_ATOMIC"):
                rep.E("metric %d: dtype %s is not allowed for INCLUSIVE metrics (cubew rejects it)"
                      % (mid, dt))
            if mtype not in PYCUBEXR_TYPES:
                rep.R("R2", "metric %d: type %s; pycubexr knows only INCLUSIVE and EXCLUSIVE"
                      % (mid, mtype))
            if dt not in PYCUBEXR_DTYPES:
                rep.R("R2", "metric %d: dtype %r is not one pycubexr reads" % (mid, dt))
            if mtype in DERIVED and m.find("cubepl") is None:
                rep.E("metric %d: derived metric without <cubepl> expression" % mid)
            metrics[mid] = dict(id=mid, type=mtype, dtype=dt, uniq=uniq,
                                viz=m.get("viztype", "NORMAL"), depth=depth)
            walk_metrics(m, mtype, depth + 1)

    walk_metrics(root.find("metrics"), None, 0)
    if not metrics:
        rep.E("<metrics> must contain at least one <metric> (grammar requires it)")
    rep.I("metrics: %s" % ", ".join("%d:%s(%s,%s)" % (k, v["uniq"], v["type"], v["dtype"])
                                   for k, v in sorted(metrics.items())))
    if sorted(metrics) != list(range(len(metrics))):
        rep.W("metric ids are not 0..%d (data file names use these ids)" % (len(metrics) - 1))

    # program
    prog = root.find("program")
    check_order(prog, ["region", "cnode"], rep, "<program>")
    regions = {}
    for r in prog.findall("region"):
        rid = r.get("id")
        if rid is None or not rid.lstrip("-").isdigit():
            rep.E("region without integer id")
            continue
        rid = int(rid)
        if rid in regions:
            rep.E("duplicate region id %d" % rid)
        regions[rid] = r
        for at in ("begin", "end"):
            v = r.get(at)
            if v is not None and not re.fullmatch(r"-?\d+", v):
                rep.E("region %d: %s=%r is not an integer" % (rid, at, v))
        for ch in r:   # CubeLib grammar: these children may come in any order
            if ch.tag not in ("name", "mangled_name", "paradigm", "role", "url", "descr", "attr"):
                rep.E("region %d: unexpected element <%s>" % (rid, ch.tag))
        if r.find("name") is None:
            rep.W("region %d: no <name>" % rid)
    if not regions:
        rep.E("<program> needs at least one <region>")
    roots = prog.findall("cnode")
    if not roots:
        rep.E("<program> needs at least one root <cnode>")
    if len(roots) != 1:
        rep.E("%d root cnodes: CubeLib accepts, pycubexr fails (asserts exactly one root cnode)" % len(roots))
    allc = deep_enum(roots)
    cids = []
    for c in allc:
        cid, callee = c.get("id"), c.get("calleeId")
        if cid is None or callee is None:
            rep.E("cnode without id or calleeId")
            continue
        cids.append(int(cid))
        if int(callee) not in regions:
            rep.E("cnode %s: calleeId %s is not a defined region" % (cid, callee))
    if len(set(cids)) != len(cids):
        rep.E("duplicate cnode ids")
    if sorted(cids) != list(range(len(cids))):
        rep.E("cnode ids are not contiguous 0..%d (CubeLib 4.8 cube_dump segfaults on id gaps)"
              % (len(cids) - 1))
    elif cids != list(range(len(cids))):
        rep.W("cnode ids are not in depth-first pre-order (legal; data rows follow tree "
              "position, not id)")
    ncn = len(allc)
    depth = max_depth(roots)
    if depth > RECURSIVE_READER_DEPTH:
        rep.W("R7: the call tree is %d levels deep: pycubexr walks it recursively and fails at "
              "Python's default recursion limit beyond about %d levels (HP_PROFILING_MAX_DEPTH "
              "or HP_PROFILING_RECURSION=collapse keep a tree readable)"
              % (depth, RECURSIVE_READER_DEPTH))
    rep.I("program: %d regions, %d cnodes, %d root(s), max depth %d"
          % (len(regions), ncn, len(roots), max_depth(roots)))

    # system
    sysn = root.find("system")
    stn_roots = sysn.findall("systemtreenode")
    old_style = sysn.findall("machine")
    if old_style and not stn_roots:
        rep.W("Cube3-compatible <machine>/<node>/<process>/<thread> system tree (accepted, legacy)")
    if not stn_roots and not old_style:
        rep.E("<system> has no <systemtreenode>")
    if len(stn_roots) > 1:
        rep.E("%d root system tree nodes: CubeLib accepts, pycubexr fails (asserts exactly one)" % len(stn_roots))
    locs = []

    def walk_stn(s, path):
        if s.find("name") is None:
            rep.E("systemtreenode %s: missing <name>" % s.get("Id"))
        if s.find("class") is None:
            rep.E("systemtreenode %s: missing <class> ('No class of system tree node declared')"
                  % s.get("Id"))
        check_order(s, ["name", "class", "descr", "attr", "locationgroup", "systemtreenode"], rep,
                    "systemtreenode %s" % s.get("Id"))
        for lg in s.findall("locationgroup"):
            check_order(lg, ["name", "rank", "type", "attr", "location"], rep,
                        "locationgroup %s" % lg.get("Id"))
            for t in ("name", "rank", "type"):
                if lg.find(t) is None:
                    rep.E("locationgroup %s: missing <%s>" % (lg.get("Id"), t))
            lt = (lg.findtext("type") or "").strip()
            if lt and lt not in LG_TYPES:
                rep.W("locationgroup %s: type %r not in %s" % (lg.get("Id"), lt, sorted(LG_TYPES)))
            ls = lg.findall("location")
            if not ls:
                rep.E("locationgroup %s has no <location> (grammar requires >= 1)" % lg.get("Id"))
            for l in ls:
                check_order(l, ["name", "rank", "type", "attr"], rep, "location %s" % l.get("Id"))
                for t in ("name", "rank", "type"):
                    if l.find(t) is None:
                        rep.E("location %s: missing <%s>" % (l.get("Id"), t))
                ty = (l.findtext("type") or "").strip()
                if ty and ty not in LOC_TYPES:
                    rep.W("location %s: type %r unusual" % (l.get("Id"), ty))
                locs.append(l)
        for ch in s.findall("systemtreenode"):
            walk_stn(ch, path + [ch])

    for s in stn_roots:
        walk_stn(s, [s])
    for th in sysn.iter("thread"):      # Cube3-compatible layout: <thread id=".."> are the locations
        locs.append(th)
    lids = []
    for l in locs:
        v = l.get("Id", l.get("id"))
        if v is None or not v.isdigit():
            rep.E("location without integer Id")
            continue
        lids.append(int(v))
    if len(set(lids)) != len(lids):
        rep.E("duplicate location Ids")
    if sorted(lids) != list(range(len(lids))):
        rep.E("location Ids must be exactly 0..L-1: values in a data row are indexed by location "
              "Id (found %s)" % sorted(lids)[:10])
    L = len(locs)
    rep.I("system: %d location(s)" % L)

    # ------------------------------------------------------------ data
    known = set(names)
    for n in names:
        mm = re.fullmatch(r"(?:ghost_)?(\d+)\.(index|data)", n)
        if mm and int(mm.group(1)) not in metrics:
            rep.E("tar member %s belongs to no metric id" % n)
    de, we = deep_enum(roots), wide_enum(roots)
    for mid, m in sorted(metrics.items()):
        pre = "ghost_" if m["viz"].upper() == "GHOST" else ""
        iname, dname = "%s%d.index" % (pre, mid), "%s%d.data" % (pre, mid)
        has_i, has_d = iname in known, dname in known
        if m["type"] in DERIVED:
            if has_i or has_d:
                rep.W("derived metric %d has data files (ignored by CubeLib)" % mid)
            continue
        if not has_i and not has_d:
            rep.I("metric %d (%s): no data files -> all values 0" % (mid, m["uniq"]))
            continue
        if has_i != has_d:
            rep.E("metric %d: only one of %s / %s present" % (mid, iname, dname))
            continue
        ib, db = files[iname], files[dname]
        if ib[:11] != b"CUBEX.INDEX":
            rep.E("%s: bad marker %r" % (iname, ib[:11]))
            continue
        (one_le,) = struct.unpack("<I", ib[11:15])
        end = "<" if one_le == 1 else ">"
        (one,) = struct.unpack(end + "I", ib[11:15])
        if one != 1:
            rep.E("%s: endianness word is %#x (must be 1 in writer byte order)" % (iname, one_le))
            continue
        version, fmt = struct.unpack(end + "HB", ib[15:18])
        if version != 0:
            rep.W("%s: index version %d (cubew writes 0)" % (iname, version))
        if fmt == 1:
            (n,) = struct.unpack(end + "I", ib[18:22])
            if len(ib) != 22 + 4 * n:
                rep.E("%s: size %d != 22 + 4*%d" % (iname, len(ib), n))
                continue
            idx = list(struct.unpack(end + "%dI" % n, ib[22:22 + 4 * n]))
            if any(b <= a for a, b in zip(idx, idx[1:])):
                rep.E("%s: sparse index not strictly ascending (CubeLib binary-searches it)" % iname)
            if idx and idx[-1] >= ncn:
                rep.E("%s: index entry %d >= number of cnodes %d" % (iname, idx[-1], ncn))
            if n == 0:
                rep.R("R1", "%s: empty sparse index (pycubexr asserts a non-empty one)" % iname)
            if m["dtype"] in ("MAXDOUBLE", "MINDOUBLE") and idx != list(range(ncn)):
                rep.R("R1", "%s lists %d of the %d call paths of a %s metric: pycubexr builds "
                      "a missing path's row from the values' numpy type, which %s values "
                      "lack ('MaxValues' object has no attribute 'dtype')"
                      % (iname, n, ncn, m["dtype"], m["dtype"]))
        elif fmt == 3:
            if len(ib) != 18:
                rep.E("%s: dense index must be exactly 18 bytes, is %d" % (iname, len(ib)))
            idx = list(range(ncn))
            rep.R("R1", "%s: DENSE index: CubeLib ok, pycubexr cannot read it (expects a count)"
                  % iname)
        else:
            rep.E("%s: index format byte %d (1 = sparse, 3 = dense)" % (iname, fmt))
            continue
        if dtype_size(m["dtype"]) is None:
            continue
        code, esz = dtype_size(m["dtype"])
        rowbytes = L * esz
        if db[:10] == b"CUBEX.DATA":
            payload = db[10:]
        elif db[:11] == b"ZCUBEX.DATA":
            (cnt,) = struct.unpack(end + "Q", db[11:19])
            hdr = struct.unpack(end + "%dQ" % (3 * cnt), db[19:19 + 24 * cnt])
            pos = 19 + 24 * cnt
            payload = b""
            for k in range(cnt):
                usz_pos, cpos, csz = hdr[3 * k:3 * k + 3]
                if csz == 0:
                    continue
                try:
                    payload += zlib.decompress(db[pos + cpos:pos + cpos + csz])
                except zlib.error as e:
                    rep.E("%s: compressed row %d (at %d, %d bytes) not decodable within the tar "
                          "member (%d bytes): %s. cubew 4.8.2 writes the UNcompressed size into the "
                          "tar header of ZCUBEX.DATA members; CubeLib then reads zeros -> never "
                          "write compressed data" % (dname, k, pos + cpos, csz, len(db), e))
                    payload = None
                    break
            if payload is None:
                continue
            if cnt != len(idx):
                rep.E("%s: %d compressed rows but index has %d" % (dname, cnt, len(idx)))
            rep.I("%s: zlib-compressed (ZCUBEX.DATA), %d rows" % (dname, cnt))
        else:
            rep.E("%s: bad marker %r" % (dname, db[:11]))
            continue
        if len(payload) > len(idx) * rowbytes:
            rep.R("R3", "%s: %d bytes after the %d rows of %d %s values: pycubexr reads them as "
                  "more rows" % (dname, len(payload) - len(idx) * rowbytes, len(idx), L,
                                 m["dtype"]))
        if len(payload) != len(idx) * rowbytes:
            (rep.E if len(payload) < len(idx) * rowbytes else rep.W)(
                "%s: payload %d bytes != rows(%d) * locations(%d) * sizeof(%s)=%d%s"
                % (dname, len(payload), len(idx), L, m["dtype"], len(idx) * rowbytes,
                   "" if len(payload) < len(idx) * rowbytes else " (trailing bytes ignored by CubeLib)"))
            if len(payload) < len(idx) * rowbytes:
                continue
            payload = payload[:len(idx) * rowbytes]
        order = de if m["type"] == "EXCLUSIVE" else (we if m["type"] == "INCLUSIVE" else
                                                     sorted(allc, key=lambda c: int(c.get("id"))))
        if code is not None:
            vals = struct.unpack(end + "%d%s" % (len(payload) // esz, code), payload)
            if code == "Q" and any(v > UINT64_READABLE_MAX for v in vals):
                rep.R("R4", "metric %d (%s): UINT64 values above %#x, which CubeLib and "
                      "pycubexr refuse by default" % (mid, m["uniq"], UINT64_READABLE_MAX))
            if code == "d" and any(v != v or v in (float("inf"), float("-inf")) for v in vals):
                rep.R("R4", "metric %d (%s): NaN or infinite values" % (mid, m["uniq"]))
            bycn = {}
            for r, pos in enumerate(idx):
                cn = order[pos] if pos < len(order) else None
                if cn is not None:
                    bycn[int(cn.get("id"))] = vals[r * L:(r + 1) * L]
            tot = sum(sum(v) for v in bycn.values())
            if a.values:
                rep.I("metric %d %s [%s %s]: %d rows, sum over all cnodes/locations = %r"
                      % (mid, m["uniq"], m["type"], m["dtype"], len(idx), tot))
            if m["type"] == "INCLUSIVE" and code in "dqQiIhHbB":
                bad = 0
                for c in allc:
                    pv = bycn.get(int(c.get("id")), (0,) * L)
                    kids = c.findall("cnode")
                    for li in range(L):
                        s = sum(bycn.get(int(k.get("id")), (0,) * L)[li] for k in kids)
                        if s > pv[li] * (1 + 1e-9) + 1e-12:
                            bad += 1
                if bad:
                    rep.W("metric %d (%s, INCLUSIVE): %d (cnode,location) pairs where children's "
                          "inclusive sum exceeds the parent's value -> negative exclusive values"
                          % (mid, m["uniq"], bad))
            if code in "QIHB" or m["type"] == "EXCLUSIVE":
                neg = sum(1 for v in vals if v < 0)
                if neg and m["dtype"] not in ("MINDOUBLE", "MAXDOUBLE"):
                    rep.W("metric %d (%s): %d negative values" % (mid, m["uniq"], neg))
    if a.tree:
        def pr(c, d):
            r = regions.get(int(c.get("calleeId")))
            print("  " * d + "%s [cnode %s]" % (r.findtext("name") if r is not None else "?",
                                                 c.get("id")))
            for k in c.findall("cnode"):
                pr(k, d + 1)
        for r in roots:
            pr(r, 0)
    return 0


def walk_tar(raw, rep, cubelib_rule):
    """Minimal ustar walker. Standard rule: data padded to the next 512 multiple, stop at a
    zero block (what Python tarfile / pycubexr and GNU tar do).  cubelib_rule: CubeLib 4.8
    TarReader: next header = pos + 512 + ((size/512)+1)*512 for size>0 (always at least one
    padding byte, i.e. a whole extra block when size%512 == 0); zero blocks are skipped."""
    out = {}
    pos = 0
    n = len(raw)
    pax_size = None
    while pos + 512 <= n:
        h = raw[pos:pos + 512]
        if h == b"\0" * 512:
            if cubelib_rule:
                pos += 512
                continue
            rest = raw[pos + 512:]
            if rest.strip(b"\0") and rep is not None:
                rep.E("zero block at offset %d followed by more data: Python tarfile (pycubexr) "
                      "and GNU tar stop here and lose the remaining members (cubew pads a member "
                      "whose size is a multiple of 512 with an extra zero block)" % pos)
            break
        name = h[0:100].split(b"\0", 1)[0].decode("utf-8", "replace")
        prefix = h[345:500].split(b"\0", 1)[0].decode("utf-8", "replace")
        if prefix and h[257:262] == b"ustar":
            name = prefix + "/" + name
        szf = h[124:136]
        if szf[0] & 0x80:
            size = int.from_bytes(szf[1:], "big")
        else:
            try:
                size = int(szf.split(b"\0", 1)[0].strip() or b"0", 8)
            except ValueError:
                if rep is not None:
                    rep.E("tar header at %d: size field %r not octal" % (pos, szf))
                return None
        typ = h[156:157]
        if rep is not None and not cubelib_rule:
            try:
                chk = int(h[148:156].split(b"\0", 1)[0].strip() or b"0", 8)
            except ValueError:
                chk = -1
            calc = sum(h[:148]) + 8 * 32 + sum(h[156:])
            if chk != calc:
                rep.W("tar header of %r: checksum %s != computed %o (GNU tar / Python tarfile reject "
                      "it; CubeLib ignores checksums; pycubexr has a workaround)" % (name, oct(chk), calc))
            if h[257:262] != b"ustar":
                rep.W("tar header of %r: no ustar magic" % name)
            if typ not in (b"0", b"\0", b"x"):
                rep.W("tar member %r has typeflag %r (regular file '0' expected)" % (name, typ))
            if size and size % 512 == 0:
                rep.E("tar member %r has size %d, a multiple of 512: CubeLib expects a whole extra "
                      "padding block after it, standard tar readers do not -> one of them misreads "
                      "the archive. Avoid (pad anchor.xml with a newline; use 8-byte dtypes)"
                      % (name, size))
        if cubelib_rule:
            nxt = pos + 512 + ((size // 512) + 1) * 512 if size else pos + 512
        else:
            nxt = pos + 512 + ((size + 511) // 512) * 512
        if typ == b"x":
            body = raw[pos + 512:pos + 512 + size].decode("utf-8", "replace")
            for line in body.splitlines():
                if " size=" in line:
                    pax_size = int(line.split("size=", 1)[1])
            pos = nxt
            continue
        if pax_size is not None:
            size = pax_size
            pax_size = None
            nxt = (pos + 512 + ((size // 512) + 1) * 512) if cubelib_rule else \
                (pos + 512 + ((size + 511) // 512) * 512)
        if name:
            if name in out and rep is not None:
                rep.E("duplicate tar member %r" % name)
            out[name] = (pos + 512, size)
        if pos + 512 + size > n and rep is not None:
            rep.E("tar member %r truncated" % name)
        pos = nxt
    return out


def max_depth(roots):
    def d(c):
        kids = c.findall("cnode")
        return 1 + (max(d(k) for k in kids) if kids else 0)
    return max((d(r) for r in roots), default=0)


if __name__ == "__main__":
    main()
