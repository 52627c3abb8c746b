#!/usr/bin/env python3
"""config_vars_md.py - the `hp-info config-vars` table as the Markdown table of
doc/user-guide.md §3, so the guide's variable texts have one source (test t036).

    hp-info config-vars | python3 config_vars_md.py            # print the table
    hp-info config-vars | python3 config_vars_md.py --update F  # rewrite F's table
    hp-info config-vars | python3 config_vars_md.py --check F   # exit 1 if F differs

The table sits in F between the lines BEGIN and END below.
"""
import sys

BEGIN = "<!-- generated from `hp-info config-vars` by test/tools/config_vars_md.py; do not edit -->"
END = "<!-- end of the generated table -->"


def parse(text):
    """[(name, type, default, description)] from hp-info's blocks: a name line, then
    indented 'Type:', 'Default:' and description lines, blocks separated by blank lines."""
    out, cur = [], None
    for line in text.splitlines():
        if line and not line[0].isspace():
            cur = {"name": line.strip(), "type": "", "default": "", "descr": []}
            out.append(cur)
        elif line.strip() and cur is not None:
            s = line.strip()
            if s.startswith("Type:") and not cur["type"]:
                cur["type"] = s[len("Type:"):].strip()
            elif s.startswith("Default:") and not cur["default"]:
                cur["default"] = s[len("Default:"):].strip()
            else:
                cur["descr"].append(s)
    return [(c["name"], c["type"], c["default"], " ".join(c["descr"])) for c in out]


def cell(s):
    """Markdown table cell text: '|' would end the cell, '<x>' would be read as HTML."""
    return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def table(rows):
    lines = [BEGIN, "| variable | default | accepted | meaning |", "|---|---|---|---|"]
    for name, typ, default, descr in rows:
        # A default with spaces is a rule ("true when sampling is on"), not a value.
        d = ("empty" if default == "(empty)" else default if " " in default
             else "`%s`" % default)
        lines.append("| `%s` | %s | %s | %s |" % (name, cell(d), cell(typ), cell(descr)))
    lines.append(END)
    return "\n".join(lines) + "\n"


def splice(doc, tab):
    if BEGIN not in doc or END not in doc:
        raise SystemExit("config_vars_md.py: the file has no generated table (its BEGIN/END lines)")
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    return head + tab.rstrip("\n") + tail


def main():
    tab = table(parse(sys.stdin.read()))
    if len(sys.argv) == 1:
        sys.stdout.write(tab)
        return 0
    if len(sys.argv) != 3 or sys.argv[1] not in ("--update", "--check"):
        raise SystemExit("usage: hp-info config-vars | config_vars_md.py [--update|--check FILE]")
    path = sys.argv[2]
    doc = open(path, encoding="utf-8").read()
    new = splice(doc, tab)
    if sys.argv[1] == "--update":
        if new != doc:
            open(path, "w", encoding="utf-8").write(new)
        return 0
    if new != doc:
        sys.stderr.write("%s: the variable table differs from `hp-info config-vars`; run\n"
                         "  hp-info config-vars | python3 test/tools/config_vars_md.py "
                         "--update %s\n" % (path, path))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
