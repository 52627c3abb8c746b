#!/bin/sh
# OpenMP with LLVM's libomp (clang -fopenmp, which calls __kmpc_fork_call,
# __kmpc_barrier, __kmpc_critical): t017's program gives t017's call paths and visits at
# 1, 2 and 4 threads, each team thread's work under "!$omp parallel @openmp.c:LINE"
# under the forking path (clang's outlined ".omp_outlined." functions left out), so the
# checks are t017's, run with OMP_CC=clang. A region whose outlined function takes more
# arguments than the wrapper copies (71 here) runs unmeasured with the right result.
# Skipped (TAP "1..0 # SKIP") where clang cannot build OpenMP programs (needs clang and
# libomp-14-dev, build-aux/setup.sh).
if ! command -v clang >/dev/null 2>&1 ||
    ! printf 'int main(void) { return 0; }\n' | clang -fopenmp -x c -o /dev/null - 2>/dev/null; then
    echo "1..0 # SKIP clang -fopenmp does not work here (needs clang and libomp-14-dev)"
    exit 0
fi
OMP_CC=clang
OMP_MORE_CHECKS=3
omp_more_checks() {
    check "build many_args.c (71 arguments)" \
        hp-instrument clang -fopenmp -O0 -o many_args "$PROGRAMS/openmp/many_args.c"
    HP_EXPERIMENT_DIRECTORY=many check "run many_args" ./many_args
    check_eq "71 arguments: the program's result, the region not measured" \
        "4830;many 0 1;many 1 1;many/main 0 1;" \
        "$(cat "$WORK/last.out");$($CUBEDUMP many/profile.cubex | awk -F'\t' '$3 != "visits=0" {
            sub("visits=", "", $3); sub(/^many_args/, "many", $1); print $1, $2, $3 }' | tr '\n' ';')"
}
. "$HP_SRCDIR/test/integration/t017-openmp.sh"
