/* Known MPI traffic on exactly 4 ranks, one pattern per instrumented function so that the
 * call paths separate them (traffic/main/<pattern>/MPI_...). The expected visits and
 * bytes per call path and rank are written out, with their derivation, in
 * test/integration/t021-mpi-traffic.sh; keep the two in step.
 *
 * Every rank checks what it received against what MPI semantics say it must be; a wrong
 * value is reported on stderr and makes the program exit 1. Rank 0 prints one line, a
 * checksum of everything it received, so that an instrumented build can be compared with
 * a plain one. Nothing else is printed.
 *
 * Only main and the pattern functions are program functions (checks and checksums are
 * macros), so the call tree is exactly: main, the 12 patterns, and the MPI calls.
 * The derived datatypes are created and freed in main (MPI_Type_* is Score-P group
 * "type", not in the default set).
 */
#include <mpi.h>
#include <stdio.h>

#define NPROCS 4

static int rank, size, left, right;
static long checksum; /* of everything this rank received */
static int errors;
static MPI_Datatype int5; /* MPI_Type_contiguous(5, MPI_INT): size 20 bytes */
static MPI_Datatype int2; /* MPI_Type_contiguous(2, MPI_INT): size 8 bytes */

#define EXPECT(cond, what)                                                             \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "traffic: rank %d: %s: %s (line %d)\n", rank, __func__,    \
                    what, __LINE__);                                                   \
            errors++;                                                                  \
        }                                                                              \
    } while (0)

#define ADD(x) (checksum = (checksum * 31 + (long)(x)) % 1000000007L)

/* Blocking ring, twice: 100 ints to the right neighbour, received from the left one into
 * a buffer of 200 (the size comes from the status: 400 bytes, not 800). Even ranks send
 * first, odd ranks receive first, so no call depends on eager buffering. The first
 * receive passes a status, the second MPI_STATUS_IGNORE. */
__attribute__((noinline)) static void ring(void)
{
    int sbuf[100], rbuf[200];
    for (int it = 0; it < 2; it++) {
        MPI_Status st;
        MPI_Status *stp = it == 0 ? &st : MPI_STATUS_IGNORE;
        for (int i = 0; i < 100; i++)
            sbuf[i] = rank * 1000 + it * 100 + i;
        for (int i = 0; i < 200; i++)
            rbuf[i] = -1;
        if (rank % 2 == 0) {
            MPI_Send(sbuf, 100, MPI_INT, right, 10 + it, MPI_COMM_WORLD);
            MPI_Recv(rbuf, 200, MPI_INT, left, 10 + it, MPI_COMM_WORLD, stp);
        } else {
            MPI_Recv(rbuf, 200, MPI_INT, left, 10 + it, MPI_COMM_WORLD, stp);
            MPI_Send(sbuf, 100, MPI_INT, right, 10 + it, MPI_COMM_WORLD);
        }
        for (int i = 0; i < 100; i++) {
            EXPECT(rbuf[i] == left * 1000 + it * 100 + i, "ring data");
            ADD(rbuf[i]);
        }
        EXPECT(rbuf[100] == -1, "ring: received more than 100 ints");
        if (it == 0)
            EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 10, "ring status");
    }
}

/* A send to and a receive from MPI_PROC_NULL: both complete at once and move nothing. */
__attribute__((noinline)) static void procnull(void)
{
    int buf[50];
    MPI_Status st;
    for (int i = 0; i < 50; i++)
        buf[i] = 7;
    MPI_Send(buf, 50, MPI_INT, MPI_PROC_NULL, 20, MPI_COMM_WORLD);
    MPI_Recv(buf, 50, MPI_INT, MPI_PROC_NULL, 20, MPI_COMM_WORLD, &st);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL, "status source of a PROC_NULL receive");
    EXPECT(buf[0] == 7, "PROC_NULL receive changed the buffer");
}

/* Three non-blocking messages to the right neighbour, completed by one MPI_Waitall with
 * MPI_STATUSES_IGNORE: (10 + rank) doubles (receive posted for 16), 7 chars, and 3
 * elements of the derived type int5 (15 ints, 60 bytes). */
