/*
 * Visits of sampled functions are lower bounds (doc/sampling.md): main runs once,
 * compute 5 times, work 100 times (each call ~5 ms, so several samples land in it, and
 * an MPI_Barrier between two calls of work is unwound too). Sampled without hooks, main
 * must show exactly 1 visit, work at most 100 and compute at most 5.
 */
#include <mpi.h>
#include <time.h>

static volatile double sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void work(double seconds)
{
    double end = now() + seconds, x = 0;
    while (now() < end)
        for (int i = 0; i < 100; i++)
            x += i;
    sink = x;
}

__attribute__((noinline)) void compute(void)
{
    for (int k = 0; k < 20; k++) {
        work(0.005);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    sink += 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 5; i++)
        compute();
    MPI_Finalize();
    return 0;
}
