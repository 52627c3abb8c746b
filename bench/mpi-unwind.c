/*
 * The end-to-end unwind workload of the sampling benchmark (bench/run-sampling-bench.sh,
 * doc/bench.md): what learning an MPI call's path by unwinding adds to the call.
 *
 * Every rank descends a recursion (descend) and calls MPI_Comm_rank N times from there
 * in a tight loop (rank_loop), DEPTH user frames deep, main included (DEPTH >= 3).
 * Built with `hp-instrument --nocompiler` and run with sampling on
 * (HP_SAMPLING_FREQUENCY=1: the wrappers unwind, and almost no sample is taken), each
 * call unwinds, unless MPI_Comm_rank is in HP_MPI_UNWIND_EXCLUDE; the driver compares
 * the two. Timing as in mpi-rank.c: only the loop, after a barrier, in SLICES slices;
 * the fastest slice times SLICES counts, and the slower rank's figure.
 *
 * Usage: mpi-unwind [N [DEPTH]]   (defaults 200000 and 10). Rank 0 prints "ns=<figure>
 * calls=<N> depth=<DEPTH>".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

enum { SLICES = 10 };

volatile int bench_sink; /* every result is stored, so no call can be dropped */

/* The loop at the bottom: the fastest slice times SLICES. */
BENCH_KEEP unsigned long long rank_loop(unsigned long slice)
{
    unsigned long long best = ~0ULL;
    int rank = 0;
    for (int s = 0; s < SLICES; s++) {
        unsigned long long t0 = bench_now_ns(CLOCK_MONOTONIC);
        for (unsigned long i = 0; i < slice; i++) {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            bench_sink += rank;
        }
        unsigned long long t = bench_now_ns(CLOCK_MONOTONIC) - t0;
        if (t < best)
            best = t;
    }
    return best * SLICES;
}

/* more + 1 frames of descend, then rank_loop. The store after the call keeps it from
 * being a tail call. */
BENCH_KEEP unsigned long long descend(int more, unsigned long slice)
{
    unsigned long long t = more <= 0 ? rank_loop(slice) : descend(more - 1, slice);
    bench_sink = more;
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000UL;
    int depth = argc > 2 ? atoi(argv[2]) : 10;
    if (depth < 3)
        depth = 3;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    unsigned long slice = n / SLICES;
    n = slice * SLICES;
    MPI_Barrier(MPI_COMM_WORLD);
    /* the depth frames above MPI_Comm_rank: main, depth - 2 of descend, rank_loop */
    unsigned long long mine = descend(depth - 3, slice), worst = 0;
    MPI_Reduce(&mine, &worst, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ns=%llu calls=%lu depth=%d\n", worst, n, depth);
    MPI_Finalize();
    return 0;
}
