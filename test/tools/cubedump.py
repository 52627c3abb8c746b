#!/usr/bin/python3
"""cubedump.py - print the contents of a Cube4 (.cubex) profile as stable text lines.

An independent reader for the integration tests: it follows doc/formats/CUBE4-OTF2.md
(tar container, anchor.xml, sparse index, per-metric call-tree enumeration) and shares
no code with profile/cube_writer.c, so that a writer bug shows up as a difference.
Python 3 standard library only.

    cubedump.py FILE              one line per (cnode, location), cnodes in DFS pre-order:
        PATH<TAB>LOC<TAB>visits=N<TAB>time_incl=S<TAB>time_excl=S<TAB>min_time=S<TAB>max_time=S
        then the other metrics as name=value (EXCLUSIVE) or name_incl=v, name_excl=v
        (INCLUSIVE); metrics not defined in the file are left out
    cubedump.py --regions FILE    id, name, mangled_name, file, begin, paradigm, role
    cubedump.py --locations FILE  id, machine/node path, process name, rank, thread name,
                                  thread rank
    cubedump.py --paths FILE      the distinct call paths, DFS order

PATH is the region names from the root joined by '/'. Fields are separated by tabs; a tab
or newline inside a name is printed as \\t or \\n. Floating-point values use %.9f. Errors
(not a tar, missing member, bad marker, inconsistent sizes) go to stderr, exit status 1.
"""
import struct
import sys
import tarfile
import xml.etree.ElementTree as ET

# dtype -> (struct code, size in bytes) for the dtypes with plain numeric values.
DTYPES = {
    "DOUBLE": ("d", 8), "FLOAT": ("d", 8), "MINDOUBLE": ("d", 8), "MAXDOUBLE": ("d", 8),
    "INTEGER": ("q", 8), "INT64": ("q", 8), "SIGNED INTEGER": ("q", 8),
    "UINT64": ("Q", 8), "UNSIGNED INTEGER": ("Q", 8),
    "INT32": ("i", 4), "INT": ("i", 4), "SIGNED INT": ("i", 4),
    "UINT32": ("I", 4), "UNSIGNED INT": ("I", 4),
    "INT16": ("h", 2), "SHORT INT": ("h", 2), "SIGNED SHORT INT": ("h", 2),
    "UINT16": ("H", 2), "UNSIGNED SHORT INT": ("H", 2),
    "INT8": ("b", 1), "UINT8": ("B", 1), "CHAR": ("B", 1),
}
# Printed first, in this order, when present; "time" is shown as inclusive + exclusive.
FIXED = ("visits", "time", "min_time", "max_time")
TAR_BLOCK = 512


class CubeError(Exception):
    pass


class Cnode(object):
    def __init__(self, elem, region, parent):
        self.id = int(elem.get("id"))
        self.region = region
        self.parent = parent
        self.children = []
        self.path = region["name"] if parent is None else parent.path + "/" + region["name"]


class Metric(object):
    def __init__(self, elem):
        self.id = int(elem.get("id"))
        self.type = elem.get("type", "EXCLUSIVE")
        self.name = text(elem, "uniq_name")
        self.dtype = text(elem, "dtype")
        self.viztype = elem.get("viztype", "NORMAL")
        self.stored = None  # {cnode id: [value per location]}, absent cnode = zeros


def text(elem, tag, default=""):
    t = elem.findtext(tag)
    return default if t is None else t.strip()


def clean(s):
    return s.replace("\t", "\\t").replace("\n", "\\n")


# ------------------------------------------------------------------ container

def read_members(path):
    """All regular members of the tar file, name -> bytes."""
    try:
        tf = tarfile.open(path, "r:")
    except (tarfile.TarError, OSError) as e:
        raise CubeError("not a readable tar archive: %s" % e)
    members = {}
    with tf:
        for info in tf:
            if not info.isfile():
                continue
            # A member whose size is a multiple of 512 is read differently by CubeLib
            # (which skips an extra block after it) and by standard tar readers.
            if info.size and info.size % TAR_BLOCK == 0:
                raise CubeError("member %s has size %d, a multiple of 512" % (info.name, info.size))
            members[info.name] = tf.extractfile(info).read()
    return members


# ------------------------------------------------------------------ anchor.xml

def parse_anchor(members):
    if "anchor.xml" not in members:
        raise CubeError("missing member anchor.xml")
    raw = members["anchor.xml"]
    if not raw.startswith(b"<?xml"):
        raise CubeError("anchor.xml does not start with <?xml")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as e:
        raise CubeError("anchor.xml is not well-formed: %s" % e)
    if root.tag != "cube":
        raise CubeError("anchor.xml root is <%s>, not <cube>" % root.tag)
    for tag in ("metrics", "program", "system"):
        if root.find(tag) is None:
            raise CubeError("anchor.xml has no <%s>" % tag)
    return root


def parse_metrics(root):
    out = []

    def walk(parent):
        for m in parent.findall("metric"):
            out.append(Metric(m))
            walk(m)
    walk(root.find("metrics"))
    return out


