/*
 * The MPI transport of the end of a run (mpi_transport.c): the core's hp_transport
 * over a private duplicate of MPI_COMM_WORLD (so no user message can match ours),
 * calling PMPI only.
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRANSPORT_H
#define HP_ADAPTERS_MPI_MPI_TRANSPORT_H

#include <mpi.h>

#include "measurement/finalize/transport.h"

typedef void hp_transport_trace_fn(const hp_transport *t, const char *directory,
                                   const hp_profile *merged);

typedef void hp_transport_step_fn(const hp_transport *t);

/* After MPI_Init, on every rank: duplicates MPI_COMM_WORLD; write_trace becomes the
 * transport's trace step and wait_states its wait-state replay. Returns the transport,
 * or NULL when the duplicate failed (then nothing at finalize is collective). */
const hp_transport *hp__mpi_transport_open(int rank, int size,
                                          hp_transport_trace_fn *write_trace,
                                          hp_transport_step_fn *wait_states);

/* The open transport, or NULL (not opened, open failed, or closed). */
const hp_transport *hp__mpi_transport(void);

/* Its private communicator (MPI_COMM_NULL when not open). */
MPI_Comm hp__mpi_transport_comm(void);

/* Frees the private communicator (before PMPI_Finalize). */
void hp__mpi_transport_close(void);

#endif
