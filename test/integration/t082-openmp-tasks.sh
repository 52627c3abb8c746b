#!/bin/sh
# OpenMP tasks and worksharing with libgomp, 1, 2 and 4 threads: every task's body is
# measured once, as "!$omp task @tasks.c:LINE" with its work below, under whatever the
# thread that ran it was in (the creating function for an undeferred task, a taskwait,
# a taskgroup's end, a barrier); which thread runs a deferred task varies, so those are
# checked as sums over all call paths and locations. "!$omp taskwait" and "!$omp
# taskgroup" have one visit (one thread creates those tasks); every thread waits once in
# the implicit barrier of the dynamic loop and of the parallel region, and in single's
# end barrier (a plain GOMP_barrier call, "!$omp barrier"). The tasks' data
# reach them intact (the program's result), also when the compiler's copy function
# copies them (tasks_copy.cc), and the trace stays valid. A program whose link leaves
# libgomp out (pragmas_only.c) still runs its team of 2 threads.
. "$HP_SRCDIR/test/integration/lib.sh"
# Exact visits of short, hot functions: the overhead budget would switch them off.
export HP_OVERHEAD_BUDGET=0
plan 27
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

check "build tasks.c with hp-instrument gcc -fopenmp" \
    hp-instrument gcc -fopenmp -O1 -o tasks "$PROGRAMS/openmp/tasks.c"

# "name visits" summed over call paths and locations, for call paths ending in name
sums() {
    $CUBEDUMP "$1" | awk -F'\t' '{ n = split($1, p, "/"); sub("visits=", "", $3)
            key = p[n]; if (p[n] ~ /^work/) key = p[n - 1] "/work"
            if ($3 > 0) v[key] += $3 } END { for (k in v) print k, v[k] }' |
        grep '!\$omp' | LC_ALL=C sort | tr '\n' ';'
}

expected_sums() {
    n=$1
    printf '%s;' \
        "!\$omp barrier @tasks.c:26 $n" \
        "!\$omp implicit barrier @tasks.c:57 $n" \
        "!\$omp implicit barrier @tasks.c:62 $n" \
        "!\$omp parallel @tasks.c:62 $n" \
        "!\$omp task @tasks.c:23 8" \
        "!\$omp task @tasks.c:23/work 8" \
        "!\$omp task @tasks.c:34 $((2 * n))" \
        "!\$omp task @tasks.c:34/work $((2 * n))" \
        "!\$omp task @tasks.c:37 $n" \
        "!\$omp task @tasks.c:37/work $n" \
        "!\$omp task @tasks.c:47 4" \
        "!\$omp task @tasks.c:47/work 4" \
        "!\$omp taskgroup @tasks.c:46 1" \
        "!\$omp taskwait @tasks.c:26 1"
}

# visits per location of one call path, sorted
path_visits() {
    $CUBEDUMP "$1" | awk -F'\t' -v path="$2" '$1 == path { sub("visits=", "", $3); print $3 }' |
        sort -n | tr '\n' ' '
}

for n in 1 2 4; do
    # 36 (8 tasks) + 112 per thread (2 x 6 and 100) + 4000 (taskgroup) + 120000 (loop)
    OMP_NUM_THREADS=$n HP_EXPERIMENT_DIRECTORY=exp-$n check "run with $n threads" ./tasks
    check_eq "$n threads: the program's result" "$((124036 + 112 * n)) $n" "$(cat "$WORK/last.out")"
    check_eq "$n threads: task, taskwait, barrier visits summed over paths and threads" \
        "$(expected_sums $n)" "$(sums exp-$n/profile.cubex)"
    P='tasks/main/!$omp parallel @tasks.c:62'
    check_eq "$n threads: an undeferred task runs at once in its creator" \
        "$(yes 1 | head -n "$n" | tr '\n' ' ')" \
        "$(path_visits exp-$n/profile.cubex "$P/each_thread/!\$omp task @tasks.c:37" | sed 's/^\(0 \)*//')"
    check "$n threads: cubecheck" $CUBECHECK exp-$n/profile.cubex
done

OMP_NUM_THREADS=2 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=trace \
    check "run with 2 threads, tracing" ./tasks
check "tracing: otf2check.py passes" $OTF2CHECK trace/traces.otf2
# (a worker's trace enters main, the forking path, without a visit in the profile)
check_eq "tracing: Enter events equal the profile's visits" \
    "$(profile_visits trace/profile.cubex)" \
    "$(trace_enters trace/traces.otf2 | grep -v '^main [1-9][0-9]* 1$')"
# Score-P's region roles, which Cube and Vampir know.
got=$($CUBEDUMP --regions exp-2/profile.cubex | awk -F'\t' '$2 ~ /^!\$omp/ { print $2 "=" $7 }' |
    LC_ALL=C sort | uniq | grep -E 'tasks.c:(23|26|46|57)$|tasks.c:(23|26|46|57)=' | tr '\n' ';')
check_eq "region roles" \
    "!\$omp barrier @tasks.c:26=barrier;!\$omp implicit barrier @tasks.c:57=implicit barrier;!\$omp task @tasks.c:23=task;!\$omp taskgroup @tasks.c:46=task wait;!\$omp taskwait @tasks.c:26=task wait;" \
    "$got"

check "build tasks_copy.cc with hp-instrument g++ -fopenmp" \
    hp-instrument g++ -fopenmp -O1 -o tasks_copy "$PROGRAMS/openmp/tasks_copy.cc"
OMP_NUM_THREADS=2 HP_EXPERIMENT_DIRECTORY=copy check "run tasks_copy with 2 threads" ./tasks_copy
check_eq "copy functions: the program's result (every copy made once)" 67 "$(cat "$WORK/last.out")"
check_eq "copy functions: every task measured once" \
    "!\$omp task @tasks_copy.cc:30 5;!\$omp task @tasks_copy.cc:30/work 5;!\$omp task @tasks_copy.cc:34 1;!\$omp task @tasks_copy.cc:34/work 1;!\$omp task @tasks_copy.cc:36 1;!\$omp task @tasks_copy.cc:36/work 1;" \
    "$(sums copy/profile.cubex | tr ';' '\n' | grep 'task @' | tr '\n' ';')"

check "build pragmas_only.c with hp-instrument gcc -fopenmp" \
    hp-instrument gcc -fopenmp -O1 -o pragmas_only "$PROGRAMS/openmp/pragmas_only.c"
HP_EXPERIMENT_DIRECTORY=pragmas check "run pragmas_only" ./pragmas_only
check_eq "without libgomp in the link: the result and a team of 2 threads" "2 1 1 " \
    "$(cat "$WORK/last.out") $(path_visits pragmas/profile.cubex 'pragmas_only/main/!$omp parallel @pragmas_only.c:19')"
finish