def parse_regions(root):
    regions = {}
    for r in root.find("program").findall("region"):
        name = text(r, "name")
        regions[int(r.get("id"))] = {
            "id": int(r.get("id")), "name": name,
            "mangled_name": text(r, "mangled_name", name),
            "file": r.get("mod", ""), "begin": int(r.get("begin", "-1")),
            "paradigm": text(r, "paradigm", "unknown"), "role": text(r, "role", "unknown"),
        }
    return regions


def parse_cnodes(root, regions):
    """The root cnodes (document order) with their subtrees."""
    def build(elem, parent):
        callee = int(elem.get("calleeId"))
        if callee not in regions:
            raise CubeError("cnode %s calls undefined region %d" % (elem.get("id"), callee))
        c = Cnode(elem, regions[callee], parent)
        for ch in elem.findall("cnode"):
            c.children.append(build(ch, c))
        return c
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    return [build(e, None) for e in root.find("program").findall("cnode")]


def deep_enumeration(roots):
    """EXCLUSIVE metrics: depth-first pre-order over the roots in document order."""
    out, stack = [], list(reversed(roots))
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(reversed(c.children))
    return out


def wide_enumeration(roots):
    """INCLUSIVE metrics (CubeLib's "wide" order): a root, then all its children, then
    recursively for each child all of the child's children, and so on."""
    out = []
    for r in roots:
        out.append(r)
        stack = [r]
        while stack:
            c = stack.pop()
            out.extend(c.children)
            stack.extend(reversed(c.children))
    return out


def parse_locations(root):
    """Locations sorted by Id: dicts with id, path, process, rank, name, thread_rank."""
    locs = []

    def walk(stn, prefix):
        path = prefix + [text(stn, "name")]
        for lg in stn.findall("locationgroup"):
            for loc in lg.findall("location"):
                locs.append({
                    "id": int(loc.get("Id")), "path": "/".join(path),
                    "process": text(lg, "name"), "rank": text(lg, "rank"),
                    "name": text(loc, "name"), "thread_rank": text(loc, "rank"),
                })
        for child in stn.findall("systemtreenode"):
            walk(child, path)
    for stn in root.find("system").findall("systemtreenode"):
        walk(stn, [])
    locs.sort(key=lambda l: l["id"])
    if [l["id"] for l in locs] != list(range(len(locs))):
        raise CubeError("location Ids are not 0..%d" % (len(locs) - 1))
    return locs


# ------------------------------------------------------------------ index + data

def read_index(name, raw):
    """Returns (byte-order prefix for struct, list of positions or None for DENSE)."""
    if raw[:11] != b"CUBEX.INDEX":
        raise CubeError("%s: bad marker %r" % (name, raw[:11]))
    if len(raw) < 18:
        raise CubeError("%s: truncated header" % name)
    if struct.unpack("<I", raw[11:15])[0] == 1:
        order = "<"
    elif struct.unpack(">I", raw[11:15])[0] == 1:
        order = ">"
    else:
        raise CubeError("%s: bad byte-order marker %r" % (name, raw[11:15]))
    fmt = raw[17]
    if fmt == 3:
        return order, None
    if fmt != 1:
        raise CubeError("%s: unsupported index format %d" % (name, fmt))
    (n,) = struct.unpack(order + "I", raw[18:22])
    if len(raw) != 22 + 4 * n:
        raise CubeError("%s: size %d does not match %d entries" % (name, len(raw), n))
    rows = list(struct.unpack(order + "%dI" % n, raw[22:]))
    if any(b <= a for a, b in zip(rows, rows[1:])):
        raise CubeError("%s: positions not strictly ascending" % name)
    return order, rows


def load_values(metric, members, roots, nlocs):
    prefix = "ghost_" if metric.viztype.upper() == "GHOST" else ""
    iname, dname = "%s%d.index" % (prefix, metric.id), "%s%d.data" % (prefix, metric.id)
    metric.stored = {}
    if iname not in members and dname not in members:
        return  # defined without data: all zeros
    if iname not in members or dname not in members:
        raise CubeError("metric %s: missing member %s" %
                        (metric.name, iname if iname not in members else dname))
    if metric.dtype not in DTYPES:
        raise CubeError("metric %s: unsupported dtype %r" % (metric.name, metric.dtype))
    code, size = DTYPES[metric.dtype]
    order, rows = read_index(iname, members[iname])
    if metric.type == "EXCLUSIVE":
        enum = deep_enumeration(roots)
    elif metric.type == "INCLUSIVE":
        enum = wide_enumeration(roots)
    else:  # SIMPLE: definition (id) order
        enum = sorted(deep_enumeration(roots), key=lambda c: c.id)
    if rows is None:
        rows = list(range(len(enum)))
    if rows and rows[-1] >= len(enum):
        raise CubeError("%s: position %d beyond %d cnodes" % (iname, rows[-1], len(enum)))
    raw = members[dname]
    if raw[:10] != b"CUBEX.DATA":
        raise CubeError("%s: bad marker %r" % (dname, raw[:11]))
    if len(raw) != 10 + len(rows) * nlocs * size:
        raise CubeError("%s: size %d, expected 10 + %d rows * %d locations * %d bytes"
                        % (dname, len(raw), len(rows), nlocs, size))
    vals = struct.unpack(order + "%d%s" % (len(rows) * nlocs, code), raw[10:])
    for r, pos in enumerate(rows):
        metric.stored[enum[pos].id] = list(vals[r * nlocs:(r + 1) * nlocs])


