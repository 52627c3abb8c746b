#!/usr/bin/env python3
"""run-corpus.py - GCC's own test programs as a robustness corpus for hp-instrument.

Unpacks a few test folders of Debian's gcc-12-source tarball, compiles every file with the
plain compiler and with hpmeasure's wrapper (gcc/hp-gcc, g++/hp-g++, gfortran/hp-gfortran,
clang/hp-clang, clang++/hp-clang++) at -O0, -O2, -O3 (and -O2 -flto for the programs that
are linked), runs the execute tests both ways and compares exit status and standard
output. With HP_OVERHEAD_BUDGET=0 each instrumented run must leave a balanced profile.
Only files that the plain compiler builds count. Results: a table per compiler and level
plus the failing files, on stdout and in WORK/report.md; the exit status is 1 when there
was any crash, failure, behaviour difference or unbalanced profile.

doc/hp-instrument.md ("Robustness: GCC's own test programs") explains the choices; run
`run-corpus.py --help` for the options. Standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TARBALL = "/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz"
TAR_PREFIX = "gcc-12.2.0/gcc/testsuite/"

# name -> (folder in gcc/testsuite, kind, language). Kind "dg" reads the file's
# `dg-do run` to tell an execute test from a compile test.
SETS = {
    "c-compile": ("gcc.c-torture/compile", "compile", "c"),
    "c-execute": ("gcc.c-torture/execute", "execute", "c"),
    "c++-torture": ("g++.dg/torture", "dg", "c++"),
    "c++-opt": ("g++.dg/opt", "dg", "c++"),
    "c++-eh": ("g++.dg/eh", "dg", "c++"),
    "fortran-compile": ("gfortran.fortran-torture/compile", "compile", "fortran"),
    "fortran-execute": ("gfortran.fortran-torture/execute", "execute", "fortran"),
}
SUFFIXES = {
    "c": (".c",),
    "c++": (".C", ".cc", ".cpp"),
    "fortran": (".f", ".f90", ".F", ".F90", ".f95", ".f03", ".for"),
}
# (plain, instrumented) per language; clang has no Fortran here.
COMPILERS = {
    "c": [("gcc", "hp-gcc"), ("clang", "hp-clang")],
    "c++": [("g++", "hp-g++"), ("clang++", "hp-clang++")],
    "fortran": [("gfortran", "hp-gfortran")],
}
LEVELS = ["-O0", "-O2", "-O3", "-O2 -flto"]
LTO_LEVEL = "-O2 -flto"      # for linked (execute) tests only: -c -flto stops before code

COMPILE_TIMEOUT = 300
RUN_TIMEOUT = 20             # plain run; the instrumented run gets RUN_SLACK times more
RUN_SLACK = 5
CRASH = re.compile(r"internal compiler error|Segmentation fault|terminated by signal|"
                   r"killed by signal|PLEASE submit a bug report|Stack dump:|"
                   r"unable to execute command|compiler exited with signal")
# Options of dg-options that we drop: the level is ours, warnings are off (-w), and dumps,
# profiling output and self-checks add nothing to the question asked here.
DROPPED_OPTION = re.compile(r"-O|-W|-w$|-pedantic|-fdump-|-fprofile-|-ftest-coverage|"
                            r"-fdiagnostics-|-fno-diagnostics|-fopt-info|-save-temps|"
                            r"-fcompare-debug|-fself-test|-fmessage-length")
DG_OPTIONS = re.compile(r"\{\s*dg-(?:additional-)?options\s+(\"[^\"]*\"|\S+)(.*)$")
DG_RUN = re.compile(r"\{\s*dg-do\s+run\b")
XFAIL_RUN_EVERYWHERE = re.compile(r"dg-xfail-run-if\s+\"[^\"]*\"\s*\{\s*\*-\*-\*\s*\}")
MISMATCHED = "regions were closed by the exit of an outer function"
UNMATCHED = "function exits matched no entered function"


def say(msg):
    print("[corpus] " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the files

def extract(tarball, src, folders):
    """Unpacks the folders (relative to gcc/testsuite) that src does not hold yet. Each
    folder is unpacked beside src and moved into place, so that an interrupted run
    leaves no half-filled folder."""
    missing = [f for f in folders if not os.path.isdir(os.path.join(src, f))]
    if not missing:
        return
    if not os.path.isfile(tarball):
        sys.exit("run-corpus.py: %s: no such file; install Debian's gcc-12-source "
                 "(build-aux/setup.sh does) or pass --testsuite DIR" % tarball)
    os.makedirs(src, exist_ok=True)
    say("unpacking %s from %s" % (", ".join(missing), tarball))
    unpack = tempfile.mkdtemp(dir=src, prefix=".unpack-")
    cmd = ["tar", "-xJf", tarball, "-C", unpack, "--strip-components=3", "--wildcards"]
    subprocess.run(cmd + [TAR_PREFIX + f + "/*" for f in missing], check=True)
    for f in missing:
        os.makedirs(os.path.dirname(os.path.join(src, f)), exist_ok=True)
        os.rename(os.path.join(unpack, f), os.path.join(src, f))
    shutil.rmtree(unpack)


def dg_info(path):
    """(is a run test to run, list of options from unconditional dg-options lines)."""
    with open(path, encoding="latin-1") as f:
        text = f.read()
    # A run expected to fail everywhere (dg-xfail-run-if) has undefined behaviour, such as
    # pr101373.C's throwing const function: nothing to compare, so it is only compiled.
    run = DG_RUN.search(text) is not None and XFAIL_RUN_EVERYWHERE.search(text) is None
    options = []
    for line in text.splitlines():
        m = DG_OPTIONS.search(line)
        if m is None or re.search(r"\b(target|xfail)\b", m.group(2)):
            continue
        options += [o for o in m.group(1).strip('"').split() if not DROPPED_OPTION.match(o)]
    return run, options


def list_files(src, sets, wanted):
    """Test files as dicts (path, set, lang, execute, options), sorted by path; wanted
    (a set of paths relative to gcc/testsuite, or None) picks some of them."""
    files = []
    for name in sets:
        folder, kind, lang = SETS[name]
        for entry in sorted(os.listdir(os.path.join(src, folder))):
            rel = folder + "/" + entry
            if not entry.endswith(SUFFIXES[lang]) or (wanted is not None and rel not in wanted):
                continue
            run, options = dg_info(os.path.join(src, rel))
            execute = run if kind == "dg" else kind == "execute"
            files.append({"path": rel, "set": name, "lang": lang, "execute": execute,
                          "options": options})
    return files


def read_list(path):
    """The paths named in a list file (one per line, # comments)."""
    with open(path) as f:
        lines = [l.split("#", 1)[0].strip() for l in f]
    return {l for l in lines if l}


def set_of(path):
    for name, (folder, _, _) in SETS.items():
        if path.startswith(folder + "/") and "/" not in path[len(folder) + 1:]:
            return name
    sys.exit("run-corpus.py: %s: not in any of the folders %s" %
             (path, ", ".join(f for f, _, _ in SETS.values())))


# ---------------------------------------------------------------- one task

def run(cmd, cwd, env, timeout):
    """(exit status or 'timeout', stdout, stderr) of a command. A command that runs too
    long is killed with its process group (a compiler driver's cc1 too)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.communicate()
        return "timeout", b"", "timed out after %d s" % timeout


def first_error(text, crash):
    lines = [l for l in text.splitlines() if l.strip()]
    pattern = CRASH if crash else re.compile(r"\berror\b|fatal", re.I)
    for line in lines:
        if pattern.search(line):
            return line.strip()[:300]
    return lines[0].strip()[:300] if lines else "(no output)"


def deterministic(pdir, pout, ctx):
    """Whether a second plain run prints what the first did (programs that print
    addresses do not: the stack moves under ASLR, and with the environment)."""
    status, out, _ = run(["./prog"], pdir, ctx.env_plain, RUN_TIMEOUT)
    return status != "timeout" and out == pout


def balanced(exp, cubecheck):
    """None when the experiment is complete and balanced, else what is wrong."""
    summary = os.path.join(exp, "summary.txt")
    cube = os.path.join(exp, "profile.cubex")
    if not os.path.isfile(summary) or not os.path.isfile(cube):
        return "no profile written (%s)" % ", ".join(sorted(os.listdir(exp))) \
            if os.path.isdir(exp) else "no experiment directory"
    with open(summary, encoding="utf-8", errors="replace") as f:
        for line in f:
            if UNMATCHED in line or MISMATCHED in line:
                return "summary.txt: " + line.strip()
    status, out, err = run([sys.executable, cubecheck, cube], None, None, 120)
    if status != 0:
        return "cubecheck: " + first_error(out.decode("utf-8", "replace") + err, False)
    return None


def uses_nonlocal_exits(path, compiler):
    """Whether the source may leave functions without their exit hooks: a longjmp, a
    non-local goto out of a nested function (GNU C's __label__: no cleanups run, as with
    longjmp), or an exception under clang, whose hooks do not run during unwinding. The
    run time closes such regions when an outer function exits (summary.txt says so): not
    a fault."""
    with open(path, encoding="latin-1") as f:
        text = f.read()
    return ("longjmp" in text or "__label__" in text or
            ("clang" in compiler and re.search(r"\bthrow\b", text)))


def do_task(task, ctx):
    """Compiles (and runs) one file with one compiler pair at one level."""
    f, plain, hp, level = task["file"], task["plain"], task["hp"], task["level"]
    src = os.path.join(ctx.src, f["path"])
    res = {"key": task["key"], "path": f["path"], "compiler": hp, "level": level,
           "execute": f["execute"], "result": "plain-failed"}
    tmp = tempfile.mkdtemp(dir=ctx.tmp)
    try:
        flags = level.split() + ["-w"] + f["options"]
        out = ["-o", "prog"] if f["execute"] else ["-c", "-o", "out.o"]
        libs = ["-lm"] if f["execute"] and f["lang"] != "fortran" else []
        log = []
        pdir, idir = os.path.join(tmp, "plain"), os.path.join(tmp, "hp")
        os.mkdir(pdir)
        os.mkdir(idir)
        cmd = [plain] + flags + [src] + out + libs
        start = time.time()
        status, _, err = run(cmd, pdir, ctx.env_plain, COMPILE_TIMEOUT)
        if status != 0:
            return res
        # On a busy machine a slow file can take minutes: the limit follows the plain time.
        limit = max(COMPILE_TIMEOUT, RUN_SLACK * (time.time() - start))
        cmd = [ctx.hp_bin(hp)] + flags + [src] + out + libs
        status, _, err = run(cmd, idir, ctx.env_hp, limit)
        log.append("$ " + " ".join(cmd) + "\n" + err)
        if status != 0:
            crash = status != "timeout" and (status < 0 or CRASH.search(err) is not None)
            res["result"] = "crash" if crash else "failure"
            res["error"] = first_error(err, crash)
            return finish(res, log, ctx)
        res["result"] = "ok"
        if not f["execute"]:
            return res
        pst, pout, _ = run(["./prog"], pdir, ctx.env_plain, RUN_TIMEOUT)
        if pst == "timeout":
            return res
        res["ran"] = True
        exp = os.path.join(idir, "exp")
        env = dict(ctx.env_hp, HP_OVERHEAD_BUDGET="0", HP_EXPERIMENT_DIRECTORY=exp)
        ist, iout, ierr = run(["./prog"], idir, env, RUN_TIMEOUT * RUN_SLACK)
        log.append("$ ./prog (instrumented): exit status %s\n%s" % (ist, ierr))
        if ist == pst and iout != pout and not deterministic(pdir, pout, ctx):
            iout = pout
        if ist != pst or iout != pout:
            res["result"] = "difference"
            res["error"] = ("exit status %s, plain %s" % (ist, pst)) if ist != pst \
                else "standard output differs from the plain run's"
            return finish(res, log, ctx)
        if pst == 0:
            wrong = balanced(exp, ctx.cubecheck)
            if wrong is not None and not (wrong.startswith("summary.txt") and
                                          MISMATCHED in wrong and uses_nonlocal_exits(src, hp)):
                res["result"] = "unbalanced"
                res["error"] = wrong
                return finish(res, log, ctx)
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def finish(res, log, ctx):
    """Keeps the commands and output of a failing task in WORK/logs."""
    name = "%s%s-%s.log" % (res["compiler"], res["level"].replace(" ", ""),
                            res["path"].replace("/", "_"))
    res["log"] = os.path.join(ctx.logs, name)
    with open(res["log"], "w") as f:
        f.write("\n".join(log))
    return res


# ---------------------------------------------------------------- the run

class Context:
    def __init__(self, args, work):
        self.src = os.path.abspath(args.testsuite or os.path.join(work, "src"))
        self.tmp = os.path.join(work, "tmp")
        self.logs = os.path.join(work, "logs")
        self.cubecheck = args.cubecheck
        self.hp_dir = args.hp
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("HP_") or k.startswith("HP_INSTRUMENT_") or
               k in ("HP_RUN_LIBDIR", "HP_ASAN_RUNTIME")}
        env["LC_ALL"] = "C"
        self.env_plain = env
        self.env_hp = dict(env, HP_INSTRUMENT_STRICT="1")

    def hp_bin(self, name):
        if self.hp_dir is None:
            return name
        for d in (os.path.join(self.hp_dir, "bin"), self.hp_dir):
            if os.access(os.path.join(d, name), os.X_OK):
                return os.path.join(d, name)
        sys.exit("run-corpus.py: --hp %s: no %s in it or in its bin/" % (self.hp_dir, name))


def interleave(files, sets):
    """The files in an order that walks all sets at the same pace, so that the results of
    an interrupted run are an even sample of every set."""
    by_set = [[f for f in files if f["set"] == s] for s in sets]
    order = [((i + 0.5) / len(fs), k, f) for k, fs in enumerate(by_set) for i, f in enumerate(fs)]
    return [f for _, _, f in sorted(order, key=lambda o: o[:2])]


def make_tasks(files, compilers, levels):
    tasks = []
    for f in files:
        for plain, hp in COMPILERS[f["lang"]]:
            if compilers and hp not in compilers:
                continue
            for level in levels:
                if level == LTO_LEVEL and not f["execute"]:
                    continue
                key = "%s|%s|%s" % (f["path"], hp, level)
                tasks.append({"key": key, "file": f, "plain": plain, "hp": hp,
                              "level": level})
    return tasks


def load_results(path, meta_path, meta, fresh, readonly):
    """Results of an earlier run with the same settings (resuming), else nothing; unless
    readonly, a fresh start empties the results file."""
    if not fresh and os.path.isfile(meta_path) and os.path.isfile(path):
        with open(meta_path) as f:
            same = json.load(f) == meta
        if same or readonly:
            results = {}
            with open(path) as r:
                for line in r:
                    if line.endswith("\n"):     # a run killed mid-line leaves a stub
                        res = json.loads(line)
                        results[res["key"]] = res
            if not readonly:
                with open(path, "w") as w:
                    w.writelines(json.dumps(res) + "\n" for res in results.values())
            return results
        say("earlier results in %s are for other compilers: starting afresh" % path)
    if not readonly:
        with open(meta_path, "w") as f:
            json.dump(meta, f)
        open(path, "w").close()
    return {}


def run_all(tasks, ctx, jobs, results, out_path):
    todo = [t for t in tasks if t["key"] not in results]
    if len(todo) < len(tasks):
        say("resuming: %d of %d tasks done earlier" % (len(tasks) - len(todo), len(tasks)))
    start, done, bad = time.time(), 0, 0
    with open(out_path, "a") as out, \
            concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(do_task, t, ctx) for t in todo]
        for future in concurrent.futures.as_completed(futures):
            res = future.result()
            results[res["key"]] = res
            out.write(json.dumps(res) + "\n")
            out.flush()
            done += 1
            if res["result"] in ("crash", "failure", "difference", "unbalanced"):
                bad += 1
                say("%s: %s %s %s: %s" % (res["result"].upper(), res["compiler"],
                                          res["level"], res["path"], res["error"]))
            if done % 500 == 0:
                say("%d/%d tasks, %d problems, %.0f s" % (done, len(todo), bad,
                                                          time.time() - start))
    say("%d tasks in %.0f s" % (len(todo), time.time() - start))


COLUMNS = ["files", "compiled", "crashes", "failures", "ran", "differences", "unbalanced"]


def report(tasks, results):
    """The results table and the list of problems, as markdown; and the problem count."""
    rows = {}
    problems = []
    done = [results[t["key"]] for t in tasks if t["key"] in results]
    for res in done:
        row = rows.setdefault((res["compiler"], res["level"]), dict.fromkeys(COLUMNS, 0))
        row["files"] += 1
        r = res["result"]
        if r != "plain-failed":
            row["compiled"] += 1
        if res.get("ran"):
            row["ran"] += 1
        col = {"crash": "crashes", "failure": "failures", "difference": "differences",
               "unbalanced": "unbalanced"}.get(r)
        if col:
            row[col] += 1
            problems.append("- %s: %s %s `%s`: %s" % (r, res["compiler"], res["level"],
                                                      res["path"], res["error"]))
    order = [hp for lang in COMPILERS for _, hp in COMPILERS[lang]]
    lines = ["| compiler | level | " + " | ".join(COLUMNS) + " |",
             "|---|---|" + "---:|" * len(COLUMNS)]
    total = dict.fromkeys(COLUMNS, 0)
    for (hp, level) in sorted(rows, key=lambda k: (order.index(k[0]), LEVELS.index(k[1]))):
        row = rows[(hp, level)]
        lines.append("| %s | %s | %s |" % (hp, level, " | ".join(str(row[c]) for c in COLUMNS)))
        for c in COLUMNS:
            total[c] += row[c]
    lines.append("| all | | %s |" % " | ".join("**%d**" % total[c] for c in COLUMNS))
    text = "\n".join(lines) + "\n"
    if len(done) < len(tasks):
        text += "\n(partial: %d of %d tasks done)\n" % (len(done), len(tasks))
    if problems:
        text += "\nProblems (%d):\n\n%s\n" % (len(problems), "\n".join(sorted(problems)))
    return text, len(problems)


def main():
    ap = argparse.ArgumentParser(
        description="Compile (and run) GCC's test programs plainly and with hp-instrument; "
                    "count crashes, failures and behaviour differences.")
    ap.add_argument("--hp", metavar="DIR",
                    help="where hp-gcc etc. are: an install prefix or a build tree "
                         "(default: from PATH)")
    ap.add_argument("--work", metavar="DIR", default="corpus-work",
                    help="unpacked sources, results.jsonl, logs/ and report.md "
                         "(default: ./corpus-work); a second run resumes")
    ap.add_argument("--tarball", default=TARBALL, help="default: %(default)s")
    ap.add_argument("--testsuite", metavar="DIR",
                    help="where the test folders are, or are unpacked to from the tarball "
                         "(default: WORK/src)")
    ap.add_argument("--sets", default=",".join(SETS),
                    help="comma-separated, of: %(default)s")
    ap.add_argument("--files", metavar="LIST",
                    help="only the files named in LIST (paths relative to gcc/testsuite)")
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="only every N-th file of each set")
    ap.add_argument("--compilers", default="",
                    help="comma-separated instrumented compilers (default: all)")
    ap.add_argument("--levels", default=",".join(LEVELS),
                    help="comma-separated, of: %(default)s")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--fresh", action="store_true", help="discard earlier results")
    ap.add_argument("--report", action="store_true",
                    help="only print the table of the results so far (of a run going on)")
    ap.add_argument("--cubecheck", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tools", "cubecheck.py"))
    args = ap.parse_args()

    wanted = read_list(args.files) if args.files else None
    sets = sorted({set_of(p) for p in wanted}, key=list(SETS).index) if wanted \
        else [s for s in args.sets.split(",") if s]
    levels = [l for l in args.levels.split(",") if l]
    compilers = [c for c in args.compilers.split(",") if c]
    known = [hp for pairs in COMPILERS.values() for _, hp in pairs]
    for value, accepted, what in ((sets, SETS, "--sets"), (levels, LEVELS, "--levels"),
                                  (compilers, known, "--compilers")):
        for v in value:
            if v not in accepted:
                sys.exit("run-corpus.py: %s: unknown value '%s'; accepted: %s" %
                         (what, v, ", ".join(accepted)))

    work = os.path.abspath(args.work)
    ctx = Context(args, work)
    if not args.report:
        shutil.rmtree(ctx.tmp, ignore_errors=True)    # left by an interrupted run
    for d in (work, ctx.tmp, ctx.logs):
        os.makedirs(d, exist_ok=True)
    extract(args.tarball, ctx.src, [SETS[s][0] for s in sets])
    files = list_files(ctx.src, sets, wanted)
    if wanted is not None and len(files) != len(wanted):
        missing = wanted - {f["path"] for f in files}
        sys.exit("run-corpus.py: %s: not in the test suite: %s" %
                 (args.files, ", ".join(sorted(missing))))
    if args.every > 1:
        files = [f for s in sets for f in [g for g in files if g["set"] == s][::args.every]]
    tasks = make_tasks(interleave(files, sets), compilers, levels)
    meta = {"compilers": [ctx.hp_bin(c) for c in known]}
    out_path = os.path.join(work, "results.jsonl")
    results = load_results(out_path, os.path.join(work, "meta.json"), meta, args.fresh,
                           args.report)
    if not args.report:
        say("%d files, %d tasks, %d jobs" % (len(files), len(tasks), args.jobs))
        run_all(tasks, ctx, args.jobs, results, out_path)
    text, problems = report(tasks, results)
    with open(os.path.join(work, "report.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
