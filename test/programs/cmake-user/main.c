/* The C half: three iterations of a phase, each calling the C++ kernel and exchanging
 * the result in a user region around MPI_Allreduce. Rank r's kernel runs r+i+1 steps in
 * iteration i, so the visits differ per rank. */
#include <hp/user.h>
#include <mpi.h>
#include <stdio.h>

#include "kernel.h"

int main(int argc, char **argv)
{
    HP_USER_REGION_DEFINE(phase);
    HP_USER_REGION_DEFINE(exchange);
    int rank;
    double total = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    HP_USER_PHASE_BEGIN(phase, "iterate");
    for (int i = 0; i < 3; i++) {
        double local = hpuser_kernel(rank + i), sum = 0;
        HP_USER_REGION_BEGIN(exchange, "exchange", HP_USER_REGION_TYPE_COMMON);
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        HP_USER_REGION_END(exchange);
        total += sum;
    }
    HP_USER_PHASE_END(phase);
    if (rank == 0)
        printf("total=%g\n", total);
    MPI_Finalize();
    return 0;
}
