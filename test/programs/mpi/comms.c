/* Known traffic on communicators the program creates, for the trace tests (t043); run
 * with exactly 4 ranks. Every count below is part of the test's expectations.
 *
 *   half  = MPI_Comm_split(WORLD, rank % 2): "even" {0,2} and "odd" {1,3}
 *   dup   = MPI_Comm_dup(WORLD), named "world dup"
 *   ring  = MPI_Cart_create(dup, 1-D periodic, no reorder), unnamed
 *
 * Per rank: on half one blocking message (half rank 0 -> 1, tag 5, 40 bytes, received
 * with MPI_ANY_SOURCE) and 2 collectives (Bcast root 1, Allreduce); on dup 9
 * collectives (Gatherv root 2, Scatterv root 3, Allgatherv, Alltoallv, Alltoallw,
 * Reduce_scatter, Reduce_scatter_block, Scan, Exscan) and 2 non-blocking ones (Ibcast
 * root 1 of 12 bytes, Iallreduce of 4) completed by one Waitall; on ring two rounds of
 * non-blocking messages (Isend right / Irecv left completed by Waitall; Irecv with
 * MPI_ANY_SOURCE + Isend left completed by Wait and, after a Barrier, a Test loop), a
 * cancelled Irecv and a second Barrier, then a persistent send right and receive left
 * (Send_init/Recv_init) started twice (Startall + Waitall). The communicators are freed before the end:
 * they stay defined in the trace. */
#include <mpi.h>
#include <stdio.h>

static void p2p_on_half(MPI_Comm half)
{
    int hr, buf[10] = { 0 };
    MPI_Comm_rank(half, &hr);
    if (hr == 0) {
        MPI_Send(buf, 10, MPI_INT, 1, 5, half);
    } else {
        MPI_Status st;
        MPI_Recv(buf, 10, MPI_INT, MPI_ANY_SOURCE, 5, half, &st);
        if (st.MPI_SOURCE != 0)
            fprintf(stderr, "unexpected source %d\n", st.MPI_SOURCE);
    }
    int x = hr, y = 0;
    MPI_Bcast(buf, 4, MPI_INT, 1, half);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
}

static void collectives_on_dup(MPI_Comm dup)
{
    int counts[4] = { 1, 2, 3, 4 }, displs[4] = { 0, 1, 3, 6 }, ones[4] = { 1, 1, 1, 1 };
    int idispl[4] = { 0, 1, 2, 3 }, bdispl[4] = { 0, 4, 8, 12 };
    MPI_Datatype types[4] = { MPI_INT, MPI_INT, MPI_INT, MPI_INT };
    int rank, in[10] = { 0 }, out[10] = { 0 }, x = 1, y = 0;
    MPI_Comm_rank(dup, &rank);
    MPI_Gatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, 2, dup);
    MPI_Scatterv(in, counts, displs, MPI_INT, out, counts[rank], MPI_INT, 3, dup);
    MPI_Allgatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, dup);
    MPI_Alltoallv(in, ones, idispl, MPI_INT, out, ones, idispl, MPI_INT, dup);
    MPI_Alltoallw(in, ones, bdispl, types, out, ones, bdispl, types, dup);
    MPI_Reduce_scatter(in, out, ones, MPI_INT, MPI_SUM, dup);
    MPI_Reduce_scatter_block(in, out, 1, MPI_INT, MPI_SUM, dup);
    MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, dup);
    MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, dup);
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Ibcast(in, 3, MPI_INT, 1, dup, &r[0]);
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, dup, &r[1]);
    MPI_Waitall(2, r, st);
}

static void nonblocking_on_ring(MPI_Comm ring)
{
    int left, right, flag = 0;
    double out[8] = { 0 }, in[8], in2[8], never;
    MPI_Request r[2], cancelled;
    MPI_Status st, sts[2];
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    MPI_Irecv(in, 8, MPI_DOUBLE, left, 7, ring, &r[0]);
    MPI_Isend(out, 8, MPI_DOUBLE, right, 7, ring, &r[1]);
    MPI_Waitall(2, r, sts);
    MPI_Irecv(in2, 8, MPI_DOUBLE, MPI_ANY_SOURCE, 8, ring, &r[0]);
    MPI_Isend(out, 4, MPI_DOUBLE, left, 8, ring, &r[1]);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Barrier(ring); /* the message has been sent: the Test loop is short */
    while (!flag)
        MPI_Test(&r[0], &flag, &st);
    MPI_Irecv(&never, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 99, ring, &cancelled);
    MPI_Cancel(&cancelled);
    MPI_Wait(&cancelled, &st);
    MPI_Barrier(ring);
}

static void persistent_on_ring(MPI_Comm ring)
{
    int left, right, out[2] = { 0 }, in[2];
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    MPI_Recv_init(in, 2, MPI_INT, left, 11, ring, &r[0]);
    MPI_Send_init(out, 2, MPI_INT, right, 11, ring, &r[1]);
    for (int i = 0; i < 2; i++) {
        MPI_Startall(2, r);
        MPI_Waitall(2, r, st);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half, dup, ring;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_set_name(half, rank % 2 ? "odd" : "even");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "world dup");
    int dims[1] = { 4 }, periods[1] = { 1 };
    MPI_Cart_create(dup, 1, dims, periods, 0, &ring);
    p2p_on_half(half);
    collectives_on_dup(dup);
    nonblocking_on_ring(ring);
    persistent_on_ring(ring);
    MPI_Comm_free(&half);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
