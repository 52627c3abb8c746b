/*
 * The OTF2 trace of an MPI job (mpi_trace.c), written at MPI_Finalize.
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRACE_H
#define HP_ADAPTERS_MPI_MPI_TRACE_H

#include <mpi.h>

#include "measurement/profile.h"

/* Collective over comm: every rank writes its locations into directory/traces.otf2;
 * merged is the job's unified profile on rank 0 (NULL elsewhere). Problems are reported
 * on stderr; the program goes on. */
void hp_mpi_trace_write(const char *directory, const hp_profile *merged, MPI_Comm comm,
                        int rank, int size);

#endif
