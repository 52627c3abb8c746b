/*
 * Call paths to MPI through a shared library, for the sampling tests: main -> compute ->
 * lib_exchange (in libpathlib.so) -> MPI_Allreduce, and main -> MPI_Barrier. Built
 * without function hooks (--nocompiler, or plain mpicc under hp-run), the paths come
 * from unwinding in the MPI wrappers. Prints the sum so that a wrong result shows.
 */
#include <mpi.h>
#include <stdio.h>

double lib_exchange(double value);

__attribute__((noinline)) double compute(int rank, int i)
{
    double v = lib_exchange(rank + i);
    return v * 0.5; /* work after the call: no tail call, the frame stays */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double total = 0;
    for (int i = 0; i < 50; i++)
        total += compute(rank, i);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %.1f\n", total);
    MPI_Finalize();
    return 0;
}
