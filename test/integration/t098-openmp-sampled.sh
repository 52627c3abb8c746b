#!/bin/sh
# OpenMP without function hooks (hp-instrument --nocompiler, hp-run) or below filtered
# functions: sampling unwinds each fork, so every team thread's "!$omp parallel" sits
# under the call path that forked it (main/first/compute, main/second/compute), with
# exact visits, and the functions the threads run in the region (spin) are sampled below
# it. Samples in the runtime's barrier waits stay with the barrier. The forking path's
# inclusive time holds the region's on every thread. sampled.c: first() forks one
# region, second() two; -fno-optimize-sibling-calls keeps compute() on the stack.
# fork_edges.c: exit() inside a region (trace balanced, no time counted twice) and a
# recursion on the forking path with HP_PROFILING_RECURSION=collapse; a fork inside an
# excluded subtree (HP_EXCLUDE_SUBTREES) shows in no thread.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 40

SRC="$PROGRAMS/openmp/sampled.c"
CFLAGS="-fopenmp -O1 -fno-optimize-sibling-calls -g"
P='!$omp parallel @sampled.c:34'
B='!$omp implicit barrier @sampled.c:34'

# The awk scripts run without the ASan runtime of a sanitizer build: mawk reads past the
# end of strings in index() and regular expressions there.

