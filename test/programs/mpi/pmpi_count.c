/*
 * A minimal PMPI tool, as a user's own statistics library would be: it defines MPI_*
 * for the calls of traffic.c, counts each call and passes it on through PMPI_*. At
 * MPI_Finalize every rank prints one line to stderr:
 *     pmpi_count rank R: MPI_Allreduce=N MPI_Alltoall=N ... (the functions in name order)
 * Built as a shared library (libpmpi_count.so) and linked or preloaded with or without
 * hpmeasure by t093-mpi-stacking.sh, which compares the counts.
 */
#include <mpi.h>
#include <stdio.h>

enum {
    ALLREDUCE, ALLTOALL, BARRIER, BCAST, COMM_FREE, COMM_RANK, COMM_SIZE, COMM_SPLIT,
    FINALIZE, INIT, IRECV, ISEND, RECV, REDUCE, SEND, SENDRECV, WAITALL, N_COUNTED
};
static const char *const names[N_COUNTED] = {
    "MPI_Allreduce", "MPI_Alltoall", "MPI_Barrier", "MPI_Bcast", "MPI_Comm_free",
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_split", "MPI_Finalize", "MPI_Init",
    "MPI_Irecv", "MPI_Isend", "MPI_Recv", "MPI_Reduce", "MPI_Send", "MPI_Sendrecv",
    "MPI_Waitall"
};
static long counts[N_COUNTED];

#define PASS(id, call) \
    do {               \
        counts[id]++;  \
        return call;   \
    } while (0)

int MPI_Init(int *argc, char ***argv) { PASS(INIT, PMPI_Init(argc, argv)); }

int MPI_Comm_rank(MPI_Comm c, int *r) { PASS(COMM_RANK, PMPI_Comm_rank(c, r)); }

int MPI_Comm_size(MPI_Comm c, int *s) { PASS(COMM_SIZE, PMPI_Comm_size(c, s)); }

int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *out)
{
    PASS(COMM_SPLIT, PMPI_Comm_split(c, color, key, out));
}

int MPI_Comm_free(MPI_Comm *c) { PASS(COMM_FREE, PMPI_Comm_free(c)); }

int MPI_Send(const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c)
{
    PASS(SEND, PMPI_Send(b, n, t, dst, tag, c));
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st)
{
    PASS(RECV, PMPI_Recv(b, n, t, src, tag, c, st));
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c,
              MPI_Request *r)
{
    PASS(ISEND, PMPI_Isend(b, n, t, dst, tag, c, r));
}

int MPI_Irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *r)
{
    PASS(IRECV, PMPI_Irecv(b, n, t, src, tag, c, r));
}

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[])
{
    PASS(WAITALL, PMPI_Waitall(n, r, st));
}

int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int dst, int stag, void *rb,
                 int rn, MPI_Datatype rt, int src, int rtag, MPI_Comm c, MPI_Status *s)
{
    PASS(SENDRECV, PMPI_Sendrecv(sb, sn, st, dst, stag, rb, rn, rt, src, rtag, c, s));
}

int MPI_Barrier(MPI_Comm c) { PASS(BARRIER, PMPI_Barrier(c)); }

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    PASS(BCAST, PMPI_Bcast(b, n, t, root, c));
}

int MPI_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root,
               MPI_Comm c)
{
    PASS(REDUCE, PMPI_Reduce(sb, rb, n, t, op, root, c));
}

int MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    PASS(ALLREDUCE, PMPI_Allreduce(sb, rb, n, t, op, c));
}

int MPI_Alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
                 MPI_Comm c)
{
    PASS(ALLTOALL, PMPI_Alltoall(sb, sn, st, rb, rn, rt, c));
}

/* The tool's own calls go through PMPI_*, so they are not counted (by it or by anyone). */
int MPI_Finalize(void)
{
    int rank = -1;
    counts[FINALIZE]++;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char line[1024];
    int n = snprintf(line, sizeof line, "pmpi_count rank %d:", rank);
    for (int i = 0; i < N_COUNTED && n > 0 && (size_t)n < sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s=%ld", names[i], counts[i]);
    fprintf(stderr, "%s\n", line);
    return PMPI_Finalize();
}
