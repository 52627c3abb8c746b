/*
 * The MPI call-overhead workload of `make bench` (see doc/bench.md, "MPI overhead").
 *
 * Every rank calls MPI_Comm_rank N times in a tight loop. Only the loop is timed
 * (CLOCK_MONOTONIC), after a barrier, so MPI_Init, the measurement's start-up and
 * MPI_Finalize (the unification) stay outside the figure. The same source is built
 * plain (mpicc) and measured (hp-instrument --nocompiler mpicc); the driver subtracts
 * the plain time and divides by N. The slower rank's loop time counts.
 *
 * Usage: mpi-rank [N]   (default 1000000). Rank 0 prints "ns=<loop time> calls=<N>".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long long t0 = now_ns();
    for (unsigned long i = 0; i < n; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        sink += rank;
    }
    unsigned long long t = now_ns() - t0;

    unsigned long long tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("ns=%llu calls=%lu\n", tmax, n);
    MPI_Finalize();
    return 0;
}
