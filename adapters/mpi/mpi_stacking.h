/*
 * What we say about other PMPI tools in the symbol search order (mpi_stacking.c,
 * doc/mpi.md "Other PMPI tools"), asked by the life cycle (mpi_lifecycle.c): rank 0
 * names a tool that took MPI_Init or some MPI functions from us; at exit every rank that
 * finalized MPI without our wrapper says so for itself.
 */
#ifndef HP_ADAPTERS_MPI_MPI_STACKING_H
#define HP_ADAPTERS_MPI_MPI_STACKING_H

#include <stdbool.h>

void hp__mpi_explain_bypass(int rank); /* why MPI_Init did not reach us, if we can tell */
void hp__mpi_report_shadowed(int rank); /* MPI functions another object defines first */
bool hp__mpi_explain_finalize_bypass(int rank); /* at exit: MPI finalized without us? */

#endif
