/* Unequal traffic on 4 ranks, so that adaptive trace buffers fill at different times
 * (test t056): PHASES (argv[1], default 400) phases; in each, every rank computes for
 * 0.1 ms (compute()), ranks 0 and 1 also call leaf() 20 times; then ranks 0 and 1 play
 * one round trip of ping-pong (tag 1), as do ranks 2 and 3 (tag 2), and rank 0
 * exchanges one value with rank 2 and rank 1 with rank 3 (MPI_Irecv and MPI_Isend,
 * tag 3, MPI_Waitall); every 50 phases all ranks meet in an MPI_Allreduce. Ranks 0
 * and 1 record about 2.5 times the events of ranks 2 and 3 per phase. Every rank
 * checks each value it receives and exits 1 on a wrong one; rank 0 prints
 * "phases=<N> sum=<S>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) void leaf(int i)
{
    sink += i * 0.5;
}

__attribute__((noinline)) void compute(double seconds)
{
    double end = MPI_Wtime() + seconds;
    while (MPI_Wtime() < end)
        sink += 0.5;
}

/* One round trip between rank and its partner, the lower rank sending first. */
static int round_trip(int rank, int partner, int tag, int value)
{
    int got = -1;
    if (rank < partner) {
        MPI_Send(&value, 1, MPI_INT, partner, tag, MPI_COMM_WORLD);
        MPI_Recv(&got, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&got, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&got, 1, MPI_INT, partner, tag, MPI_COMM_WORLD);
    }
    return got != value;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int phases = argc > 1 ? atoi(argv[1]) : 400, bad = 0;
    long sum = 0;
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "uneven_traffic: run with 4 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int fast = rank < 2, partner = rank ^ 1, across = rank ^ 2;
    for (int p = 0; p < phases; p++) {
        compute(0.0001);
        for (int i = 0; fast && i < 20; i++)
            leaf(i);
        bad |= round_trip(rank, partner, fast ? 1 : 2, p);
        int out = rank * 100000 + p, in = -1;
        MPI_Request req[2];
        MPI_Status st[2];
        MPI_Irecv(&in, 1, MPI_INT, across, 3, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&out, 1, MPI_INT, across, 3, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, st);
        bad |= in != across * 100000 + p;
        if (p % 50 == 49) {
            long mine = p + rank, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            sum += all;
        }
    }
    if (rank == 0)
        printf("phases=%d sum=%ld\n", phases, sum);
    MPI_Finalize();
    return bad;
}
