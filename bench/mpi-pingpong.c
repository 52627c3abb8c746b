/*
 * The MPI latency workload of `make bench` (see doc/bench.md, "MPI overhead").
 *
 * Ranks 0 and 1 exchange an 8-byte message N times (MPI_Send / MPI_Recv, one round
 * trip = rank 0 sends, rank 1 answers). 1000 round trips warm up first; only the
 * timed loop (CLOCK_MONOTONIC on rank 0, after a barrier) counts. Other ranks, if any,
 * only wait. Built plain and measured; the driver compares the round-trip times.
 *
 * The loop runs in SLICES slices of N / SLICES round trips, each timed on its own, and
 * the figure is the fastest slice times SLICES: the machine is shared, and both ranks
 * busy-poll, so any other process on a core stalls the exchange while it runs.
 *
 * Usage: mpi-pingpong [N]   (default 100000). Rank 0 prints "ns=<figure> roundtrips=<N>
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

static void pingpong(int rank, unsigned long n, double *buf)
{
    for (unsigned long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000UL;
    int rank, size;
    double buf[1] = { 1.0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "mpi-pingpong: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    unsigned long slice = n / SLICES;
    n = slice * SLICES;
    unsigned long long best = ~0ULL, total = 0;

    pingpong(rank, 1000, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < SLICES; s++) {
        unsigned long long t0 = now_ns();
        pingpong(rank, slice, buf);
        unsigned long long t = now_ns() - t0;
        total += t;
        if (t < best)
            best = t;
    }

    if (rank == 0)
        printf("ns=%llu roundtrips=%lu total_ns=%llu\n", best * SLICES, n, total);
    MPI_Finalize();
    return 0;
}
