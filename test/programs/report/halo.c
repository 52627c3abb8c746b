/* A small MPI stencil for hp-report html: each rank relaxes its share of a 1-D field,
 * exchanges halos with its neighbours (MPI_Sendrecv), and agrees on the residual
 * (MPI_Allreduce). Rank r does (r + 1) times the base work, so the ranks are
 * imbalanced and the per-rank MPI-vs-computation chart has something to show. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { CELLS = 200000, ITERATIONS = 40 };

static double relax(double *u, int n, int repeat)
{
    double change = 0;
    for (int k = 0; k < repeat; k++)
        for (int i = 1; i <= n; i++) {
            double v = 0.5 * (u[i - 1] + u[i + 1]);
            change += fabs(v - u[i]);
            u[i] = v;
        }
    return change;
}

static void exchange_halos(double *u, int n, int rank, int size)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double residual(double local)
{
    double global;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *u = calloc(CELLS + 2, sizeof(double));
    if (u == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        u[0] = 1.0;
    double r = 0;
    for (int it = 0; it < ITERATIONS; it++) {
        exchange_halos(u, CELLS, rank, size);
        r = residual(relax(u, CELLS, rank + 1));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("residual=%g\n", r);
    free(u);
    MPI_Finalize();
    return 0;
}
