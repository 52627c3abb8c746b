/* Two ranks that call different functions: rank 0 calls even_work 1000 times, every
 * other rank calls odd_work 1000 times. Each function's trace is largest on a different
 * process, so adding the per-region largest shares would overstate a type's buffer. */
#include <mpi.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) void even_work(int i)
{
    sink += i;
}

__attribute__((noinline)) void odd_work(int i)
{
    sink -= i;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 1000; i++) {
        if (rank == 0)
            even_work(i);
        else
            odd_work(i);
    }
    MPI_Finalize();
    return 0;
}