__attribute__((noinline)) static void nonblocking(void)
{
    double ds[16], dr[16];
    char cs[7], cr[7];
    int is[15], ir[15];
    MPI_Request req[6];
    int nd = 10 + rank, nd_left = 10 + left;

    for (int i = 0; i < 16; i++) {
        ds[i] = rank + i * 0.5;
        dr[i] = -1.0;
    }
    for (int i = 0; i < 7; i++) {
        cs[i] = (char)('a' + rank + i);
        cr[i] = 0;
    }
    for (int i = 0; i < 15; i++) {
        is[i] = rank * 100 + i;
        ir[i] = -1;
    }
    MPI_Irecv(dr, 16, MPI_DOUBLE, left, 30, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(cr, 7, MPI_CHAR, left, 31, MPI_COMM_WORLD, &req[1]);
    MPI_Irecv(ir, 3, int5, left, 32, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(ds, nd, MPI_DOUBLE, right, 30, MPI_COMM_WORLD, &req[3]);
    MPI_Isend(cs, 7, MPI_CHAR, right, 31, MPI_COMM_WORLD, &req[4]);
    MPI_Isend(is, 3, int5, right, 32, MPI_COMM_WORLD, &req[5]);
#if defined(__GNUC__) && !defined(__clang__)
/* gcc takes MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1) for an array of size 0. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
    MPI_Waitall(6, req, MPI_STATUSES_IGNORE);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

    for (int i = 0; i < 16; i++) {
        EXPECT(dr[i] == (i < nd_left ? left + i * 0.5 : -1.0), "nonblocking doubles");
        ADD(dr[i] * 2);
    }
    for (int i = 0; i < 7; i++) {
        EXPECT(cr[i] == (char)('a' + left + i), "nonblocking chars");
        ADD(cr[i]);
    }
    for (int i = 0; i < 15; i++) {
        EXPECT(ir[i] == left * 100 + i, "nonblocking int5");
        ADD(ir[i]);
    }
}

/* MPI_Sendrecv: (rank + 1) ints to the left, from the right into a buffer of 8, with
 * MPI_STATUS_IGNORE. */
__attribute__((noinline)) static void sendrecv(void)
{
    int s[8], r[8];
    for (int i = 0; i < 8; i++) {
        s[i] = rank * 10 + i;
        r[i] = -1;
    }
    MPI_Sendrecv(s, rank + 1, MPI_INT, left, 40, r, 8, MPI_INT, right, 40, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < 8; i++) {
        EXPECT(r[i] == (i < right + 1 ? right * 10 + i : -1), "sendrecv data");
        ADD(r[i]);
    }
}

/* MPI_Allreduce of 4 doubles (sum). */
__attribute__((noinline)) static void allreduce(void)
{
    double s[4], r[4];
    for (int i = 0; i < 4; i++)
        s[i] = rank + i;
    MPI_Allreduce(s, r, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        EXPECT(r[i] == 6 + 4 * i, "allreduce sum"); /* 0+1+2+3 + 4i */
        ADD(r[i]);
    }
}

/* MPI_Allreduce of 3 ints (max) with MPI_IN_PLACE on every rank. */
__attribute__((noinline)) static void allreduce_inplace(void)
{
    int v[3];
    for (int i = 0; i < 3; i++)
        v[i] = rank * (i + 1);
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++) {
        EXPECT(v[i] == 3 * (i + 1), "allreduce in place max");
        ADD(v[i]);
    }
}

/* MPI_Bcast of 25 ints from root 1. */
__attribute__((noinline)) static void bcast(void)
{
    int v[25];
    for (int i = 0; i < 25; i++)
        v[i] = rank == 1 ? 500 + i : -1;
    MPI_Bcast(v, 25, MPI_INT, 1, MPI_COMM_WORLD);
    for (int i = 0; i < 25; i++) {
        EXPECT(v[i] == 500 + i, "bcast data");
        ADD(v[i]);
    }
}

/* MPI_Alltoall: 2 MPI_INT to every rank, received as 1 element of int2 (same type
 * signature, 8 bytes) from every rank. */
__attribute__((noinline)) static void alltoall(void)
{
    int s[2 * NPROCS], r[2 * NPROCS];
    for (int i = 0; i < 2 * NPROCS; i++) {
        s[i] = rank * 100 + i; /* elements 2d, 2d+1 go to rank d */
        r[i] = -1;
    }
    MPI_Alltoall(s, 2, MPI_INT, r, 1, int2, MPI_COMM_WORLD);
    for (int src = 0; src < NPROCS; src++)
        for (int k = 0; k < 2; k++) {
            EXPECT(r[2 * src + k] == src * 100 + 2 * rank + k, "alltoall data");
            ADD(r[2 * src + k]);
        }
}

__attribute__((noinline)) static void barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_Reduce of 6 doubles (sum) to root 2. */
__attribute__((noinline)) static void reduce(void)
{
    double s[6], r[6];
    for (int i = 0; i < 6; i++) {
        s[i] = rank * 2 + i;
        r[i] = -1.0;
    }
    MPI_Reduce(s, r, 6, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
    for (int i = 0; i < 6; i++) {
        EXPECT(r[i] == (rank == 2 ? 12 + 4 * i : -1.0), "reduce result"); /* 2*(0+1+2+3) + 4i */
        ADD(r[i]);
    }
}

/* MPI_Reduce of 5 ints (sum) to root 2, the root passing MPI_IN_PLACE. */
__attribute__((noinline)) static void reduce_inplace(void)
{
    int v[5], dummy[5];
    for (int i = 0; i < 5; i++) {
        v[i] = rank + 10 * i;
        dummy[i] = -1;
    }
    if (rank == 2)
        MPI_Reduce(MPI_IN_PLACE, v, 5, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD);
    else
        MPI_Reduce(v, dummy, 5, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++) {
        if (rank == 2)
            EXPECT(v[i] == 6 + 40 * i, "reduce in place result");
        else
            EXPECT(v[i] == rank + 10 * i && dummy[i] == -1, "reduce in place non-root");
        ADD(v[i]);
    }
}

/* MPI_Comm_split into even {0, 2} and odd {1, 3} ranks, an MPI_Allreduce of 8 ints (sum)
 * on the sub-communicator (size 2), MPI_Comm_free. */
__attribute__((noinline)) static void subcomm(void)
{
    MPI_Comm sub;
    int s[8], r[8];
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
    for (int i = 0; i < 8; i++)
        s[i] = rank + i;
    MPI_Allreduce(s, r, 8, MPI_INT, MPI_SUM, sub);
    for (int i = 0; i < 8; i++) {
        /* even: (0+i)+(2+i) = 2+2i, odd: (1+i)+(3+i) = 4+2i */
        EXPECT(r[i] == (rank % 2 == 0 ? 2 : 4) + 2 * i, "sub-communicator allreduce");
        ADD(r[i]);
    }
    MPI_Comm_free(&sub);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NPROCS) {
        if (rank == 0)
            fprintf(stderr, "traffic: needs exactly %d ranks, got %d\n", NPROCS, size);
        MPI_Finalize();
        return 2;
    }
    right = (rank + 1) % NPROCS;
    left = (rank + NPROCS - 1) % NPROCS;
    MPI_Type_contiguous(5, MPI_INT, &int5);
    MPI_Type_commit(&int5);
    MPI_Type_contiguous(2, MPI_INT, &int2);
    MPI_Type_commit(&int2);

    ring();
    procnull();
    nonblocking();
    sendrecv();
    allreduce();
    allreduce_inplace();
    bcast();
    alltoall();
    barrier();
    reduce();
    reduce_inplace();
    subcomm();

    MPI_Type_free(&int5);
    MPI_Type_free(&int2);
    if (rank == 0)
        printf("checksum %ld\n", checksum);
    MPI_Finalize();
    return errors ? 1 : 0;
}
