/*
 * Wait states, the MPI side (mpi_waitstates.c): the recording hooks that the trace rules
 * and request completions call after a communicating call returned, and the replay that
 * the finalize transport runs (hp_transport.wait_states).
 */
#ifndef HP_ADAPTERS_MPI_MPI_WAITSTATES_H
#define HP_ADAPTERS_MPI_MPI_WAITSTATES_H

#include <mpi.h>
#include <stdint.h>

#include "adapters/mpi/mpi_adapter.h"
#include "measurement/finalize/transport.h"
#include "measurement/waitstates/waitstates.h"

/* A point-to-point send of f's call to rank dest of comm (nonblocking: MPI_Isend & co.,
 * whose start time is what the receiver compares with). */
void hp__mpi_ws_send(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm, int nonblocking);
/* A blocking receive of f's call, with its status. */
void hp__mpi_ws_recv(hp_mpi_frame *f, const MPI_Status *status, MPI_Comm comm);
/* A non-blocking receive on local communicator comm, posted as number seq
 * (hp_ws_next_seq), completed inside f's call. */
void hp__mpi_ws_recv_done(hp_mpi_frame *f, uint32_t comm, uint32_t seq,
                          const MPI_Status *status);
/* The start (MPI_Start*, f's call) of a persistent send to rank dest of local
 * communicator comm: a non-blocking send. */
void hp__mpi_ws_start_send(hp_mpi_frame *f, uint32_t comm, int dest, int tag);
/* A non-blocking receive of rank source of local communicator comm whose request the
 * request table could not take (its completion will not be seen): a placeholder, so
 * that the later messages of the channel stay matched. Not for wildcards. */
void hp__mpi_ws_recv_untracked(uint32_t comm, int source, int tag);
/* A blocking collective of f's call (root -1 for none). */
void hp__mpi_ws_coll(hp_mpi_frame *f, int root, MPI_Comm comm);
/* The hooks above keep their records open in f (f->ws_open under the HP_MPI_TRACE_WS
 * bits): hp_mpi_exit closes them with the exit stamp it takes anyway (hp_ws_set_exit),
 * so a record reads no clock of its own. */

/* Collective over the transport: replays every rank's records and charges the patterns
 * (nothing unless hp_ws_on). */
void hp__mpi_ws_replay(const hp_transport *t);

#endif
