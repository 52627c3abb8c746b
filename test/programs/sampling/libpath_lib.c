/* The shared-library part of libpath.c: a user function between the program and MPI. */
#include <mpi.h>

__attribute__((noinline)) double lib_exchange(double value)
{
    double sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum + 0.0 * value; /* work after the call: no tail call */
}
