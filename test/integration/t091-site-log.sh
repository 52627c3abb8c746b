#!/bin/sh
# The site accounting log (HP_SITE_LOG, doc/site.md): one JSON line per job from rank 0
# with exact MPI calls and bytes, also in accounting-only mode and under hp-run; one file
# per day in a directory; 20 concurrent jobs appending to one log lose and interleave
# nothing; a symbolic link, a FIFO or an unwritable path is refused without failing the
# job; odd strings (quotes, control characters, invalid UTF-8) stay valid JSON;
# `hp-report site` summaries of a generated 1,000-job log match the values that
# test/tools/site_log_check.py computes from the JSON on its own.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 27

SITE="$PY $HP_SRCDIR/test/tools/site_log_check.py"
mpirun2() { timeout -k 10 "$HP_MPI_TIMEOUT" mpiexec -n 2 "$@"; }
# The record's values that the program determines, on one line.
record() { $SITE record "$1" ranks threads job user app mpi.MPI_Send.calls mpi.MPI_Send.bytes \
    mpi.MPI_Recv.calls mpi.MPI_Recv.bytes mpi.MPI_Barrier.calls hpmeasure | paste -sd' '; }
VERSION=$(hp-info --version 2>/dev/null | awk '{ print $NF }')
EXPECTED="2 1 4242 $(id -un) site 10 4000 10 4000 6 $VERSION"

check "build site.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o site "$MPIPROGS/site.c"
SLURM_JOB_ID=4242 HP_SITE_LOG="$WORK/full.jsonl" HP_EXPERIMENT_DIRECTORY=exp \
    check "a profiled job with HP_SITE_LOG" mpirun2 ./site
check_eq "one record: ranks, threads, job id, user, app, exact MPI calls and bytes" \
    "$EXPECTED" "$(record full.jsonl)"
check "the profile is written as usual" test -f exp/profile.cubex

SLURM_JOB_ID=4242 HP_ENABLE_PROFILING=false HP_SITE_LOG="$WORK/account.jsonl" \
    check "accounting only (HP_ENABLE_PROFILING=false)" mpirun2 ./site
check_eq "the same record" "$EXPECTED" "$(record account.jsonl)"
check_eq "and no experiment directory" "" "$(ls -d hp-* 2>/dev/null)"
check "MPI share is MPI time over ranks x wall time" $PY -c '
import json, sys
r = json.loads(open(sys.argv[1]).read())
mpi = sum(f["time_s"] for f in r["mpi"].values())
assert abs(mpi - r["mpi_s"]) <= 1e-6 * mpi, (mpi, r["mpi_s"])
assert abs(r["mpi_share"] - r["mpi_s"] / (r["ranks"] * r["wall_s"])) < 2e-6, r
assert 0 < r["mpi_share"] <= 1.0001, r' account.jsonl

check "build site.c with plain mpicc" mpicc -O1 -o site-plain "$MPIPROGS/site.c"
PBS_JOBID=4242 HP_ENABLE_PROFILING=false HP_SITE_LOG="$WORK/run.jsonl" \
    check "hp-run, accounting only" timeout 60 hp-run mpiexec -n 2 ./site-plain
check_eq "hp-run: the same record (job id from PBS_JOBID)" "$EXPECTED" \
    "$(record run.jsonl | sed 's/site-plain/site/')"

mkdir logdir
HP_ENABLE_PROFILING=false HP_SITE_LOG="$WORK/logdir" check "a directory as HP_SITE_LOG" mpirun2 ./site
check_eq "one file per day in it, named by the UTC day" "hp-site-$(date -u +%Y-%m-%d).jsonl 1" \
    "$(cd logdir && for f in *; do echo "$f $(wc -l < "$f")"; done)"

# ---- counter totals (doc/counters.md; software events work without a hardware PMU) ----
HP_METRIC_PERF=task-clock,page-faults HP_SITE_LOG="$WORK/counters.jsonl" \
    HP_EXPERIMENT_DIRECTORY=cexp check "a job with HP_METRIC_PERF" mpirun2 ./site
# counter_sums: "name total mpi app" per counter, summed over the ranks of summary.txt
counter_sums() {
    awk '/^Counters per rank/ { on = 1; next } on && /^$/ && n { exit }
         on && $1 ~ /^[0-9]+$/ { n++; t[$2] += $3; m[$2] += $4; a[$2] += $5 }
         END { for (c in t) printf "%s %d %d %d\n", c, t[c], m[c], a[c] }' "$1" | LC_ALL=C sort
}
check_eq "counters: totals in and outside MPI of both ranks, as summary.txt has them" \
    "$(counter_sums cexp/summary.txt | sed 's/^page-faults/perf_page_faults/; s/^task-clock/perf_task_clock/')" \
    "$($PY -c 'import json, sys
