/* An MPI program with a known, busy call structure for samples in traces: every rank
 * runs ROUNDS rounds of compute() (spinning about 15 ms in spin()) and then passes a
 * token around the ring with MPI_Send/MPI_Recv (rank 0 sends first), so each rank sends
 * and receives ROUNDS messages of 8 bytes. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

enum { ROUNDS = 10 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile double sink;

__attribute__((noinline)) void spin(double until)
{
    double x = 1.0;
    while (now_ms() < until)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

__attribute__((noinline)) void compute(void)
{
    spin(now_ms() + 15);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double token = 0;
    for (int round = 0; round < ROUNDS; round++) {
        compute();
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_DOUBLE, next, round, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_DOUBLE, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_DOUBLE, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += 1;
            MPI_Send(&token, 1, MPI_DOUBLE, next, round, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("token %.0f\n", token);
    MPI_Finalize();
    return 0;
}
