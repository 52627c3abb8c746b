/*
 * The unification workload of `make bench` (see doc/bench.md, "MPI overhead").
 *
 * Every rank goes through a few call paths that differ between ranks (a ring exchange
 * in two functions, collectives, a path only even ranks take and one only rank 0
 * takes), so the profiles that MPI_Finalize merges are not all alike. Rank 0 times
 * MPI_Finalize alone (CLOCK_MONOTONIC, after a barrier): in a measured build that is
 * the building, merging and writing of the job's profile.
 *
 * Usage: mpi-finalize [ITERATIONS]   (default 3). Rank 0 prints "ns=<MPI_Finalize time>
 * ranks=<P>".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_KEEP __attribute__((noipa, noinline))
#else
#define BENCH_KEEP __attribute__((noinline))
#endif

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

BENCH_KEEP void ring(int rank, int size, double *v)
{
    double in;
    MPI_Sendrecv(v, 1, MPI_DOUBLE, (rank + 1) % size, 1, &in, 1, MPI_DOUBLE,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *v = 0.5 * (*v + in);
}

BENCH_KEEP void ring_nonblocking(int rank, int size, double *v)
{
    double in;
    MPI_Request req[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc 12 warns about it (-Wstringop-overflow) */
    MPI_Irecv(&in, 1, MPI_DOUBLE, (rank + size - 1) % size, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(v, 1, MPI_DOUBLE, (rank + 1) % size, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, st);
    *v += in;
}

BENCH_KEEP void reduce_all(double *v)
{
    double sum;
    MPI_Allreduce(v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *v = sum;
}

BENCH_KEEP void even_only(double *v)
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &sub);
    MPI_Bcast(v, 1, MPI_DOUBLE, 0, sub);
    MPI_Comm_free(&sub);
}

BENCH_KEEP void odd_only(void)
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, 1, 0, &sub);
    MPI_Barrier(sub);
    MPI_Comm_free(&sub);
}

BENCH_KEEP void root_only(double v)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(name, &len);
    if (v < 0)
        printf("%s\n", name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iterations = argc > 1 ? atoi(argv[1]) : 3;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double v = rank;

    for (int i = 0; i < iterations; i++) {
        ring(rank, size, &v);
        ring_nonblocking(rank, size, &v);
        reduce_all(&v);
    }
    if (rank % 2 == 0)
        even_only(&v);
    else
        odd_only();
    if (rank == 0)
        root_only(v);

    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long long t0 = now_ns();
    MPI_Finalize();
    unsigned long long t = now_ns() - t0;
    if (rank == 0)
        printf("ns=%llu ranks=%d\n", t, size);
    return 0;
}
