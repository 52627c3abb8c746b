/*
 * The MPI call-overhead workload of `make bench` (see doc/bench.md, "MPI overhead").
 *
 * Every rank calls MPI_Comm_rank N times in a tight loop. Only the loop is timed
 * (CLOCK_MONOTONIC), after a barrier, so MPI_Init, the measurement's start-up and
 * MPI_Finalize (the unification) stay outside the figure. The same source is built
 * plain (mpicc) and measured (hp-instrument --nocompiler mpicc); the driver subtracts
 * the plain time and divides by N.
 *
 * The loop runs in SLICES slices of N / SLICES calls, each timed on its own, and the
 * figure is the fastest slice times SLICES: the machine is shared, and a burst of
 * other work during one slice must not count. The slower rank's figure counts.
 *
 * Usage: mpi-rank [N]   (default 1000000). Rank 0 prints "ns=<figure> calls=<N>
 * total_ns=<whole loop>".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SLICES = 10 };

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000UL;
    int rank = 0;
    volatile int sink = 0; /* every result is stored, so no call can be dropped */

    unsigned long slice = n / SLICES;
    n = slice * SLICES;
    unsigned long long best = ~0ULL, total = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < SLICES; s++) {
        unsigned long long t0 = now_ns();
        for (unsigned long i = 0; i < slice; i++) {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            sink += rank;
        }
        unsigned long long t = now_ns() - t0;
        total += t;
        if (t < best)
            best = t;
    }

    unsigned long long mine[2] = { best * SLICES, total }, worst[2] = { 0, 0 };
    MPI_Reduce(mine, worst, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("ns=%llu calls=%lu total_ns=%llu\n", worst[0], n, worst[1]);
    MPI_Finalize();
    return 0;
}
