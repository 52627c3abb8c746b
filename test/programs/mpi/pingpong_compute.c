/* The hybrid-tracing shape of issue 30: ranks 0 and 1 play ping-pong for SECONDS
 * (argv[1], default 3) and at least ROUNDS round trips (argv[2], default 0), with about
 * 0.5 ms of computation (compute(), a busy loop on MPI_Wtime) before every message.
 * Rank 0 decides when to stop by its clock and round count and tells
 * rank 1 in the message (1 = go on, 0 = last), so both ranks exchange the same number of
 * messages. Then each rank computes for 10 ms more (wrap_up()) before MPI_Finalize, so
 * that the run ends in sampled code (samples inside MPI calls are not taken). Every rank
 * checks the value it received and exits 1 on a wrong one; rank 0
 * prints "rounds=<N>". Other ranks, if any, only wait. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) void compute(double seconds)
{
    double end = MPI_Wtime() + seconds;
    while (MPI_Wtime() < end)
        sink += 0.5;
}

__attribute__((noinline)) void wrap_up(void)
{
    compute(0.010);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    int min_rounds = argc > 2 ? atoi(argv[2]) : 0;
    double end = MPI_Wtime() + seconds;
    int go = 1, rounds = 0, bad = 0;
    while (rank < 2 && go) {
        int got = -1;
        compute(0.0005);
        if (rank == 0) {
            go = MPI_Wtime() < end || rounds + 1 < min_rounds;
            MPI_Send(&go, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            MPI_Recv(&got, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad |= got != go;
        } else {
            MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            go = got;
            MPI_Send(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
        }
        rounds++;
    }
    if (rank == 0)
        printf("rounds=%d\n", rounds);
    if (rank < 2)
        wrap_up();
    MPI_Finalize();
    return bad;
}