def stored(metric, c, loc):
    row = metric.stored.get(c.id)
    return row[loc] if row is not None else 0


def derive(metric, roots, nlocs):
    """Sets metric.incl and metric.excl ({cnode id: row}) from the stored values:
    incl = sum of excl over the subtree, excl = incl - sum of the children's incl."""
    order = deep_enumeration(roots)
    zero = [0] * nlocs
    metric.incl, metric.excl = {}, {}
    for c in reversed(order):  # children before their parent
        own = metric.stored.get(c.id, zero)
        kids = [metric.incl[k.id] for k in c.children]
        if metric.type == "INCLUSIVE":
            metric.incl[c.id] = own
            metric.excl[c.id] = [own[l] - sum(k[l] for k in kids) for l in range(nlocs)]
        else:
            metric.excl[c.id] = own
            metric.incl[c.id] = [own[l] + sum(k[l] for k in kids) for l in range(nlocs)]


def fmt(metric, v):
    code = DTYPES.get(metric.dtype, ("d", 8))[0]
    if code != "d":
        return "%d" % v
    s = "%.9f" % v
    return "0.000000000" if s == "-0.000000000" else s


# ------------------------------------------------------------------ output

def dump_values(root, members, out):
    metrics = parse_metrics(root)
    roots = parse_cnodes(root, parse_regions(root))
    locs = parse_locations(root)
    for m in metrics:
        if m.type in ("EXCLUSIVE", "INCLUSIVE", "SIMPLE"):
            load_values(m, members, roots, len(locs))
            derive(m, roots, len(locs))
    by_name = {m.name: m for m in metrics if m.stored is not None}
    others = [m for m in metrics if m.stored is not None and m.name not in FIXED]
    for c in deep_enumeration(roots):
        for loc in range(len(locs)):
            f = [clean(c.path), str(loc)]

            def add(label, m, kind):
                rows = m.incl if kind == "incl" else m.excl
                f.append("%s=%s" % (label, fmt(m, rows[c.id][loc])))
            if "visits" in by_name:
                add("visits", by_name["visits"], "excl")
            if "time" in by_name:
                add("time_incl", by_name["time"], "incl")
                add("time_excl", by_name["time"], "excl")
            for name in ("min_time", "max_time"):
                if name in by_name:  # per-visit extremes: printed as stored
                    f.append("%s=%s" % (name, fmt(by_name[name], stored(by_name[name], c, loc))))
            for m in others:
                if m.type == "INCLUSIVE":
                    add(m.name + "_incl", m, "incl")
                    add(m.name + "_excl", m, "excl")
                else:
                    add(m.name, m, "excl")
            out.write("\t".join(f) + "\n")


def dump_regions(root, out):
    for rid, r in sorted(parse_regions(root).items()):
        out.write("\t".join(clean(str(x)) for x in (
            rid, r["name"], r["mangled_name"], r["file"], r["begin"], r["paradigm"], r["role"]))
            + "\n")


def dump_locations(root, out):
    for l in parse_locations(root):
        out.write("\t".join(clean(str(l[k])) for k in (
            "id", "path", "process", "rank", "name", "thread_rank")) + "\n")


def dump_paths(root, out):
    seen = set()
    for c in deep_enumeration(parse_cnodes(root, parse_regions(root))):
        if c.path not in seen:
            seen.add(c.path)
            out.write(clean(c.path) + "\n")


def main(argv):
    modes = {"--regions", "--locations", "--paths"}
    if len(argv) == 2 and not argv[1].startswith("--"):
        mode, path = None, argv[1]
    elif len(argv) == 3 and argv[1] in modes:
        mode, path = argv[1], argv[2]
    else:
        sys.stderr.write("usage: cubedump.py [--regions|--locations|--paths] FILE.cubex\n")
        return 2
    try:
        members = read_members(path)
        root = parse_anchor(members)
        if mode is None:
            dump_values(root, members, sys.stdout)
        elif mode == "--regions":
            dump_regions(root, sys.stdout)
        elif mode == "--locations":
            dump_locations(root, sys.stdout)
        else:
            dump_paths(root, sys.stdout)
    except CubeError as e:
        sys.stderr.write("cubedump.py: %s: %s\n" % (path, e))
        return 1
    except (ValueError, TypeError, KeyError, struct.error) as e:
        sys.stderr.write("cubedump.py: %s: malformed file: %s\n" % (path, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
