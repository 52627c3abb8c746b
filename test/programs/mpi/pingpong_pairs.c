/* Tight round trips: ranks 2k and 2k+1 exchange one int N times (argument, default
 * 300; the even rank sends first, the odd one answers at once), so a receive ends only
 * a message latency after its send began: the smallest margin a trace's clock mapping
 * must keep. An odd last rank only joins the final sum. Rank 0 prints the sum of what
 * every rank received. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1, n = argc > 1 ? atoi(argv[1]) : 300;
    for (int i = 0; i < n && peer < size; i++) {
        int out = rank + i, in = 0;
        if (rank % 2 == 0) {
            MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
        }
        sum += in;
    }
    int total = 0;
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("total=%d\n", total);
    return 0;
}
