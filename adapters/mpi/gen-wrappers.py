#!/usr/bin/env python3
"""Generate the MPI wrappers of hpmeasure from the MPI library's C header.

    python3 gen-wrappers.py --header .../mpi_proto.h [--header .../mpio.h] \
        --semantics mpi-semantics.txt \
        --out-c mpi_wrappers.c --out-h mpi_functions.h --out-table mpi_functions.c
    python3 gen-wrappers.py --header ... --semantics mpi-semantics.txt --show MPI_Send

Every `MPI_*` prototype of the headers (after a small preprocessor pass that follows
#ifdef/#ifndef/#if defined(...)/#else/#endif and #define) becomes:
  - an enum constant HP_MPI_FN_<name> (mpi_functions.h),
  - an entry of hp_mpi_functions[] with its groups and Cube role (mpi_functions.c),
  - one wrapper function (mpi_wrappers.c), explained in doc/mpi-wrappers.md.
With --show NAME it writes nothing but prints the wrapper of NAME, as mpi_wrappers.c
holds it (doc/mpi-wrappers.md shows MPI_Send's, and t020 checks that it is this one).

The semantics table (mpi-semantics.txt) gives group, role and byte/request rules; its
header comment documents the format and the name rule for functions it does not list.
A table entry that names no function of the headers is an error (exit status 1).
stdlib only.
"""
import argparse
import re
import sys

GROUPS = ["cg", "coll", "env", "err", "ext", "io", "misc", "p2p", "rma", "spawn", "topo",
          "type", "xnonblock", "xreqtest"]
ROLES = ["function", "point2point", "barrier", "one2all", "all2one", "all2all",
         "other collective", "wrapper"]
SPECIAL = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort"}


def die(msg):
    sys.stderr.write("gen-wrappers.py: error: %s\n" % msg)
    sys.exit(1)


# --------------------------------------------------------------------------------------
# Header parsing
# --------------------------------------------------------------------------------------

def eval_if(expr, defined):
    """#if expressions: defined(X), !defined(X), &&, ||, 0, 1; anything else is true."""
    e = expr.strip()
    e = re.sub(r"defined\s*\(\s*(\w+)\s*\)", lambda m: "1" if m.group(1) in defined else "0", e)
    e = re.sub(r"defined\s+(\w+)", lambda m: "1" if m.group(1) in defined else "0", e)
    if re.fullmatch(r"[01\s!&|()]*", e):
        e = e.replace("&&", " and ").replace("||", " or ")
        e = re.sub(r"!(?!=)", " not ", e)
        try:
            return bool(eval(e, {"__builtins__": {}}, {}))
        except Exception:  # noqa: BLE001 - unknown form: keep the text
            return True
    return True


