/* A long-running shape in few lines: ITERS (argv[1], default 1000) rounds of work() ->
 * 10 x leaf() followed by one MPI_Sendrecv around the ring (to rank + 1, from rank - 1,
 * 8 bytes, tag 7). Every rank checks what it received and exits 1 on a wrong value.
 * Per rank: ITERS MpiSend and ITERS MpiRecv, 11 ITERS program regions visited. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) void leaf(int i) { sink += i * 0.5; }

__attribute__((noinline)) void work(int iter)
{
    for (int i = 0; i < 10; i++)
        leaf(iter + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = 0;
    for (int it = 0; it < iters; it++) {
        work(it);
        long out = (long)rank * 1000000 + it, in = -1;
        int from = (rank + size - 1) % size;
        MPI_Sendrecv(&out, 1, MPI_LONG, (rank + 1) % size, 7, &in, 1, MPI_LONG, from, 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != (long)from * 1000000 + it)
            bad = 1;
    }
    if (bad)
        fprintf(stderr, "ring_work: rank %d received a wrong value\n", rank);
    MPI_Finalize();
    return bad;
}
