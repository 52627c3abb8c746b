/*
 * The trace rules of mpi-semantics.txt (mpi_trace_rules.c): what a wrapper records in
 * its call's frame for the trace events at the call's exit (peers, tags, communicator,
 * the trace id of a request), and only when the call is traced.
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRACE_RULES_H
#define HP_ADAPTERS_MPI_MPI_TRACE_RULES_H

#include <mpi.h>

#include "adapters/mpi/mpi_adapter.h"

/* The trace rules of mpi-semantics.txt (only record what the events need). */
void hp_mpi_bytes_tsend(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm);
void hp_mpi_bytes_trecv(hp_mpi_frame *f, const MPI_Status *status, MPI_Comm comm);
void hp_mpi_bytes_tcoll(hp_mpi_frame *f, MPI_Comm comm);
void hp_mpi_bytes_tcollr(hp_mpi_frame *f, int root, MPI_Comm comm);
/* Non-blocking requests get a trace id (mpi_requests.c) for their completion event. */
void hp_mpi_bytes_tisend(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm,
                         const MPI_Request *request);
void hp_mpi_bytes_tirecv(hp_mpi_frame *f, int source, int tag, MPI_Comm comm,
                         const MPI_Request *request);
void hp_mpi_bytes_ticoll(hp_mpi_frame *f, MPI_Comm comm, const MPI_Request *request);
/* Persistent requests: traced at each MPI_Start (hp_mpi_trace_start, mpi_trace_events.h)
 * and completion. */
void hp_mpi_bytes_tpsend(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm,
                         const MPI_Request *request);
void hp_mpi_bytes_tprecv(hp_mpi_frame *f, int source, MPI_Comm comm,
                         const MPI_Request *request);
void hp_mpi_bytes_ticollr(hp_mpi_frame *f, int root, MPI_Comm comm, const MPI_Request *request);

#endif
