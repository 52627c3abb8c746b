/*
 * Non-blocking requests from two threads per rank (MPI_THREAD_MULTIPLE): each thread
 * exchanges 3000 Irecv/Isend pairs with its neighbours and completes them with Waitall.
 * MPI hands a freed request handle to the other thread at once, so the trace's request
 * ids must follow the requests, not the handles: every MpiIsendComplete / MpiIrecv must
 * belong to a request its own location started.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 2, ROUNDS = 3000, BYTES = 1024 };

static int rank, size;

static void *exchange(void *arg)
{
    int tag = 100 + (int)(long)arg;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    char *out = calloc(BYTES, 1), *in = malloc(BYTES);
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Request r[2];
        MPI_Irecv(in, BYTES, MPI_CHAR, from, tag, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, BYTES, MPI_CHAR, to, tag, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, exchange, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("ok\n");
    return 0;
}
