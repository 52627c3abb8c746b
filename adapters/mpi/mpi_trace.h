/*
 * The MPI trace step (mpi_trace.c), at MPI_Finalize: it unifies the trace's definitions
 * and hands the trace output (measurement/finalize/trace_output.h) what it needs of MPI.
 * Beside it, the MPI side of the trace: the consistent cut (mpi_trace_cut.h) and the
 * clocks measured at MPI_Init and MPI_Finalize (mpi_clock.h).
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRACE_H
#define HP_ADAPTERS_MPI_MPI_TRACE_H

#include "measurement/finalize/transport.h"
#include "profile/profile.h"

/* The MPI transport's trace step (hp_transport.write_trace), collective: every rank
 * writes its locations into directory/traces.otf2; merged is the job's unified profile
 * on rank 0 (NULL elsewhere). Problems are reported on stderr; the program goes on. */
void hp_mpi_trace_write(const hp_transport *t, const char *directory, const hp_profile *merged);

#endif
