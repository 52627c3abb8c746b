/*
 * The life-cycle hooks (mpi_lifecycle.c) that the wrappers of MPI_Init, MPI_Init_thread,
 * MPI_Finalize and MPI_Abort call, the generated C ones and the Fortran 2008 ones
 * (mpi_f08.c) alike.
 */
#ifndef HP_ADAPTERS_MPI_MPI_LIFECYCLE_H
#define HP_ADAPTERS_MPI_MPI_LIFECYCLE_H

void hp_mpi_after_init(void);            /* after a successful PMPI_Init / PMPI_Init_thread */
void hp_mpi_before_finalize(void);       /* before PMPI_Finalize: unify and write the profile */
void hp_mpi_before_abort(int errorcode); /* before PMPI_Abort: leave this rank's data */

#endif
