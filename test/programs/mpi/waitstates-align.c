/*
 * Wait states whose calls are not all recorded (t059, doc/wait-states.md): on 2 ranks,
 * the replay must still pair every message and collective instance with the right
 * partner. Each scenario's calls have call paths of their own:
 *
 *   scan: rank 0 reaches an MPI_Scan 20 frames deeper than rank 1 (below
 *         HP_PROFILING_MAX_DEPTH, so only rank 1 records it); then nxn: MPI_Allreduce
 *         where rank 1 enters 40 ms after rank 0, 5 times (Wait at N x N 0.2 s on rank 0)
 *   pers: pers_recv: rank 1 sends twice (tag 0), the second 300 ms after the first;
 *         rank 0 takes the first with a persistent receive (MPI_Recv_init, MPI_Start,
 *         MPI_Wait), the second with MPI_Recv in pers_late_recv (Late Sender 0.3 s);
 *         pers_send: the same with the first message sent by a persistent send
 *         (MPI_Send_init, MPI_Start) and both received with MPI_Recv, in psend_early_recv
 *         and psend_late_recv (Late Sender 0.3 s on the second only)
 *   table: rank 0 posts MANY MPI_Irecv at once, more than the request table holds
 *         (16384 slots), and completes them with MPI_Wait; then rank 1 sends one
 *         more message 300 ms later, which rank 0's MPI_Recv in table_late_recv waits
 *         for (Late Sender 0.3 s)
 *
 * A delay is exact from below as in waitstates.c: the early rank tells the late one with
 * a zero-byte message just before it enters, and the late one sleeps after receiving it.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { REPS = 5, READY_TAG = 99, MANY = 20000 };

static int rank;

static void nap_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0)
        ;
}

__attribute__((noinline)) static int deep(int n, int x)
{
    if (n > 0)
        return deep(n - 1, x) + 1;
    int y = 0;
    MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return y;
}

__attribute__((noinline)) static void nxn(void)
{
    for (int i = 0; i < REPS; i++) {
        int one = 1, sum = 0;
        if (rank == 0) {
            MPI_Send(NULL, 0, MPI_BYTE, 1, READY_TAG, MPI_COMM_WORLD);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, 0, READY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            nap_ms(40);
        }
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
}

__attribute__((noinline)) static void pers_late_recv(int *b)
{
    MPI_Recv(b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void pers_recv(void)
{
    int a = 1, b = 2;
    if (rank == 1) {
        MPI_Send(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        nap_ms(300);
        MPI_Send(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        return;
    }
    MPI_Request r;
    MPI_Recv_init(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
    pers_late_recv(&b);
}

__attribute__((noinline)) static void psend_early_recv(int *b)
{
    MPI_Recv(b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void psend_late_recv(int *b)
{
    MPI_Recv(b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void pers_send(void)
{
    int a = 1, b = 2;
    if (rank == 0) {
        psend_early_recv(&a);
        psend_late_recv(&b);
        return;
    }
    MPI_Request r;
    MPI_Send_init(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
    nap_ms(300);
    MPI_Send(&b, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
}

__attribute__((noinline)) static void table_late_recv(void)
{
    MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void table(void)
{
    static MPI_Request r[MANY];
    if (rank == 1) {
        for (int i = 0; i < MANY; i++)
            MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, READY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        nap_ms(300);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        return;
    }
    for (int i = 0; i < MANY; i++)
        MPI_Irecv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &r[i]);
    /* One by one: MPI_Waitall with MPI_STATUSES_IGNORE draws a GCC 12 warning. */
    for (int i = 0; i < MANY; i++)
        MPI_Wait(&r[i], MPI_STATUS_IGNORE);
    MPI_Send(NULL, 0, MPI_BYTE, 1, READY_TAG, MPI_COMM_WORLD);
    table_late_recv();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "";
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "waitstates-align: run on 2 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(what, "scan") == 0) {
        deep(rank == 0 ? 20 : 0, 1);
        nxn();
    } else if (strcmp(what, "pers") == 0) {
        pers_recv();
        pers_send();
    } else if (strcmp(what, "table") == 0) {
        table();
    } else {
        if (rank == 0)
            fprintf(stderr, "waitstates-align: unknown scenario '%s' (scan, pers, table)\n",
                    what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        printf("waitstates-align %s done\n", what);
    MPI_Finalize();
    return 0;
}
