/*
 * A known split of time for the sampling tests: per iteration f1 computes ~6 ms, f2 ~3 ms,
 * then the ranks meet in MPI_Barrier after rank 0 computed another ~1 ms alone (so the
 * other ranks wait in MPI). Each rank measures the truth itself (wall time in f1, f2 and
 * MPI, and the time from MPI_Init's return to MPI_Finalize) and appends it to the file
 * named by argv[1] as "rank f1 f2 mpi span" in seconds.
 *
 * The computation is a clock-bounded loop, so the split holds however busy the machine.
 * f2 also calls the C library's clock_gettime through `now`: that is the uninstrumented
 * code which sampling shows below its instrumented caller.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void spin(double seconds)
{
    double end = now() + seconds, x = 0;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x += i * 0.5;
    sink = x;
}

__attribute__((noinline)) void f1(void)
{
    spin(0.006);
}

__attribute__((noinline)) void f2(void)
{
    spin(0.003);
}

__attribute__((noinline)) void imbalance(int rank)
{
    if (rank == 0)
        spin(0.001);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double begin = now(), t_f1 = 0, t_f2 = 0, t_mpi = 0;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iterations = argc > 2 ? atoi(argv[2]) : 200;
    for (int i = 0; i < iterations; i++) {
        double t0 = now();
        f1();
        double t1 = now();
        f2();
        double t2 = now();
        imbalance(rank);
        double t3 = now();
        MPI_Barrier(MPI_COMM_WORLD);
        double t4 = now();
        t_f1 += t1 - t0;
        t_f2 += t2 - t1;
        t_mpi += t4 - t3;
    }
    double span = now() - begin;
    for (int r = 0; r < 2; r++) { /* one rank at a time appends */
        if (r == rank && argc > 1) {
            FILE *f = fopen(argv[1], "a");
            if (f != NULL) {
                fprintf(f, "%d %.6f %.6f %.6f %.6f\n", rank, t_f1, t_f2, t_mpi, span);
                fclose(f);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
