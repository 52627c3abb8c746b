/*
 * Every rank sends every other rank one message of a size known from the pair alone:
 * rank r sends rank q (1 + r + 2q) ints with MPI_Isend (tag 5), and receives from each
 * other rank in rank order with MPI_Recv (posted for the largest size), then completes
 * its sends with one MPI_Waitall. Sizes differ between (r, q) and (q, r), so a message
 * counted for the wrong pair shows. An MPI_Allreduce of the bytes received checks the
 * run itself: rank 0 prints "pairs=<P*(P-1)> bytes=<total>" when every message arrived
 * with its size, else "pairs: wrong size from <s>" and exits 1.
 * (test/scale/t105-scale-64.sh; any number of ranks.)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG = 5 };

static int ints(int from, int to)
{
    return 1 + from + 2 * to;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int most = ints(size - 1, size - 1);
    int *out = calloc((size_t)ints(rank, size - 1), sizeof(int));
    int *in = calloc((size_t)most, sizeof(int));
    MPI_Request *sends = calloc((size_t)size, sizeof(MPI_Request));
    /* not MPI_STATUSES_IGNORE: gcc 12 warns about it (-Wstringop-overflow) */
    MPI_Status *done = calloc((size_t)size, sizeof(MPI_Status));
    if (out == NULL || in == NULL || sends == NULL || done == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int nsends = 0;
    for (int q = 0; q < size; q++)
        if (q != rank)
            MPI_Isend(out, ints(rank, q), MPI_INT, q, TAG, MPI_COMM_WORLD, &sends[nsends++]);
    long long received = 0, total = 0;
    int bad = -1;
    for (int s = 0; s < size; s++) {
        if (s == rank)
            continue;
        MPI_Status st;
        int count;
        MPI_Recv(in, most, MPI_INT, s, TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        if (count != ints(s, rank))
            bad = s;
        received += (long long)count * (long long)sizeof(int);
    }
    MPI_Waitall(nsends, sends, done);
    MPI_Allreduce(&received, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int rc = 0;
    if (bad >= 0) {
        printf("pairs: rank %d: wrong size from %d\n", rank, bad);
        rc = 1;
    } else if (rank == 0) {
        printf("pairs=%d bytes=%lld\n", size * (size - 1), total);
    }
    free(out);
    free(in);
    free(sends);
    free(done);
    MPI_Finalize();
    return rc;
}