r = json.loads(open(sys.argv[1]).read())
for n, c in sorted(r["counters"].items()):
    assert c["mpi"] + c["app"] == c["total"] and c["total"] > 0, (n, c)
    print(n, c["total"], c["mpi"], c["app"])' counters.jsonl)"
check_eq "no counters, no counters key" "None" "$($SITE record full.jsonl counters)"

# ---- refused logs never fail the job ---------------------------------------------------
: > target.jsonl
ln -s target.jsonl link.jsonl
mkfifo fifo.jsonl
for bad in link.jsonl fifo.jsonl missing/dir/log.jsonl; do
    HP_ENABLE_PROFILING=false HP_SITE_LOG="$WORK/$bad" timeout 60 mpiexec -n 2 ./site \
        >bad.out 2>bad.err
    echo "$? $(cat bad.out) $(grep -c 'HP_SITE_LOG: cannot append' bad.err)" >> refused.txt
    grep -o 'cannot append[^;]*' bad.err | sed "s|$WORK/||" >> reasons.txt
done
check_eq "symlink, FIFO, missing directory: the job succeeds, one message each" \
    "0 sum=499500 1|0 sum=499500 1|0 sum=499500 1" "$(paste -sd'|' refused.txt)"
check_eq "the messages say why" \
    "cannot append this job's record to link.jsonl: it is a symbolic link, which is refused|cannot append this job's record to fifo.jsonl: it is not a regular file (a FIFO?)|cannot append this job's record to missing/dir/log.jsonl: No such file or directory" \
    "$(paste -sd'|' reasons.txt)"
check_eq "nothing was written through the link" "0" "$(wc -c < target.jsonl)"

# ---- 20 concurrent jobs, one log -------------------------------------------------------
check "build calltree.c" hp-instrument gcc -O1 -o calltree "$PROGRAMS/calltree.c"
for i in $(seq 1 20); do
    SLURM_JOB_ID=$i HP_ENABLE_PROFILING=false HP_SITE_LOG="$WORK/shared.jsonl" \
        ./calltree >/dev/null 2>&1 &
done
wait
check_eq "20 concurrent jobs: 20 whole records, each job once" "$(seq 1 20 | sort | paste -sd' ')" \
    "$($SITE jobs shared.jsonl | paste -sd' ')"

# ---- strings that need escaping: quote, backslash, tab, newline, invalid UTF-8 ----------
odd=$(printf 'we"ird\\\tna\nme\377\303\251')
cp calltree "$odd"
SLURM_JOB_ID='j"1' HP_ENABLE_PROFILING=false HP_SITE_LOG="$WORK/odd.jsonl" ./"$odd" >/dev/null 2>&1
check "an odd executable name: one line of valid UTF-8 JSON, invalid bytes as U+FFFD" \
    $PY -c 'import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert len(lines) == 2 and lines[1] == "", lines
r = json.loads(lines[0])
assert r["job"] == "j\"1", r["job"]
assert r["app"] == "we\"ird\\\tna\nme\ufffd\u00e9", ascii(r["app"])' odd.jsonl

# ---- summaries of 1,000 jobs ---------------------------------------------------------
$SITE generate gen.jsonl 1000 7
for by in user app; do
    for period in week month; do
        $SITE summary gen.jsonl $by $period > "expected-$by-$period.csv"
        hp-report site gen.jsonl --by $by --period $period --format csv \
            > "actual-$by-$period.csv" 2>report.err
        $SITE compare "expected-$by-$period.csv" "actual-$by-$period.csv" >> compare.txt 2>&1 ||
            echo "--by $by --period $period differs" >> compare.txt
    done
done
check_eq "summaries by user|app and week|month match the independent computation" \
    "90 rows match|20 rows match|72 rows match|16 rows match" "$(paste -sd'|' compare.txt)"
check_eq "the 2 damaged lines are skipped and said" \
    "hp-report site: gen.jsonl: skipped 2 line(s) that are not job records (the first: line 12)" \
    "$(cat report.err)"
hp-report site gen.jsonl --by app --period month --format html > site.html 2>/dev/null
check_eq "html: one point per application and month that counted instructions" \
    "$($PY -c 'import csv, sys
print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if int(r["instr_jobs"]) > 0))' \
        expected-app-month.csv)" "$(grep -c '<circle' site.html)"
check "html: names are escaped" grep -q 'a&quot;quoted\\app' site.html
expect_fail "bad --by is refused, naming what is accepted" "--by is user or app, not 'group'" \
    hp-report site gen.jsonl --by group --period week
finish
