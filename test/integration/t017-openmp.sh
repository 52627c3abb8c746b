#!/bin/sh
# OpenMP with libgomp (gcc -fopenmp): every team thread's work appears under the call
# path that forked the region, below "!$omp parallel @openmp.c:LINE" (LINE = the
# pragma's line in test/programs/openmp/openmp.c), with barrier and critical regions,
# the region's end barrier ("!$omp implicit barrier @openmp.c:LINE", one per thread),
# nested regions, and thread counts 1, 2 and 4 (the nested regions always use 2 x 2).
# Threads take locations in any order, so each call path's visits are compared as the
# sorted list of its non-zero visits over all locations. The inner teams' threads may
# end between regions, so each thread gets a location of its own
# (HP_THREAD_LOCATIONS=each) to keep the lists the same from run to run. The inner
# regions' paths show their total over threads: a runtime that keeps a pool (libomp)
# may run both inner teams' workers on one thread, one after the other ("1 1 2").
. "$HP_SRCDIR/test/integration/lib.sh"
plan $((20 + ${OMP_MORE_CHECKS:-0}))

# t083 runs these checks with clang and LLVM's libomp (OMP_CC=clang).
OMP_CC=${OMP_CC:-gcc}
check "build openmp.c with hp-instrument $OMP_CC -fopenmp" \
    hp-instrument "$OMP_CC" -fopenmp -O1 -o openmp "$PROGRAMS/openmp/openmp.c"

# "path<TAB>visits visits ..." for every call path with visits, root and the dynamic
# schedule's work (spread over threads at random) left out; "path<TAB>total" below the
# inner region (mawk reads past a string's end there under the ASan runtime: unsanitized).
visits_by_path() {
    $CUBEDUMP "$1" | awk -F'\t' '$3 != "visits=0" && $1 ~ /\// && $1 !~ /openmp\.c:26\/work$/ {
            sub("visits=", "", $3); print $1 "\t" $3 }' |
        LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2n |
        unsanitized awk -F'\t' '$1 != p { if (NR > 1) print line; line = $1 "\t" $2; p = $1; s = $2; next }
                    index($1, "openmp.c:46") { s += $2; line = $1 "\t" s; next }
                    { line = line " " $2 } END { print line }'
}

# n copies of word
times() {
    i=0 out=""
    while [ $i -lt "$1" ]; do out="$out${out:+ }$2"; i=$((i + 1)); done
    echo "$out"
}

expected() {
    n=$1 M=openmp/main
    S="$M/synchronized/!\$omp parallel @openmp.c:33"
    N="$M/nested/!\$omp parallel @openmp.c:52"
    printf '%s\t%s\n' \
        "$M" 1 \
        "$M/dynamic_loop" 1 \
        "$M/dynamic_loop/!\$omp parallel @openmp.c:26" "$(times "$n" 1)" \
        "$M/dynamic_loop/!\$omp parallel @openmp.c:26/!\$omp implicit barrier @openmp.c:26" "$(times "$n" 1)" \
        "$M/nested" 1 \
        "$N" "1 1" \
        "$N/!\$omp implicit barrier @openmp.c:52" "1 1" \
        "$N/inner" "1 1" \
        "$N/inner/!\$omp parallel @openmp.c:46" 4 \
        "$N/inner/!\$omp parallel @openmp.c:46/!\$omp implicit barrier @openmp.c:46" 4 \
        "$N/inner/!\$omp parallel @openmp.c:46/work" 4 \
        "$M/static_loop" 1 \
        "$M/static_loop/!\$omp parallel @openmp.c:19" "$(times "$n" 1)" \
        "$M/static_loop/!\$omp parallel @openmp.c:19/!\$omp implicit barrier @openmp.c:19" "$(times "$n" 1)" \
        "$M/static_loop/!\$omp parallel @openmp.c:19/work" "$(times "$n" $((12 / n)))" \
        "$M/synchronized" 1 \
        "$S" "$(times "$n" 1)" \
        "$S/!\$omp barrier @openmp.c:36" "$(times "$n" 1)" \
        "$S/!\$omp implicit barrier @openmp.c:33" "$(times "$n" 1)" \
        "$S/!\$omp critical @openmp.c:37" "$(times "$n" 1)" \
        "$S/!\$omp critical @openmp.c:37/!\$omp critical sblock @openmp.c:37" "$(times "$n" 1)" \
        "$S/!\$omp critical @openmp.c:37/!\$omp critical sblock @openmp.c:37/work" "$(times "$n" 1)" \
        "$S/!\$omp critical @openmp.c:39" "$(times "$n" 1)" \
        "$S/!\$omp critical @openmp.c:39/!\$omp critical sblock @openmp.c:39" "$(times "$n" 1)" \
        "$S/!\$omp critical @openmp.c:39/!\$omp critical sblock @openmp.c:39/work" "$(times "$n" 1)" \
        "$S/work" "$(times "$n" 1)" |
        LC_ALL=C sort -t "$(printf '\t')" -k1,1
}

for n in 1 2 4; do
    # the program's own result: 66 + 66 + 6 per thread + 2 (thread numbers 0 + 1, twice)
    OMP_NUM_THREADS=$n HP_THREAD_LOCATIONS=each HP_EXPERIMENT_DIRECTORY=exp-$n \
        check "run with $n threads" ./openmp
    check_eq "$n threads: the program's result" "$((134 + 6 * n)) $n" "$(cat "$WORK/last.out")"
    check_eq "$n threads: call paths and visits" "$(expected $n)" "$(visits_by_path exp-$n/profile.cubex)"
    got=$($CUBEDUMP exp-$n/profile.cubex | awk -F'\t' '$1 ~ /openmp\.c:26\/work$/ {
              sub("visits=", "", $3); s += $3 } END { print s }')
    check_eq "$n threads: the dynamic schedule's 12 calls" 12 "$got"
    check "$n threads: cubecheck" $CUBECHECK exp-$n/profile.cubex
    # every other thread enters main on behalf of a fork, without a visit
    got=$($CUBEDUMP exp-$n/profile.cubex | awk -F'\t' '$1 == "openmp/main" { print ($2 == 0), $3 }' |
              sort | uniq -c | awk '{ printf "%s %s %s;", $1, $2, $3 }')
    locations=$($CUBEDUMP --locations exp-$n/profile.cubex | wc -l)
    check_eq "$n threads: main visited by thread 0 only" \
        "$((locations - 1)) 0 visits=0;1 1 visits=1;" "$got"
done
# Score-P's paradigm and region types (Cube roles) for the constructs.
got=$($CUBEDUMP --regions exp-2/profile.cubex | awk -F'\t' '$2 ~ /^!\$omp/ { print $2, $6, $7 }' |
    LC_ALL=C sort | uniq | head -4 | tr '\n' ';')
check_eq "region paradigm and roles" \
    "!\$omp barrier @openmp.c:36 openmp barrier;!\$omp critical @openmp.c:37 openmp critical;!\$omp critical @openmp.c:39 openmp critical;!\$omp critical sblock @openmp.c:37 openmp critical sblock;" \
    "$got"
[ "${OMP_MORE_CHECKS:-0}" -eq 0 ] || omp_more_checks
finish
