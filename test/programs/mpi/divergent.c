/* Ranks take different call paths with different MPI calls, so that the unified profile
 * must hold paths that exist on some ranks only (t025-mpi-divergent.sh). Exactly 4 ranks.
 *   rank 0:     a(): MPI_Send of 10 ints to rank 1 and to rank 3
 *   ranks 1, 3: b(): MPI_Irecv + MPI_Wait of those 10 ints; then rank 1 receives 5
 *               doubles from rank 3 (MPI_Recv in b), which rank 3 sends from
 *               b_inner() (MPI_Ssend)
 *   rank 2:     c(): MPI_Sendrecv and MPI_Sendrecv_replace with itself
 *   all ranks:  common(): MPI_Allreduce of 1 int.
 * Rank 0 prints one line; a wrong received value makes the program exit 1. */
#include <mpi.h>
#include <stdio.h>

static int rank, errors;

#define EXPECT(cond)                                                                   \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "divergent: rank %d: line %d\n", rank, __LINE__);          \
            errors++;                                                                  \
        }                                                                              \
    } while (0)

__attribute__((noinline)) static void a(void)
{
    int v[10];
    for (int i = 0; i < 10; i++)
        v[i] = 100 + i;
    MPI_Send(v, 10, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Send(v, 10, MPI_INT, 3, 1, MPI_COMM_WORLD);
}

__attribute__((noinline)) static void b_inner(void)
{
    double d[5] = {0.5, 1.5, 2.5, 3.5, 4.5};
    MPI_Ssend(d, 5, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
}

__attribute__((noinline)) static void b(void)
{
    int v[10];
    MPI_Request rq;
    MPI_Irecv(v, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < 10; i++)
        EXPECT(v[i] == 100 + i);
    if (rank == 3) {
        b_inner();
    } else {
        double d[5];
        MPI_Recv(d, 5, MPI_DOUBLE, 3, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 5; i++)
            EXPECT(d[i] == i + 0.5);
    }
}

__attribute__((noinline)) static void c(void)
{
    int s[4] = {1, 2, 3, 4}, r[4] = {0, 0, 0, 0};
    double d[3] = {1.0, 2.0, 3.0};
    MPI_Sendrecv(s, 4, MPI_INT, rank, 3, r, 4, MPI_INT, rank, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; i++)
        EXPECT(r[i] == i + 1);
    MPI_Sendrecv_replace(d, 3, MPI_DOUBLE, rank, 4, rank, 4, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    for (int i = 0; i < 3; i++)
        EXPECT(d[i] == i + 1.0);
}

__attribute__((noinline)) static int common(void)
{
    int mine = errors, all = -1;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "divergent: needs exactly 4 ranks, got %d\n", size);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        a();
    else if (rank % 2 == 1)
        b();
    else
        c();
    int all = common();
    if (rank == 0)
        printf("errors=%d\n", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
