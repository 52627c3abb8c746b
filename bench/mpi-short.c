/*
 * The short-run workload of `make bench` (run-short-run-bench.sh; doc/bench.md, "A short
 * run under hp-run"): a job of about half a second whose cost under hp-run is mostly
 * what measurement pays once (start-up, the first samples, resolving sampled addresses
 * at MPI_Finalize), not what it pays per sample.
 *
 * Every rank sums sin(i)/i over N terms in 20 steps (libm, so samples land in a shared
 * library with its own symbols and debug information) with an MPI_Allreduce after each
 * step. Rank 0 prints the sum, which must be the same measured or not.
 *
 * Usage: mpi-short [N]   (default 16000000)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { STEPS = 20 };

static double partial_sum(long from, long to)
{
    double s = 0;
    for (long i = from; i < to; i++)
        s += sin((double)i) / (double)i;
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 16000000L;
    double sum = 0, total = 0;
    for (long step = 0; step < STEPS; step++) {
        double mine = partial_sum(1 + step * n / STEPS, 1 + (step + 1) * n / STEPS);
        MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += total;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("sum=%.9f\n", sum);
    MPI_Finalize();
    return 0;
}
