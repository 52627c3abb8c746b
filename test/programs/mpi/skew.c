/* Messages between ranks whose timing is deliberately skewed: before each round every
 * rank sleeps a different time (rank r: (r * 7 + round * 3) % 5 * 10 ms), then even ranks
 * send to the next rank and receive from the previous one, odd ranks the other way
 * round. In a correct trace every receive ends after its matching send began. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void nap(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < 4; round++) {
        nap((rank * 7 + round * 3) % 5 * 10);
        int out = rank * 100 + round, in = -1;
        if (rank % 2 == 0) {
            MPI_Send(&out, 1, MPI_INT, right, round, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, right, round, MPI_COMM_WORLD);
        }
        sum += in;
    }
    int total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total=%d\n", total);
    MPI_Finalize();
    return 0;
}