# "path visits visits ...;" of the paths with visits that end in the region, the barrier
# or spin below the region, the root's name left out.
region_paths() {
    $CUBEDUMP "$1" | unsanitized awk -F'\t' '$3 != "visits=0" {
            sub("visits=", "", $3); sub(/^[^\/]*\//, "", $1) }
        $3 > 0 && $1 ~ /!\$omp (parallel|implicit barrier) @sampled\.c:34$/ { print $1 "\t" $3 }' |
        LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2n |
        unsanitized awk -F'\t' '$1 != p { if (NR > 1) print line; line = $1 " " $2; p = $1; next }
                    { line = line " " $2 } END { print line }' | tr '\n' ';'
}

# Number of threads with samples in spin below each of the two regions.
spin_threads() {
    $CUBEDUMP "$1" | unsanitized awk -F'\t' -v p="/$P/spin" '
        { sub("visits=", "", $3) }
        $3 > 0 && substr($1, length($1) - length(p) + 1) == p { n++ } END { print n + 0 }'
}

# Call paths below the barrier, and threads whose compute path has less inclusive time
# than its region: both "0".
barrier_children() {
    $CUBEDUMP "$1" | unsanitized awk -F'\t' -v b="/$B/" '{ sub("visits=", "", $3) }
        $3 > 0 && index($1, b) { n++ } END { print n + 0 }'
}
short_paths() {
    $CUBEDUMP "$1" | unsanitized awk -F'\t' -v p="/$P" '
        { for (i = 3; i <= NF; i++) if ($i ~ /^time_incl=/) { t = $i; sub("time_incl=", "", t) } }
        $1 ~ /\/compute$/ { c[$1 "|" $2] = t }
        substr($1, length($1) - length(p) + 1) == p { r[substr($1, 1, length($1) - length(p)) "|" $2] = t }
        END { for (k in r) if (r[k] > 0 && !(c[k] + 0 >= r[k] + 0)) n++; print n + 0 }'
}

# expected region_paths for n threads in all
expected() {
    ones="" twos="" i=0
    while [ $i -lt "$1" ]; do ones="$ones 1" twos="$twos 2"; i=$((i + 1)); done
    echo "main/first/compute/$P$ones;main/first/compute/$P/$B$ones;main/second/compute/$P$twos;main/second/compute/$P/$B$twos;"
}

# checks EXP THREADS: 5 checks of one experiment
checks() {
    check_eq "$1: each region under the path that forked it" "$(expected "$2")" \
        "$(region_paths "$1/profile.cubex")"
    check_eq "$1: spin sampled below both regions in every thread" "$((2 * $2))" \
        "$(spin_threads "$1/profile.cubex")"
    check_eq "$1: nothing below the implicit barrier (the runtime's wait)" 0 \
        "$(barrier_children "$1/profile.cubex")"
    check_eq "$1: compute's inclusive time holds its region's on every thread" 0 \
        "$(short_paths "$1/profile.cubex")"
    check "$1: cubecheck.py passes" $CUBECHECK "$1/profile.cubex"
}

check "build sampled.c with hp-instrument --nocompiler mpicc" \
    hp-instrument --nocompiler mpicc $CFLAGS -o sampled "$SRC"
OMP_NUM_THREADS=2 HP_EXPERIMENT_DIRECTORY=nc check "--nocompiler: 2 ranks x 2 threads" \
    timeout 60 mpiexec -n 2 ./sampled
check_eq "--nocompiler 2 x 2: the program's result" 12 "$(cat "$WORK/last.out")"
checks nc 4

OMP_NUM_THREADS=4 HP_EXPERIMENT_DIRECTORY=nc1 check "--nocompiler: 1 rank x 4 threads" \
    timeout 60 mpiexec -n 1 ./sampled
checks nc1 4

check "build sampled.c with plain mpicc" mpicc $CFLAGS -o sampled-plain "$SRC"
OMP_NUM_THREADS=2 HP_EXPERIMENT_DIRECTORY=run check "hp-run: 2 ranks x 2 threads" \
    timeout 60 hp-run mpiexec -n 2 ./sampled-plain
check_eq "hp-run: the program's result" 12 "$(cat "$WORK/last.out")"
checks run 4

# With hooks: first, second and compute filtered, sampling at 1 kHz finds them.
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE first second compute\nSCOREP_REGION_NAMES_END\n' \
    >filtered.filter
check "build sampled.c with hp-instrument mpicc" hp-instrument mpicc $CFLAGS -o sampled-hooks "$SRC"
OMP_NUM_THREADS=2 HP_SAMPLING_FREQUENCY=1000 HP_FILTERING_FILE=filtered.filter \
    HP_EXPERIMENT_DIRECTORY=hooks check "hooks, callers filtered, sampling: 2 ranks x 2 threads" \
    timeout 60 mpiexec -n 2 ./sampled-hooks
checks hooks 4

# Traced: the path frames add no events, so the trace stays balanced.
OMP_NUM_THREADS=2 HP_ENABLE_TRACING=1 HP_EXPERIMENT_DIRECTORY=tr check "--nocompiler traced" \
    timeout 60 mpiexec -n 2 ./sampled
check "--nocompiler traced: otf2check.py passes" \
    $PY "$HP_SRCDIR/test/tools/otf2check.py" tr/traces.otf2

# fork_edges.c: exit() inside a region ends measurement with the forking path open
EDGES="$PROGRAMS/openmp/fork_edges.c"
check "build fork_edges.c with --nocompiler" \
    hp-instrument --nocompiler gcc $CFLAGS -o edges "$EDGES"
OMP_NUM_THREADS=2 HP_ENABLE_TRACING=1 HP_EXPERIMENT_DIRECTORY=ex check "exit() in a region, traced" \
    ./edges exit
check "exit() in a region: otf2check.py passes (every Leave has its region)" \
    $PY "$HP_SRCDIR/test/tools/otf2check.py" ex/traces.otf2
check "build fork_edges.c with hooks" hp-instrument gcc $CFLAGS -o edges-hooks "$EDGES"
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE compute\nSCOREP_REGION_NAMES_END\n' >compute.filter
OMP_NUM_THREADS=2 HP_SAMPLING_FREQUENCY=1000 HP_FILTERING_FILE=compute.filter \
    HP_EXPERIMENT_DIRECTORY=exh ./edges-hooks exit
got=$($CUBEDUMP exh/profile.cubex | unsanitized awk -F'\t' '$2 == 0 {
        for (i = 3; i <= NF; i++) if ($i ~ /^time_incl=/) { t = $i; sub("time_incl=", "", t) }
        if ($1 !~ /\//) root = t; if ($1 ~ /\/main$/) main = t }
    END { print (root + 0 >= main + 0 && main > 0) ? "ok" : "root " root " < main " main }')
check_eq "exit() in a region, hooks, compute filtered: main's time within the root's" ok "$got"
# a(1) -> b -> a(0) forks: with collapse the team threads keep the forker's path
OMP_NUM_THREADS=2 HP_PROFILING_RECURSION=collapse HP_EXPERIMENT_DIRECTORY=rec \
    check "recursion on the forking path, collapse" ./edges recurse
check_eq "collapse: the region under main/a/b/a in both threads, visits 1 each, none wrapped" \
    "1 1;0" "$($CUBEDUMP rec/profile.cubex | unsanitized awk -F'\t' '{ sub("visits=", "", $3) }
        $1 ~ /\/main\/a\/b\/a\/!\$omp parallel @fork_edges\.c:[0-9]+$/ && $3 + 0 > 0 { v = v (v ? " " : "") $3 }
        $3 + 0 > 1000000 { big++ } END { print v ";" big + 0 }')"
# outer (excluded) -> inner (filtered) forks: nothing below outer in any thread
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE inner\nSCOREP_REGION_NAMES_END\n' >inner.filter
OMP_NUM_THREADS=2 HP_SAMPLING_FREQUENCY=1000 HP_FILTERING_FILE=inner.filter \
    HP_EXCLUDE_SUBTREES=outer HP_EXPERIMENT_DIRECTORY=exc check "HP_EXCLUDE_SUBTREES=outer" \
    ./edges-hooks exclude
check_eq "HP_EXCLUDE_SUBTREES: the region is in no thread's tree, outer visited once" \
    "0;1" "$($CUBEDUMP exc/profile.cubex | unsanitized awk -F'\t' '{ sub("visits=", "", $3) }
        index($1, "!$omp") && $3 + 0 > 0 { omp++ } $1 ~ /\/main\/outer$/ { o += $3 }
        END { print omp + 0 ";" o + 0 }')"
finish
