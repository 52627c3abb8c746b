/* Rank 2 calls MPI_Abort after some communication while the other ranks wait in an
 * MPI_Recv from rank 2 that never comes; the job must end (t024-mpi-abort.sh). Exactly 4
 * ranks. Rank 0 prints one line before the abort; the program itself never exits 0. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int rank, size;

/* Some measured communication first: a ring MPI_Sendrecv and an MPI_Allreduce. */
__attribute__((noinline)) static int exchange(void)
{
    int out = rank, in = -1, sum = 0;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 1, &in, 1, MPI_INT,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

__attribute__((noinline)) static void fail(void)
{
    usleep(200 * 1000); /* let the others block in their receive first */
    MPI_Abort(MPI_COMM_WORLD, 3);
}

__attribute__((noinline)) static void wait_for_rank2(void)
{
    int x;
    MPI_Recv(&x, 1, MPI_INT, 2, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never matched */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sum = exchange();
    if (rank == 0) {
        printf("sum=%d, rank 2 aborts now\n", sum);
        fflush(stdout);
    }
    if (rank == 2)
        fail();
    else
        wait_for_rank2();
    MPI_Finalize();
    return 0;
}
