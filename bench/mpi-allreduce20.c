/*
 * The scale workload of `make bench` (bench/run-scale-bench.sh; doc/bench.md, "Finalize
 * at scale"): a trivial MPI program whose run is mostly start-up and finalize, so that
 * the cost of unifying and writing the job's profile and trace shows at any rank count.
 *
 * Each rank adds one double across the job in 20 MPI_Allreduce calls, in a function of
 * its own so that a compiler-instrumented build has a call path below main. Rank 0
 * prints "sum=<total>" so a broken run is seen.
 */
#include <mpi.h>
#include <stdio.h>

#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_KEEP __attribute__((noipa, noinline))
#else
#define BENCH_KEEP __attribute__((noinline))
#endif

enum { REDUCTIONS = 20 };

BENCH_KEEP double reduce(double mine)
{
    double sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

int main(int argc, char **argv)
{
    int rank;
    double total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < REDUCTIONS; i++)
        total += reduce(rank + 1.0);
    if (rank == 0)
        printf("sum=%.0f\n", total);
    MPI_Finalize();
    return 0;
}
