/* Many small events around MPI calls: in each of N rounds (argument, default 2000) every
 * rank calls an instrumented function 20 times, then passes one int around the ring
 * with MPI_Sendrecv. With a small trace buffer, flushes fall everywhere: at an Enter, a
 * Leave, their counter values, and the events an MPI call records at its end. Rank 0
 * prints the sum of what the ranks received. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int __attribute__((noinline)) step(int x)
{
    return x * 3 + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 2000;
    long acc = 0, sum = 0, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 20; i++)
            acc += step(i);
        int out = r, in = 0;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += in;
    }
    MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total=%ld calls=%ld\n", total, acc);
    MPI_Finalize();
    return 0;
}
