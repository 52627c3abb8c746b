/*
 * The trace's clocks of an MPI job (mpi_clock.c): each host's offset against rank 0's,
 * measured at MPI_Init and again at MPI_Finalize, so the trace output can map every
 * rank's timer onto one global time and correct drift between the two.
 */
#ifndef HP_ADAPTERS_MPI_MPI_CLOCK_H
#define HP_ADAPTERS_MPI_MPI_CLOCK_H

#include <stdint.h>

/* Collective over the MPI transport (mpi_transport.h), after MPI_Init when the
 * configuration asks for a trace (the same on every rank): groups the ranks by host,
 * takes the host leader's timer reference and measures the host's clock offset against
 * rank 0's host (mpi_clock.c). */
void hp_mpi_trace_sync_clocks(void);

/* Collective, at finalize before the trace is written: the host leader's tick rate and
 * the second offset measurement; installs the host's clock for the trace output.
 * Nothing without an earlier hp_mpi_trace_sync_clocks. */
void hp_mpi_trace_finish_clocks(void);

/* The key of this rank's host (rank: its rank in MPI_COMM_WORLD), the same on every rank
 * of one host (MPICH's MPIR_CVAR_ODD_EVEN_CLIQUES=1 makes odd and even ranks two). */
uint64_t hp_mpi_host_key(int rank);

#endif
