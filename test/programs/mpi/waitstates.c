/*
 * Known wait states on 4 ranks (t110-t114, doc/wait-states.md). Each scenario is a
 * function of its own, so its MPI calls have call paths of their own:
 *
 *   p2p:   late_sender   rank 1 sends 10 times 50 ms after rank 0 entered MPI_Recv
 *          irecv_wait    the same with MPI_Irecv + MPI_Wait on rank 0
 *          irecv_order   two MPI_Irecv of the same envelope on rank 0, waited for in
 *                        the opposite order; the second message comes 50 ms later
 *          wrong_order   rank 1 sends tag 1, then 50 ms later tag 2; rank 0 receives tag
 *                        2 first (waiting 50 ms), then tag 1
 *          late_receiver rank 1 MPI_Ssends 10 times; rank 0 enters MPI_Recv 30 ms later
 *   coll:  nxn           MPI_Allreduce, rank 3 enters 20 ms after the others, 10 times
 *          barrier       MPI_Barrier likewise
 *          late_bcast    MPI_Bcast whose root (0) enters 20 ms after the others
 *          early_reduce  MPI_Reduce whose root (0) enters 20 ms before the others
 *   split: split_nxn     MPI_Allreduce on MPI_Comm_split halves (even/odd world ranks):
 *                        the second rank of each half enters 20 ms late, 10 times
 *          ring_sent     a balanced ring: MPI_Isend right, MPI_Barrier, MPI_Recv from
 *                        the left: every message was sent before its receive; 20 times
 *   many N:              N MPI_Sendrecv of each rank to itself (the coverage test)
 *
 * How a delay is made exact from below: the rank(s) that must be early tell the late one
 * with an MPI_Isend of a zero-byte "ready" message just before they enter the call
 * (their enter follows within microseconds); the late rank receives every "ready", then
 * sleeps the delay, then enters. So the waiting is at least the delay minus those
 * microseconds, and a loaded machine can only add to it (a late wake-up). The ready
 * messages are received in the function `ready`, a call path of its own. Ranks not in
 * a scenario sleep through it rather than busy-poll in MPI (4 ranks share 2 cores).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { REPS = 10, READY_TAG = 99 };

static int rank, size;

static void nap_ms(double ms)
{
    struct timespec t = { (time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6) };
    while (nanosleep(&t, &t) != 0)
        ;
}

/* The late rank: one zero-byte "ready" from each of the n ranks in from[] (on comm). */
__attribute__((noinline)) static void ready(const int *from, int n, MPI_Comm comm)
{
    for (int i = 0; i < n; i++)
        MPI_Recv(NULL, 0, MPI_BYTE, from[i], READY_TAG, comm, MPI_STATUS_IGNORE);
}

/* An early rank: tells `to` that it is about to enter; complete with MPI_Wait after. */
static MPI_Request tell(int to, MPI_Comm comm)
{
    MPI_Request r;
    MPI_Isend(NULL, 0, MPI_BYTE, to, READY_TAG, comm, &r);
    return r;
}