def preprocess(text, defined):
    """Drops comments and the text of false conditional blocks; records #defines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"\\\n", " ", text)
    out = []
    stack = []  # (active_before, taken, active_now)
    active = True
    for line in text.split("\n"):
        s = line.strip()
        m = re.match(r"#\s*(\w+)\s*(.*)", s)
        if not m:
            if active:
                out.append(line)
            continue
        d, rest = m.group(1), m.group(2)
        if d in ("ifdef", "ifndef", "if"):
            if d == "ifdef":
                c = rest.split()[0] in defined
            elif d == "ifndef":
                c = rest.split()[0] not in defined
            else:
                c = eval_if(rest, defined)
            stack.append((active, c))
            active = active and c
        elif d == "elif":
            parent, taken = stack[-1]
            c = (not taken) and eval_if(rest, defined)
            stack[-1] = (parent, taken or c)
            active = parent and c
        elif d == "else":
            parent, taken = stack[-1]
            stack[-1] = (parent, True)
            active = parent and not taken
        elif d == "endif":
            active = stack.pop()[0]
        elif d == "define" and active:
            defined.add(rest.split("(")[0].split()[0])
        elif d == "undef" and active:
            defined.discard(rest.split()[0])
    return "\n".join(out)


class Param:
    def __init__(self, decl):
        self.decl = " ".join(decl.split())
        m = re.search(r"(\w+)\s*((?:\[[^\]]*\]\s*)*)$", self.decl)
        self.name = m.group(1) if m else None
        self.array = bool(m and m.group(2))
        base = self.decl[: m.start(1)] if m else self.decl
        self.ctype = " ".join(base.replace("const", " ").split())  # without const
        self.pointer = self.array or "*" in base

    def is_count_array(self):
        return self.pointer and self.ctype.startswith("MPI_Count")


class Func:
    def __init__(self, ret, name, params, varargs):
        self.ret = ret
        self.name = name
        self.params = params
        self.varargs = varargs
        self.base = name[:-2] if name.endswith("_c") else name

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        return None

    def proto_params(self):
        if not self.params and not self.varargs:
            return "void"
        s = ", ".join(p.decl for p in self.params)
        if self.varargs:
            s += ", ..."
        return s

    def args(self):
        return ", ".join(p.name for p in self.params)


def split_top(s, sep=","):
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def parse_headers(paths):
    defined = {"MPICH", "__STDC__"}
    funcs = {}
    order = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = preprocess(fh.read(), defined)
        except OSError as e:
            die("cannot read header %s: %s" % (path, e))
        for stmt in text.split(";"):
            s = " ".join(stmt.split())
            if not s or s.startswith("typedef") or "{" in s or "}" in s and "MPI_" not in s:
                s = s.split("}")[-1].strip()
                if not s or s.startswith("typedef"):
                    continue
            m = re.match(r"^(?:extern\s+)?([A-Za-z_][\w\s\*]*?)\s*\b(MPI_\w+)\s*\((.*)$", s)
            if not m:
                continue
            ret, name, rest = m.group(1).strip(), m.group(2), m.group(3)
            if not ret or ret in ("typedef", "return") or ret.startswith("typedef"):
                continue
            # Find the closing parenthesis of the parameter list; what follows are
            # attribute macros (MPICH_API_PUBLIC, MPICH_ATTR_POINTER_WITH_TYPE_TAG(..)).
            depth, end = 1, None
            for i, ch in enumerate(rest):
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                    if depth == 0:
                        end = i
                        break
            if end is None:
                die("%s: cannot parse the prototype of %s" % (path, name))
            plist = rest[:end].strip()
            params, varargs = [], False
            if plist and plist != "void":
                for d in split_top(plist):
                    d = d.strip()
                    if d == "...":
                        varargs = True
                    else:
                        p = Param(d)
                        if p.name is None:
                            die("%s: unnamed parameter '%s' in %s" % (path, d, name))
                        params.append(p)
            if name in funcs:
                continue  # declared twice (mpi.h and mpio.h): first wins
            funcs[name] = Func(ret, name, params, varargs)
            order.append(name)
    return [funcs[n] for n in order]


# --------------------------------------------------------------------------------------
# Semantics table
# --------------------------------------------------------------------------------------

class Entry:
    def __init__(self, line_no, name, groups, role, rules, skip_reason=None):
        self.line_no = line_no
        self.name = name
        self.groups = groups
        self.role = role
        self.rules = rules  # list of (helper, [args]) ; helper may start with "persist:"
        self.skip_reason = skip_reason
        self.used = False


def parse_rules(text, line_no, path):
    text = text.strip()
    if text in ("", "-"):
        return []
    rules = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"([\w:]+)\s*\((.*)\)", part)
        if not m:
            die("%s:%d: bad rule '%s' (want helper(arg, ...))" % (path, line_no, part))
        args = [a.strip() for a in m.group(2).split(",")] if m.group(2).strip() else []
        rules.append((m.group(1), args))
    return rules


def parse_semantics(path):
    entries = {}
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        die("cannot read semantics table %s: %s" % (path, e))
    with fh:
        for no, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            cols = line.split(None, 2)
            if len(cols) < 2:
                die("%s:%d: want 'name groups role [rules]'" % (path, no))
            name = cols[0]
            if not re.fullmatch(r"MPI_\w+", name):
                die("%s:%d: '%s' is not an MPI function name" % (path, no, name))
            if name in entries:
                die("%s:%d: %s listed twice" % (path, no, name))
            if cols[1] == "skip":
                entries[name] = Entry(no, name, [], None, [], cols[2] if len(cols) > 2 else "")
                continue
            groups = cols[1].split(",")
            for g in groups:
                if g not in GROUPS:
                    die("%s:%d: unknown group '%s' (groups: %s)" % (path, no, g, ", ".join(GROUPS)))
            rest = cols[2] if len(cols) > 2 else "function"
            # The role may contain a space ("other collective"); rules follow it.
            role = None
            for r in sorted(ROLES, key=len, reverse=True):
                if rest == r or rest.startswith(r + " ") or rest.startswith(r + "\t"):
                    role = r
                    rest = rest[len(r):]
                    break
            if role is None:
                die("%s:%d: unknown role in '%s' (roles: %s)" % (path, no, rest, ", ".join(ROLES)))
            entries[name] = Entry(no, name, groups, role, parse_rules(rest, no, path))
    return entries


def name_rule_groups(name):
    """Groups of a function the table does not list (documented in mpi-semantics.txt)."""
    n = name[:-2] if name.endswith("_c") else name
    low = n.lower()
    if n.startswith("MPI_T_"):
        base = ["ext"]
    elif n.startswith("MPI_File_") or n.startswith("MPI_Register_datarep"):
        base = ["io"]
    elif n.startswith("MPI_Win_"):
        base = ["rma"]
    elif n.startswith(("MPI_Type_", "MPI_Pack", "MPI_Unpack")):
        base = ["type"]
    elif n.startswith(("MPI_Comm_", "MPI_Group_", "MPI_Intercomm_")):
        base = ["cg"]
    elif n.startswith(("MPI_Cart", "MPI_Graph", "MPI_Dist_graph", "MPI_Topo_", "MPI_Dims_")):
        base = ["topo"]
    elif n.startswith(("MPI_Session_",)):
        base = ["env"]
    else:
        base = []
    extra = []
    if "errhandler" in low or n.startswith(("MPI_Error_", "MPI_Add_error_")):
        extra.append("err")
    if "keyval" in low or re.search(r"_(get|set|delete)_attr$", n) or n.startswith("MPI_Attr_"):
        extra.append("ext")
    if re.search(r"_(c2f|f2c|c2f08|f082c|f082f|f2f08)$", n):
        extra.append("misc")
    groups = base + [g for g in extra if g not in base]
    return groups or ["misc"]


# --------------------------------------------------------------------------------------
# Code generation
# --------------------------------------------------------------------------------------

# Rules with their own pre/post code. {f} = the frame pointer, {0}.. = the arguments.
# Every other rule name R becomes `hp_mpi_bytes_R(&f, args)` after a successful call
# (with suffix _c when an argument is an MPI_Count array, for the large-count variants).
TEMPLATES = {
    "wait": ("MPI_Request hp_req = *{0};", "hp_mpi_req_complete({f}, hp_req, {1});"),
    "test": ("MPI_Request hp_req = *{0};", "if (*{1}) hp_mpi_req_complete({f}, hp_req, {2});"),
    "waitall": ("hp_mpi_reqs hp_reqs;\n    {2} = hp_mpi_req_save(&hp_reqs, {0}, {1}, {2});",
                "hp_mpi_req_complete_all({f}, &hp_reqs, {2});"),
    "testall": ("hp_mpi_reqs hp_reqs;\n    {3} = hp_mpi_req_save(&hp_reqs, {0}, {1}, {3});",
                "if (*{2}) hp_mpi_req_complete_all({f}, &hp_reqs, {3});"),
    "waitany": ("hp_mpi_reqs hp_reqs;\n    hp_mpi_req_save(&hp_reqs, {0}, {1}, NULL);",
                "hp_mpi_req_complete_one({f}, &hp_reqs, *{2}, {3});"),
    "testany": ("hp_mpi_reqs hp_reqs;\n    hp_mpi_req_save(&hp_reqs, {0}, {1}, NULL);",
                "if (*{3}) hp_mpi_req_complete_one({f}, &hp_reqs, *{2}, {4});"),
    "waitsome": ("hp_mpi_reqs hp_reqs;\n    {4} = hp_mpi_req_save(&hp_reqs, {0}, {1}, {4});",
                 "hp_mpi_req_complete_some({f}, &hp_reqs, *{2}, {3}, {4});"),
    "irecv": ("", "hp_mpi_req_track_recv(*{0});"),
    "recv_init": ("", "hp_mpi_req_track_precv(*{0});"),
    "start": ("", "hp_mpi_req_start({f}, *{0});"),
    "startall": ("", "hp_mpi_req_startall({f}, {0}, {1});"),
    "request_free": ("MPI_Request hp_req = *{0};", "hp_mpi_req_forget(hp_req);"),
    # Before the real call: MPI may hand the freed handle out again at once.
    "comm_free": ("hp_mpi_bytes_comm_free({f}, {0});", ""),
}
# Rules whose bookkeeping must also run when the call is not measured (requests complete
# or are freed; skipping would leave stale table entries).
COMPLETING = {"wait", "test", "waitall", "testall", "waitany", "testany", "waitsome",
              "request_free"}
# Rules that must run on every call, measured or not: the communicator registry
# (mpi_comms.c) agrees on a new communicator's identity collectively, so every member
# has to take part, and names and frees keep it right.
ALWAYS = {"comm_new", "comm_name", "comm_free"}


def c_rule(func, rule, frame="&f"):
    helper, args = rule
    for a in args:
        if not re.fullmatch(r"-?\d+|MPI_\w+", a) and func.param(a) is None:
            die("rule %s(%s) of %s: '%s' is not a parameter" % (helper, ", ".join(args),
                                                               func.name, a))
    persist = helper.startswith("persist:")
    if persist:
        helper = helper[len("persist:"):]
    if helper in TEMPLATES:
        pre, post = TEMPLATES[helper]
        return (pre.format(*args, f=frame) if pre else "",
                post.format(*args, f=frame))
    suffix = "_c" if any(func.param(a) is not None and func.param(a).is_count_array()
                         for a in args) else ""
    call_args = ", ".join(args)
    if persist:
        # Persistent collective / persistent send: compute now, count at each MPI_Start.
        req = "request"
        if func.param(req) is None:
            die("%s: persist: rule needs a 'request' parameter" % func.name)
        return ("", "{ hp_mpi_frame hp_tmp = { 0 }; hp_mpi_bytes_%s%s(&hp_tmp, %s); "
                "hp_mpi_req_track_persistent(*%s, &hp_tmp); }" % (helper, suffix, call_args, req))
    return ("", "hp_mpi_bytes_%s%s(%s, %s);" % (helper, suffix, frame, call_args))


def status_subst(func, rules):
    """Status pointers a rule reads: substitute our own when the user passed IGNORE."""
    lines = []
    seen = set()  # several rules may read the same status: one substitute
    for _, args in rules:
        for a in args:
            p = func.param(a)
            if p is not None and p.ctype == "MPI_Status *" and not p.array and a not in seen:
                seen.add(a)
                v = "hp_status_" + a
                lines.append("MPI_Status %s;\n    if (%s == MPI_STATUS_IGNORE)\n        %s = &%s;"
                             % (v, a, a, v))
    return lines


def unmeasured_call(ret, real, result):
    """The lines of a call that is not measured: it still runs inside the MPI library,
    so threads it creates are MPI's (measurement/core/runtime_calls.h). result is "return"
    or a declaration of ret."""
    lines = ["hp_runtime_call_begin();"]
    if ret == "void":
        lines += ["%s;" % real, "hp_runtime_call_end();"]
        if result == "return":
            lines.append("return;")
        return lines
    lines += ["%s ret = %s;" % (ret, real), "hp_runtime_call_end();"]
    if result == "return":
        lines.append("return ret;")
    return lines


def gen_wrapper(func, entry):
    name, ret = func.name, func.ret
    args = func.args()
    real = "HP_MPI_REAL(%s)(%s)" % (name, args)
    fn = "HP_MPI_FN_%s" % name
    out = ["HP_MPI_API %s %s(%s)" % (ret, name, func.proto_params()), "{"]
    if name == "MPI_Abort":
        code = func.param("errorcode") or func.params[-1]
        out += ["    hp_mpi_before_abort(%s);" % code.name,
                "    return %s;" % real, "}"]
        return "\n".join(out)
    rules = entry.rules if entry else []
    is_void = ret == "void"
    out.append("    hp_mpi_frame f;")
    completing = [r for r in rules if r[0] in COMPLETING]
    always = [r for r in rules if r[0] in ALWAYS]
    out.append("    if (!hp_mpi_enter(&f, %s)) {" % fn)
    if completing or always:
        # Not measured, but requests still complete (keep the request table right) or
        # the rule must run anyway (ALWAYS).
        pre_u, post_u = [], []
        for r in completing + always:
            pre, post = c_rule(func, r, "&f")
            pre_u.append(pre)
            if post:
                post_u.append(post)
        subst = status_subst(func, completing)
        if completing:
            out.append("        if (!hp_mpi_req_pending()) {")
            out += ["            " + x for x in unmeasured_call(ret, real, "return")]
            out.append("        }")
        body = ["hp_mpi_frame_clear(&f);"] + subst + [p for p in pre_u if p]
        body += unmeasured_call(ret, real, "declare")
        if post_u:
            body.append("if (ret == MPI_SUCCESS) {")
            body += ["    " + p for p in post_u]
            body.append("}")
        body.append("return ret;")
        for b in body:
            out += ["        " + x for x in b.replace("\n    ", "\n").split("\n")]
        out.append("    }")
    elif name in ("MPI_Init", "MPI_Init_thread"):
        # The life-cycle hooks run whether or not the call itself is measured.
        out += ["        " + x for x in unmeasured_call(ret, real, "declare")]
        out.append("        if (ret == MPI_SUCCESS)")
        out.append("            hp_mpi_after_init();")
        out.append("        return ret;")
        out.append("    }")
    elif name == "MPI_Finalize":
        out.append("        hp_mpi_before_finalize();")
        out += ["        " + x for x in unmeasured_call(ret, real, "return")]
        out.append("    }")
    else:
        out += ["        " + x for x in unmeasured_call(ret, real, "return")]
        out.append("    }")
    if name == "MPI_Finalize":
        out.append("    hp_mpi_before_finalize();")
    pre_list, post_list = [], []
    for r in rules:
        pre, post = c_rule(func, r)
        if pre:
            pre_list.append(pre)
        if post:
            post_list.append(post)
    for s in status_subst(func, rules):
        out.append("    " + s)
    for p in pre_list:
        out.append("    " + p)
    out.append("    %s ret = %s;" % (ret, real))
    if name in ("MPI_Init", "MPI_Init_thread"):
        out.append("    if (ret == MPI_SUCCESS)")
        out.append("        hp_mpi_after_init();")
    if post_list:
        out.append("    if (ret == MPI_SUCCESS) {")
        for p in post_list:
            out.append("        " + p)
        out.append("    }")
    # Without helpers the frame counts no messages: the exit need not add them.
    out.append("    hp_mpi_exit%s(&f);" % ("" if rules else "_no_bytes"))
    if not is_void:
        out.append("    return ret;")
    out.append("}")
    return "\n".join(out)


def show(name, wrapped, entries, a):
    """Prints the wrapper of name, or says why there is none."""
    for f, e in wrapped:
        if f.name == name:
            print(gen_wrapper(f, e))
            return 0
    e = entries.get(name)
    if e is not None and e.skip_reason is not None:
        die("--show %s: not wrapped (a skip entry of %s: %s)" % (name, a.semantics,
                                                               e.skip_reason))
    die("--show %s: no MPI function of that name in %s (want a name such as MPI_Send)"
        % (name, ", ".join(a.header)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", action="append", required=True,
                    help="MPI header with the MPI_* prototypes (repeatable: mpi_proto.h, mpio.h)")
    ap.add_argument("--semantics", required=True)
    ap.add_argument("--out-c")
    ap.add_argument("--out-h")
    ap.add_argument("--out-table")
    ap.add_argument("--show", metavar="NAME",
                    help="print the wrapper of MPI function NAME instead of writing files")
    a = ap.parse_args()
    if a.show is None and None in (a.out_c, a.out_h, a.out_table):
        ap.error("--out-c, --out-h and --out-table are required (unless --show NAME)")

    funcs = parse_headers(a.header)
    if not funcs:
        die("no MPI_* prototypes found in %s" % ", ".join(a.header))
    entries = parse_semantics(a.semantics)
    names = {f.name for f in funcs}
    for e in entries.values():
        if e.name not in names and e.name + "_c" not in names:
            die("%s:%d: %s names no function in %s" % (a.semantics, e.line_no, e.name,
                                                        ", ".join(a.header)))

    wrapped = []
    for f in funcs:
        e = entries.get(f.name) or entries.get(f.base)
        if e is not None:
            e.used = True
            if e.skip_reason is not None:
                continue
        wrapped.append((f, e))
    if a.show is not None:
        return show(a.show, wrapped, entries, a)

    src = " and ".join(p.split("/")[-1] for p in a.header)
    gen_note = ("generated by gen-wrappers.py from %s and %s; do not edit"
                % (src, a.semantics.split("/")[-1]))

    # mpi_functions.h
    h = ["/* %s */" % gen_note,
         "#ifndef HP_ADAPTERS_MPI_MPI_FUNCTIONS_H",
         "#define HP_ADAPTERS_MPI_MPI_FUNCTIONS_H", "",
         "enum hp_mpi_fn {"]
    for i, (f, _) in enumerate(wrapped):
        h.append("    HP_MPI_FN_%s = %d," % (f.name, i))
    h += ["    HP_MPI_FN_COUNT = %d" % len(wrapped), "};", "", "#endif", ""]

    # mpi_functions.c
    t = ["/* %s */" % gen_note, "#include <stddef.h>",
         '#include "mpi_adapter.h"', '#include "mpi_functions.h"', "",
         "__attribute__((visibility(\"default\")))",
         "const hp_mpi_function hp_mpi_functions[HP_MPI_FN_COUNT] = {"]
    for f, e in wrapped:
        if e is not None:
            groups, role = e.groups, e.role
        else:
            groups, role = name_rule_groups(f.name), "function"
        gbits = " | ".join("HP_MPI_GROUP_%s" % g.upper() for g in groups)
        t.append('    [HP_MPI_FN_%s] = { "%s", %s, "%s" },' % (f.name, f.name, gbits, role))
    t += ["};", "",
          "__attribute__((visibility(\"default\")))",
          "const unsigned hp_mpi_function_count = HP_MPI_FN_COUNT;", ""]

    # mpi_wrappers.c
    macros = sorted({f.name for f, _ in wrapped
                     if re.search(r"_(c2f|f2c|c2f08|f082c|f082f|f2f08)$", f.name)})
    c = ["/* %s */" % gen_note,
         "/* One wrapper per MPI function: guard (hp_mpi_enter), the real call through",
         " * HP_MPI_REAL, byte/request helpers (mpi_bytes.c, mpi_requests.c), hp_mpi_exit.",
         " * HP_MPI_REAL(name) is the next definition of name after ours: another PMPI tool's",
         " * MPI_name when one comes after us in the symbol search order, else MPI's own.",
         " * resolve_next_definitions() looks them up once, when the library is loaded; until",
         " * then (and when there is no next definition) the pointers hold PMPI_name. */",
         "#include <dlfcn.h>", "#include <mpi.h>", "#include <stddef.h>", "#include <string.h>",
         '#include "mpi_adapter.h"', '#include "mpi_bytes.h"', '#include "mpi_comms.h"',
         '#include "mpi_event.h"', '#include "mpi_lifecycle.h"', '#include "mpi_requests.h"',
         '#include "mpi_trace_rules.h"', '#include "mpi_functions.h"',
         '#include "measurement/core/runtime_calls.h"', "",
         "#pragma GCC diagnostic ignored \"-Wunused-parameter\"", "",
         "#define HP_MPI_API __attribute__((visibility(\"default\")))", "",
         "/* mpi.h may define the handle conversions as macros; we define functions. */"]
    for n in macros:
        c += ["#undef %s" % n, "#undef P%s" % n]
    c += ["", "#define HP_MPI_REAL(name) hp_mpi_next_##name", ""]
    for f, _ in wrapped:
        c.append("static __typeof__(&P%s) hp_mpi_next_%s = P%s;" % (f.name, f.name, f.name))
    c += ["",
          "static const struct { void *slot; const char *name; } hp_mpi_next_slots[] = {"]
    for f, _ in wrapped:
        c.append('    { &hp_mpi_next_%s, "%s" },' % (f.name, f.name))
    c += ["};", "",
          "__attribute__((constructor)) static void resolve_next_definitions(void)",
          "{",
          "    for (size_t i = 0; i < sizeof hp_mpi_next_slots / sizeof hp_mpi_next_slots[0]; i++) {",
          "        void *next = dlsym(RTLD_NEXT, hp_mpi_next_slots[i].name);",
          "        if (next != NULL)",
          "            memcpy(hp_mpi_next_slots[i].slot, &next, sizeof next);",
          "    }",
          "}", ""]
    for f, e in wrapped:
        c.append(gen_wrapper(f, e))
        c.append("")

    for path, lines in ((a.out_h, h), (a.out_table, t), (a.out_c, c)):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
    sys.stderr.write("gen-wrappers.py: %d MPI functions in %s, %d wrapped, %d listed in %s\n"
                     % (len(funcs), src, len(wrapped), len(entries), a.semantics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
