/*
 * Workload for run-thunk-bench.sh: the cost of unwinding with and without the thunk
 * stack (HP_UNWIND_THUNKS) at a given call depth. main recurses to DEPTH frames, then
 * runs one of three loops for about SECONDS of CPU time:
 *   steady  spins in one leaf: every sample sees the same path (the thunks' best case)
 *   churn   calls a chain of 10 frames again and again: samples see new inner frames
 *   mpi     calls MPI_Allreduce from 10 frames below DEPTH (the wrapper unwinds each call)
 * Prints a count that does not depend on timing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static const char *mode;
static double seconds;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static unsigned long spin(unsigned long x)
{
    for (int i = 0; i < 2000; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
    return 1;
}

__attribute__((noinline)) static unsigned long chain(int k, unsigned long x)
{
    if (k == 0)
        return spin(x);
    return chain(k - 1, x) + 0 * sink;
}

__attribute__((noinline)) static unsigned long mpi_chain(int k, unsigned long x)
{
    if (k > 0)
        return mpi_chain(k - 1, x) + 0 * sink;
    unsigned long sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    return 1;
}

static unsigned long run(void)
{
    unsigned long n = 0;
    double end = cpu_now() + seconds;
    while (cpu_now() < end)
        for (int i = 0; i < 100; i++)
            if (strcmp(mode, "steady") == 0)
                n += spin(n);
            else if (strcmp(mode, "churn") == 0)
                n += chain(10, n);
            else
                n += mpi_chain(10, n);
    fprintf(stderr, "iterations %lu\n", n);
    return n > 0;
}

__attribute__((noinline)) static unsigned long descend(int depth)
{
    if (depth <= 1)
        return run();
    return descend(depth - 1) + 0 * sink;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 4) {
        fprintf(stderr, "usage: %s DEPTH steady|churn|mpi SECONDS\n", argv[0]);
        return 2;
    }
    mode = argv[2];
    seconds = atof(argv[3]);
    printf("ran %lu\n", descend(atoi(argv[1])));
    MPI_Finalize();
    return 0;
}
