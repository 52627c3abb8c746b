#!/bin/sh
# MPI + OpenMP (MPI_Init_thread, a parallel region of 2 threads per rank): in each rank
# the worker's work sits under main/compute/!$omp parallel @hybrid.c:18, next to the MPI
# calls of the master thread; with hp-run (preload, nothing instrumented) the parallel
# regions are measured too, one visit per thread.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 9

HYBRID="$PROGRAMS/openmp/hybrid.c"
check "build hybrid.c with hp-instrument mpicc -fopenmp" \
    hp-instrument mpicc -fopenmp -O1 -o hybrid "$HYBRID"
HP_EXPERIMENT_DIRECTORY=inst check "mpiexec -n 2 ./hybrid" timeout 60 mpiexec -n 2 ./hybrid
check_eq "the program's result" 6 "$(cat "$WORK/last.out")"

# "path visits visits ..." for the paths below main with visits, over all locations.
visits_by_path() {
    $CUBEDUMP "$1" | awk -F'\t' '$3 != "visits=0" && $1 ~ /\/main\// {
            sub("visits=", "", $3); sub(/^[^\/]*\//, "", $1); print $1 "\t" $3 }' |
        LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2n |
        awk -F'\t' '$1 != p { if (NR > 1) print line; line = $1 " " $2; p = $1; next }
                    { line = line " " $2 } END { print line }'
}
P='main/compute/!$omp parallel @hybrid.c:18'
check_eq "call paths and visits of both ranks' threads" \
    "main/MPI_Allreduce 1 1;main/MPI_Comm_rank 1 1;main/MPI_Finalize 1 1;main/MPI_Init_thread 1 1;main/compute 1 1;$P 1 1 1 1;$P/!\$omp implicit barrier @hybrid.c:18 1 1 1 1;$P/work 1 1 1 1;" \
    "$(visits_by_path inst/profile.cubex | tr '\n' ';')"
check "cubecheck.py passes" $CUBECHECK inst/profile.cubex

check "build hybrid.c with plain mpicc -fopenmp" mpicc -fopenmp -O1 -g -o hybrid-plain "$HYBRID"
HP_EXPERIMENT_DIRECTORY=run check "hp-run mpiexec -n 2 ./hybrid-plain" \
    timeout 60 hp-run mpiexec -n 2 ./hybrid-plain
got=$($CUBEDUMP run/profile.cubex | awk -F'\t' '$1 ~ /!\$omp parallel @hybrid\.c:18$/ {
          sub("visits=", "", $3); if ($3 > 0) print $3 }' | tr '\n' ' ')
check_eq "hp-run: one visit of the parallel region per thread" "1 1 1 1 " "$got"
check "hp-run: cubecheck.py passes" $CUBECHECK run/profile.cubex
finish
