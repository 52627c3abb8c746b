#!/bin/sh
# MPI programs built with hp-instrument mpifort are measured for all three Fortran
# bindings: include 'mpif.h', use mpi (MPICH's Fortran layer calls the C MPI_* functions)
# and use mpi_f08 (MPICH's f08 binding calls PMPI_* directly, so the f08 binding symbols
# must be intercepted). Exact visits and bytes of MPI_Send, MPI_Recv, MPI_Allreduce per
# rank, and an MPI_Barrier (which MPICH's f08 binding calls through PMPI directly). The
# main program shows under its PROGRAM name, which is the executable's name here.
#
# Expected values (each program, each rank r of 4; left = (r+3)%4):
#   ring: 3 steps, each one MPI_Send of 10 MPI_INTEGER (40 B) to the right and one
#     MPI_Recv of 10 from the left: MPI_Send 3 visits, bytes_sent 3*40 = 120;
#     MPI_Recv 3 visits, bytes_received 3*40 = 120.
#   allsum: MPI_Allreduce of 1 MPI_INTEGER: N*1*4 = 16 sent and received; then
#     MPI_Allreduce with MPI_IN_PLACE of 1 MPI_INTEGER: (N-1)*1*4 = 12: 2 visits,
#     16+12 = 28 sent and 28 received.
#   Output of rank 0: total = sum over ranks and steps of the received values
#     = 10*1000*(0+1+2+3)*3 + 4*10*100*(1+2+3) + 4*3*55 = 180000 + 24000 + 660 = 204660.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 21

cat > expected-visits.in <<'END'
# path (EXE = the executable and program)  visits r0-r3
EXE/main/EXE/ring_/MPI_Send             3 3 3 3
EXE/main/EXE/ring_/MPI_Recv             3 3 3 3
EXE/main/EXE/allsum_/MPI_Allreduce      2 2 2 2
END
cat > expected-bytes.in <<'END'
# path (EXE = the executable and program)  bytes_sent r0-r3   bytes_received r0-r3
EXE/main/EXE/ring_/MPI_Send             120 120 120 120    0 0 0 0
EXE/main/EXE/ring_/MPI_Recv             0 0 0 0            120 120 120 120
EXE/main/EXE/allsum_/MPI_Allreduce      28 28 28 28        28 28 28 28
END

for binding in mpifh usempi f08; do
    exe=ftraffic_$binding
    check "build $exe.f90 with hp-instrument mpifort" \
        hp-instrument mpifort -O1 -o $exe "$MPIPROGS/$exe.f90"
    check "run $exe" mpirun4 HP_EXPERIMENT_DIRECTORY=exp-$binding ./$exe
    check_eq "$exe output" "total=204660 errors=0" "$(cat "$WORK/last.out")"

    check "cubecheck.py passes ($exe)" cubecheck exp-$binding/profile.cubex
    $CUBEDUMP exp-$binding/profile.cubex > dump-$binding.txt
    # Every row whose leaf is one of the three calls (wherever it is), so a call recorded
    # twice or on another path shows up too.
    metric_rows dump-$binding.txt visits bytes_sent bytes_received \
        | grep -E '/MPI_(Send|Recv|Allreduce) ' > rows-$binding.txt
    sed "/^#/!s|EXE|$exe|g" expected-visits.in | expand_table 1 | LC_ALL=C sort > expected-visits-$binding.txt
    awk '{ print $1, $2, $3 }' rows-$binding.txt | LC_ALL=C sort > visits-$binding.txt
    check "$exe: exact visits of MPI_Send, MPI_Recv, MPI_Allreduce per rank" \
        diff -u expected-visits-$binding.txt visits-$binding.txt
    sed "/^#/!s|EXE|$exe|g" expected-bytes.in | expand_table 2 | LC_ALL=C sort > expected-bytes-$binding.txt
    awk '{ print $1, $2, $4, $5 }' rows-$binding.txt | LC_ALL=C sort > bytes-$binding.txt
    check "$exe: exact bytes of MPI_Send, MPI_Recv, MPI_Allreduce per rank" \
        diff -u expected-bytes-$binding.txt bytes-$binding.txt
    # MPI_Barrier carries no buffer: MPICH's f08 binding calls PMPI_Barrier directly, so
    # with use mpi_f08 only the f08 entry point's own wrapper can see it.
    check_eq "$exe: MPI_Barrier measured once per rank in the main program" \
        "0 visits=1 1 visits=1 2 visits=1 3 visits=1" \
        "$(awk -F'\t' '$1 == "'$exe'/main/'$exe'/MPI_Barrier" { print $2, $3 }' dump-$binding.txt | tr '\n' ' ' | sed 's/ $//')"
done
finish