__attribute__((noinline)) static void late_sender(void)
{
    int zero = 0;
    double buf = 0;
    for (int i = 0; i < REPS; i++) {
        if (rank == 0) {
            MPI_Request r = tell(1, MPI_COMM_WORLD);
            MPI_Recv(&buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            ready(&zero, 1, MPI_COMM_WORLD);
            nap_ms(50);
            MPI_Send(&buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

__attribute__((noinline)) static void irecv_wait(void)
{
    int zero = 0;
    double buf = 0;
    for (int i = 0; i < REPS; i++) {
        if (rank == 0) {
            MPI_Request r = tell(1, MPI_COMM_WORLD), data;
            MPI_Irecv(&buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &data);
            MPI_Wait(&data, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            ready(&zero, 1, MPI_COMM_WORLD);
            nap_ms(50);
            MPI_Send(&buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

/* Two MPI_Irecv with the same envelope, completed in the opposite order: MPI gives the
 * first message to the first receive, so the MPI_Wait of the second one (called first)
 * waits for the second message, sent 50 ms later. */
__attribute__((noinline)) static void irecv_order(void)
{
    int zero = 0;
    double a = 0, b = 0;
    for (int i = 0; i < REPS; i++) {
        if (rank == 0) {
            MPI_Request first, second;
            MPI_Irecv(&a, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, &first);
            MPI_Irecv(&b, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, &second);
            MPI_Request r = tell(1, MPI_COMM_WORLD);
            MPI_Wait(&second, MPI_STATUS_IGNORE);
            MPI_Wait(&first, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            ready(&zero, 1, MPI_COMM_WORLD);
            MPI_Send(&a, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
            nap_ms(50);
            MPI_Send(&b, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
        }
    }
}

__attribute__((noinline)) static void wrong_order(void)
{
    int zero = 0;
    double a = 1, b = 2;
    for (int i = 0; i < REPS; i++) {
        if (rank == 0) {
            MPI_Request r = tell(1, MPI_COMM_WORLD);
            MPI_Recv(&b, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&a, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Request first;
            ready(&zero, 1, MPI_COMM_WORLD);
            MPI_Isend(&a, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &first);
            nap_ms(50);
            MPI_Send(&b, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
            MPI_Wait(&first, MPI_STATUS_IGNORE);
        }
    }
}

/* The sender tells the receiver just before it enters MPI_Ssend. */
__attribute__((noinline)) static void late_receiver(void)
{
    int one = 1;
    double buf = 0;
    for (int i = 0; i < REPS; i++) {
        if (rank == 1) {
            MPI_Request r = tell(0, MPI_COMM_WORLD);
            MPI_Ssend(&buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (rank == 0) {
            ready(&one, 1, MPI_COMM_WORLD);
            nap_ms(30);
            MPI_Recv(&buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
}

/* Every rank but `late` tells it, then calls op; `late` waits for them, sleeps 20 ms,
 * then calls op. */
static void one_late(int late, MPI_Comm comm, void (*op)(MPI_Comm))
{
    int me, n, from[64], k = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (me == late) {
        for (int r = 0; r < n; r++)
            if (r != late)
                from[k++] = r;
        ready(from, k, comm);
        nap_ms(20);
        op(comm);
    } else {
        MPI_Request r = tell(late, comm);
        op(comm);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
}

static void allreduce(MPI_Comm comm)
{
    int in = 1, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm);
}

static void barrier(MPI_Comm comm)
{
    MPI_Barrier(comm);
}

static void bcast(MPI_Comm comm)
{
    int v = 7;
    MPI_Bcast(&v, 1, MPI_INT, 0, comm);
}

__attribute__((noinline)) static void nxn(void)
{
    for (int i = 0; i < REPS; i++)
        one_late(3, MPI_COMM_WORLD, allreduce);
}

__attribute__((noinline)) static void wait_barrier(void)
{
    for (int i = 0; i < REPS; i++)
        one_late(3, MPI_COMM_WORLD, barrier);
}

__attribute__((noinline)) static void late_bcast(void)
{
    for (int i = 0; i < REPS; i++)
        one_late(0, MPI_COMM_WORLD, bcast);
}

/* The root tells every other rank, then enters; they sleep 20 ms after the message. */
__attribute__((noinline)) static void early_reduce(void)
{
    int in = 1, out = 0, zero = 0;
    for (int i = 0; i < REPS; i++) {
        if (rank == 0) {
            MPI_Request r[64];
            for (int p = 1; p < size; p++)
                r[p - 1] = tell(p, MPI_COMM_WORLD);
            MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Waitall(size - 1, r, MPI_STATUSES_IGNORE);
        } else {
            ready(&zero, 1, MPI_COMM_WORLD);
            nap_ms(20);
            MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        }
    }
}

__attribute__((noinline)) static void split_nxn(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    for (int i = 0; i < REPS; i++)
        one_late(1, half, allreduce);
    MPI_Comm_free(&half);
}

/* A balanced ring whose messages are all sent before any receive is entered (a barrier
 * in between): no receive can wait for its sender, so Late Sender is exactly 0. */
__attribute__((noinline)) static void ring_sent(int reps)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out = rank, in = 0;
    for (int i = 0; i < reps; i++) {
        MPI_Request r;
        MPI_Isend(&out, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&in, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
}

/* Many small messages, each rank to itself (the coverage test): no rank waits for
 * another, so the run stays short on a loaded machine. */
__attribute__((noinline)) static void many(int reps)
{
    double out = rank, in = 0;
    for (int i = 0; i < reps; i++)
        MPI_Sendrecv(&out, 1, MPI_DOUBLE, rank, 0, &in, 1, MPI_DOUBLE, rank, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Ranks 2 and 3 take no part in the point-to-point scenarios: they sleep meanwhile. */
static void p2p_scenario(void (*fn)(void), double ms)
{
    if (rank < 2)
        fn();
    else
        nap_ms(ms);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "";
    if (size != 4 && strcmp(what, "many") != 0) {
        if (rank == 0)
            fprintf(stderr, "waitstates: run on 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(what, "p2p") == 0) {
        p2p_scenario(late_sender, REPS * 50);
        p2p_scenario(irecv_wait, REPS * 50);
        p2p_scenario(irecv_order, REPS * 50);
        p2p_scenario(wrong_order, REPS * 50);
        p2p_scenario(late_receiver, REPS * 30);
    } else if (strcmp(what, "coll") == 0) {
        nxn();
        wait_barrier();
        late_bcast();
        early_reduce();
    } else if (strcmp(what, "split") == 0) {
        split_nxn();
        ring_sent(20);
    } else if (strcmp(what, "many") == 0) {
        many(argc > 2 ? atoi(argv[2]) : 1000);
    } else {
        if (rank == 0)
            fprintf(stderr, "waitstates: p2p, coll, split or many [N]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        printf("waitstates %s done\n", what);
    MPI_Finalize();
    return 0;
}
