#!/usr/bin/env python3
"""doc_vars_check.py - the documentation's claims about configuration variables that a
test can check against the tool (test t036). Reads `hp-info config-vars` on stdin.

    hp-info config-vars | python3 doc_vars_check.py SRCDIR

1. Every row of README.md's variable table names variables that `hp-info config-vars`
   lists, with the same default (the first word of the README's default column; an
   empty default reads as "none" or "empty", or the text says what empty means).
2. Every HP_ name that README.md or doc/*.md mentions is a configuration variable or a
   name that the sources outside doc/ use (hp-instrument's, the test scripts', the
   example plug-ins'), so that no text names a variable the tool no longer has.
Prints one line per problem; exit 1 when there is any.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from config_vars_md import parse  # noqa: E402

SOURCE_DIRS = ("adapters", "bench", "build-aux", "examples", "include", "instrumenter",
               "measurement", "otf2-writer", "profile", "test", "tools", "util", "fuzz")
# The typo of the user guide's example of the unknown-variable warning (t036 runs it).
EXAMPLE_TYPOS = {"HP_ENABLE_TRACNG"}


def readme_rows(text):
    """(names, default) per row of the table under 'Environment variables'."""
    start = text.index("Environment variables, all listed")
    rows = []
    for line in text[start:].splitlines()[1:]:
        if not line.startswith("|") and rows:
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = re.findall(r"`(HP_[A-Z0-9_]+)`", cells[0]) if cells else []
        if names:
            rows.append((names, cells[1].strip("`")))
    return rows


def first_word(s):
    return re.split(r"[\s;(]", s.strip("`").strip(), maxsplit=1)[0].strip("`")


def main():
    src = sys.argv[1]
    vars_ = {name: default for name, _, default, _ in parse(sys.stdin.read())}
    problems = []
    readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    for names, default in readme_rows(readme):
        for n in names:
            if n not in vars_:
                problems.append("README.md: %s is not in hp-info config-vars" % n)
                continue
            want = vars_[n]
            if want == "(empty)":
                ok = first_word(default) in ("none", "empty") or n == "HP_EXPERIMENT_DIRECTORY"
            elif len(want) > 40:  # a list (HP_MPI_UNWIND_EXCLUDE): the README describes it
                ok = True
            else:
                ok = first_word(default) == want
            if not ok:
                problems.append("README.md: %s default %r, hp-info says %r" % (n, default, want))
    docs = [os.path.join(src, "README.md")] + sorted(
        os.path.join(src, "doc", f) for f in os.listdir(os.path.join(src, "doc"))
        if f.endswith(".md"))
    mentioned = {}
    for d in docs:
        for n in re.findall(r"\bHP_[A-Z][A-Z0-9_]*[A-Z0-9]\b", open(d, encoding="utf-8").read()):
            mentioned.setdefault(n, os.path.relpath(d, src))
    unknown = sorted(n for n in mentioned if n not in vars_ and n not in EXAMPLE_TYPOS)
    if unknown:
        dirs = [os.path.join(src, d) for d in SOURCE_DIRS if os.path.isdir(os.path.join(src, d))]
        found = subprocess.run(["grep", "-rhoE", "--exclude=*.md", "-e",
                                "\\b(" + "|".join(unknown) + ")\\b"] + dirs,
                               capture_output=True, text=True).stdout.split()
        for n in unknown:
            if n not in found:
                problems.append("%s: %s is no configuration variable and no name the sources "
                                "use" % (mentioned[n], n))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
