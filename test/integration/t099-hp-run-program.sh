#!/bin/sh
# hp-run with the program as its command (not a launcher, not a script) measures that
# program from its start, MPI or not (HP_RUN_PROGRAM=<the process id the command keeps>;
# the processes it starts have other ids and are not): t017's OpenMP program built with
# plain gcc gives every parallel, barrier and critical region under the sampled path
# that forked it, with exact visits at 2 threads; --dry-run shows the variable for a
# program and not for mpiexec.hydra, mpirun_rsh, srun or a script; a program run through
# env (which execs it in the same process) is measured, bash's children are not.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 12

dry() { unsanitized hp-run --dry-run "$@" | sed 's/LD_PRELOAD=[^ ]* //; s/HP_RUN_PROGRAM=[0-9][0-9]* /HP_RUN_PROGRAM=PID /'; }
printf '#!/bin/sh\nexec "$@"\n' >wrap.sh
chmod +x wrap.sh
check_eq "--dry-run: a program gets HP_RUN_PROGRAM=1" \
    "HP_SAMPLING_FREQUENCY=1000 HP_RUN_PROGRAM=PID ./openmp" "$(dry ./openmp)"
check_eq "--dry-run: launchers do not" \
    "HP_SAMPLING_FREQUENCY=1000 mpiexec.hydra -n 2 ./x;HP_SAMPLING_FREQUENCY=1000 mpirun_rsh ./x;HP_SAMPLING_FREQUENCY=1000 srun ./x" \
    "$(dry mpiexec.hydra -n 2 ./x);$(dry mpirun_rsh ./x);$(dry srun ./x)"
check_eq "--dry-run: a script does not" "HP_SAMPLING_FREQUENCY=1000 ./wrap.sh ./x" \
    "$(dry ./wrap.sh ./x)"

check "build openmp.c with plain gcc -fopenmp" \
    gcc -fopenmp -O1 -fno-optimize-sibling-calls -g -o openmp "$PROGRAMS/openmp/openmp.c"
OMP_NUM_THREADS=2 check "plain run" ./openmp
plain=$(cat "$WORK/last.out")
OMP_NUM_THREADS=2 HP_THREAD_LOCATIONS=each HP_EXPERIMENT_DIRECTORY=exp \
    check "hp-run ./openmp, 2 threads" hp-run ./openmp
check_eq "the program's result" "$plain" "$(cat "$WORK/last.out")"
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex

# "path<TAB>visits ..." of the OpenMP regions, as t017 lists them; the inner nested
# region's paths by their total (its workers may be one pooled thread)
got=$($CUBEDUMP exp/profile.cubex | unsanitized awk -F'\t' '{ n = split($1, p, "/"); sub("visits=", "", $3) }
        $3 > 0 && p[n] ~ /^!\$omp/ { sub(/^[^\/]*\//, "", $1); print $1 "\t" $3 }' |
    LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2n |
    unsanitized awk -F'\t' '$1 != p { if (NR > 1) print line; line = $1 "\t" $2; p = $1; s = $2; next }
        index($1, "openmp.c:46") { s += $2; line = $1 "\t" s; next }
        { line = line " " $2 } END { print line }' | tr '\n' ';')
M=main S="main/synchronized/!\$omp parallel @openmp.c:33" N="main/nested/!\$omp parallel @openmp.c:52"
T=$(printf '\t')
check_eq "every OpenMP region under the path that forked it, exact visits" \
    "$M/dynamic_loop/!\$omp parallel @openmp.c:26${T}1 1;$M/dynamic_loop/!\$omp parallel @openmp.c:26/!\$omp implicit barrier @openmp.c:26${T}1 1;$N${T}1 1;$N/!\$omp implicit barrier @openmp.c:52${T}1 1;$N/inner/!\$omp parallel @openmp.c:46${T}4;$N/inner/!\$omp parallel @openmp.c:46/!\$omp implicit barrier @openmp.c:46${T}4;$M/static_loop/!\$omp parallel @openmp.c:19${T}1 1;$M/static_loop/!\$omp parallel @openmp.c:19/!\$omp implicit barrier @openmp.c:19${T}1 1;$S${T}1 1;$S/!\$omp barrier @openmp.c:36${T}1 1;$S/!\$omp critical @openmp.c:37${T}1 1;$S/!\$omp critical @openmp.c:37/!\$omp critical sblock @openmp.c:37${T}1 1;$S/!\$omp critical @openmp.c:39${T}1 1;$S/!\$omp critical @openmp.c:39/!\$omp critical sblock @openmp.c:39${T}1 1;$S/!\$omp implicit barrier @openmp.c:33${T}1 1;" \
    "$got"

OMP_NUM_THREADS=2 HP_EXPERIMENT_DIRECTORY=viaenv check "hp-run env A=1 ./openmp" \
    hp-run env A=1 ./openmp
check_eq "through env: the program's experiment" "openmp" \
    "$($CUBEDUMP viaenv/profile.cubex | awk -F'\t' 'NR == 1 { print $1 }')"
# bash is the program here; its children ./openmp and true are not measured
OMP_NUM_THREADS=2 HP_EXPERIMENT_DIRECTORY=kids hp-run bash -c './openmp; true' >/dev/null 2>&1
check_eq "bash's children write no experiment" "kids" "$(ls -d kids*)"
finish
