#!/bin/sh
# A real-shaped hybrid C++ program (test/programs/proxy/halo.cpp: a mesh class with
# one-line accessors and std::vector fields, OpenMP over rows, an MPI halo exchange and
# an Allreduce per step, an exception every 5 steps) built with the one-word wrapper
# hp-mpicxx (GCC plug-in, its defaults), 2 ranks x 2 threads, profile and trace:
# - the program's output is that of the plain build;
# - exact visits on every call path and thread, with the accessors left out (inline),
#   each team thread's row updates under !$omp parallel below Mesh::relax();
# - exact bytes and messages of the halo rows (64 doubles each) and the Allreduce;
# - the trace passes otf2check.py with every send matched;
# - at the default overhead budget the result and the MPI call paths stay the same.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 12

HALO="$PROGRAMS/proxy/halo.cpp"
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"
run2() {
    timeout -k 10 "$HP_MPI_TIMEOUT" env OMP_NUM_THREADS=2 "$@" mpiexec -n 2 ./halo
}
check "build with plain mpicxx -fopenmp" mpicxx -fopenmp -O2 -o halo-plain "$HALO"
check "plain run" timeout -k 10 "$HP_MPI_TIMEOUT" env OMP_NUM_THREADS=2 mpiexec -n 2 ./halo-plain
plain_out=$(cat "$WORK/last.out")
check "build with hp-mpicxx -fopenmp" hp-mpicxx -fopenmp -O2 -o halo "$HALO"
check "measured run: every visit counted, traced" \
    run2 HP_OVERHEAD_BUDGET=0 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp
check_eq "program output unchanged" "$plain_out" "$(cat "$WORK/last.out")"

# Locations: rank 0 = 0 (master), 1 (worker); rank 1 = 2, 3. Per path, the visits of
# locations 0 1 2 3 (0 where a location has none).
P='main/Mesh::relax()/!$omp parallel @halo.cpp:74'
cat > expected.txt <<END
main 1 0 1 0
main/MPI_Init_thread 1 0 1 0
main/MPI_Comm_rank 1 0 1 0
main/MPI_Comm_size 1 0 1 0
main/Mesh::Mesh(int, int) 1 0 1 0
main/Mesh::init(int) 1 0 1 0
main/Mesh::exchange_halo(int, int) 20 0 20 0
main/Mesh::exchange_halo(int, int)/MPI_Irecv 40 0 40 0
main/Mesh::exchange_halo(int, int)/MPI_Isend 40 0 40 0
main/Mesh::exchange_halo(int, int)/MPI_Waitall 20 0 20 0
main/Mesh::relax() 20 0 20 0
$P 20 20 20 20
$P/Mesh::update_row(int) 320 320 320 320
$P/!\$omp implicit barrier @halo.cpp:74 20 20 20 20
main/MPI_Allreduce 20 0 20 0
main/checkpoint(int, double) 20 0 20 0
main/MPI_Finalize 1 0 1 0
END
# visits_table CUBEX: "PATH v0 v1 v2 v3" below the program root, in call-tree order.
visits_table() {
    $CUBEDUMP "$1" | metric_rows /dev/stdin visits | sed 's/^[^\/ ]*\///' |
        awk '{ n = NF - 2; path = $1; for (i = 2; i <= n; i++) path = path " " $i
               v[path] = v[path] " " $NF; if (!(path in seen)) { seen[path] = 1; order[++k] = path } }
             END { for (i = 1; i <= k; i++) print order[i] v[order[i]] }' |
        grep -v '^halo '
}
$CUBEDUMP exp/profile.cubex > dump.txt
visits_table exp/profile.cubex > visits.txt
check "exact visits per call path and thread; no accessor, no std::vector code" \
    diff -u expected.txt visits.txt

# bytes_sent bytes_received messages_sent messages_received of rank 0 and rank 1.
cat > expected-bytes.txt <<END
main/Mesh::exchange_halo(int, int)/MPI_Isend 0 20480 0 40 0
main/Mesh::exchange_halo(int, int)/MPI_Isend 2 20480 0 40 0
main/Mesh::exchange_halo(int, int)/MPI_Irecv 0 0 0 0 0
main/Mesh::exchange_halo(int, int)/MPI_Irecv 2 0 0 0 0
main/Mesh::exchange_halo(int, int)/MPI_Waitall 0 0 20480 0 40
main/Mesh::exchange_halo(int, int)/MPI_Waitall 2 0 20480 0 40
main/MPI_Allreduce 0 320 320 0 0
main/MPI_Allreduce 2 320 320 0 0
END
metric_rows dump.txt bytes_sent bytes_received messages_sent messages_received |
    sed 's/^halo\///' | awk '$(NF - 4) == 0 || $(NF - 4) == 2' |
    grep -E '/MPI_(Isend|Irecv|Waitall|Allreduce) ' > bytes.txt
sorted expected-bytes.txt > expected-bytes.sorted
sorted bytes.txt > bytes.sorted
check "halo rows and Allreduce: exact bytes and messages" \
    diff -u expected-bytes.sorted bytes.sorted
check "cubecheck.py passes" cubecheck exp/profile.cubex
$OTF2CHECK exp/traces.otf2 > check.txt 2>&1
check "otf2check.py passes: 80 sends, all matched; 20 Allreduce instances" sh -c \
    'grep -q "SUMMARY: PASS" check.txt && grep -q "p2p: 80 sends, 80 receives, 80 matched pairs" check.txt &&
     grep -q "collectives: 20 collective instances" check.txt'

check "default overhead budget: run" run2 HP_EXPERIMENT_DIRECTORY=dflt
check_eq "default overhead budget: output unchanged" "$plain_out" "$(cat "$WORK/last.out")"
check_eq "default overhead budget: MPI calls keep their call paths and visits" \
    "$(grep MPI_ expected.txt)" "$(visits_table dflt/profile.cubex | grep MPI_)"
finish
