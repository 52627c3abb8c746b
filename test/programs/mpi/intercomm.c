/* Intercommunicators for the trace tests (t043); run with exactly 4 ranks: the halves
 * of MPI_Comm_split (even {0,2}, odd {1,3}) joined by MPI_Intercomm_create, named
 * "inter", an MPI_Allreduce across it (no events: peers would be remote ranks), merged
 * by MPI_Intercomm_merge (evens low) with an MPI_Allreduce on the result, and a dup of
 * MPI_COMM_SELF per rank with an MPI_Barrier. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half, inter, merged, self;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 3, &inter);
    MPI_Comm_set_name(inter, "inter");
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, merged);
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    MPI_Barrier(self);
    MPI_Comm_free(&self);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
