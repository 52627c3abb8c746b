/*
 * Ranks that sleep (t054): each rank sleeps 5 x 100 ms in nap() (usleep), rank 0 then
 * sleeps another 300 ms while rank 1 waits for it in MPI_Barrier. Rank 0 prints how long
 * its sleeps took ("sleeps <seconds>", 0.8 s).
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void nap(unsigned us)
{
    usleep(us);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = now();
    for (int i = 0; i < 5; i++)
        nap(100000);
    if (rank == 0)
        nap(300000);
    double took = now() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("sleeps %.3f\n", took);
    MPI_Finalize();
    return 0;
}
