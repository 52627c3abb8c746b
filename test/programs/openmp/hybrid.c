/*
 * MPI + OpenMP for t018: MPI_Init_thread, then a parallel region of 2 threads in each
 * rank below compute(), and an MPI call from the master thread afterwards.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

static long sum;

__attribute__((noinline)) void work(int i)
{
    __atomic_fetch_add(&sum, i + 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void compute(void)
{
#pragma omp parallel num_threads(2)
    work(omp_get_thread_num());
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    compute();
    long total = 0;
    MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld\n", total);
    MPI_Finalize();
    return 0;
}
