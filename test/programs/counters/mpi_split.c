/* Counters inside and outside MPI (t071): every rank touches 200 * (rank + 1) fresh
 * pages in its own code, then calls a few collectives and point-to-point messages whose
 * buffers fault in inside MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "touch_pages.h"

__attribute__((noinline)) static double exchange(int rank, int size)
{
    enum { N = 1 << 16 };
    static double in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = rank + i;
    MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(in, N, MPI_DOUBLE, right, 7, out, N, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    return out[N - 1];
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    touch_pages(200L * (rank + 1));
    double v = exchange(rank, size);
    if (rank == 0)
        printf("exchanged %.0f\n", v);
    MPI_Finalize();
    return 0;
}
