/* A job with known MPI calls for the site log (t091-site-log.sh): rank 0 sends 10
 * messages of 100 ints (400 bytes) to rank 1, then every rank calls MPI_Barrier
 * `argv[1]` times (default 3). Any number of ranks >= 2; ranks above 1 only take part in
 * the barriers. Rank 0 prints "sum=<sum of what rank 1 received>" via rank 1's reply. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, buf[100];
    long sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int barriers = argc > 1 ? atoi(argv[1]) : 3;
    for (int m = 0; m < 10; m++) {
        if (rank == 0) {
            for (int i = 0; i < 100; i++)
                buf[i] = m * 100 + i;
            MPI_Send(buf, 100, MPI_INT, 1, m, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(buf, 100, MPI_INT, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 100; i++)
                sum += buf[i];
        }
    }
    for (int b = 0; b < barriers; b++)
        MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        printf("sum=%ld\n", sum);
    MPI_Finalize();
    return 0;
}
