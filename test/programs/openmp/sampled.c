/*
 * MPI + OpenMP for t098, built without function hooks (hp-instrument --nocompiler, or
 * plain mpicc under hp-run): first() forks one parallel region and second() two, both
 * through compute(), and every thread of each region spins in spin() for 40 ms of wall
 * time, so that samples land there. Sampling has to find each region's call path by
 * unwinding the fork. Prints the sum of the team sizes over the regions and ranks.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

static long teams;

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) double spin(double length)
{
    volatile double x = 0;
    double end = seconds() + length;
    while (seconds() < end)
        for (int i = 0; i < 1000; i++)
            x += i;
    return x;
}

__attribute__((noinline)) void compute(void)
{
#pragma omp parallel
    {
        spin(0.04);
#pragma omp atomic
        teams++;
    }
}

__attribute__((noinline)) void first(void)
{
    compute();
}

__attribute__((noinline)) void second(void)
{
    compute();
    compute();
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    first();
    second();
    long total = 0;
    MPI_Allreduce(&teams, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld\n", total);
    MPI_Finalize();
    return 0;
}
