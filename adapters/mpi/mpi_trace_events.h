/*
 * The trace events of MPI requests (mpi_trace_events.c): written by the request table
 * (mpi_requests.c) when a persistent request starts and when a traced request
 * completes, inside the call that started or completed it.
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRACE_EVENTS_H
#define HP_ADAPTERS_MPI_MPI_TRACE_EVENTS_H

#include <mpi.h>
#include <stdint.h>

#include "adapters/mpi/mpi_adapter.h"
#include "measurement/core/location.h"

/* Whether the call's location records a trace (only then do requests get trace ids),
 * and is not busy writing its data (hp_mpi_exit writes nothing then either). */
static inline int hp_mpi_frame_traced(const hp_mpi_frame *f)
{
    hp_location *loc = f->loc;
    return loc != NULL && loc->tracing && !hp_location_ignores_events(loc);
}

/* MpiIsend (peer, tag, bytes) or MpiIrecvRequest of a started persistent request. */
void hp_mpi_trace_start(const hp_mpi_frame *f, uint64_t request, uint32_t comm, int peer,
                        int tag, uint64_t bytes, int is_recv);

/* The completion of a traced request inside the completing call of frame f (Wait, Test,
 * ...): MpiIsendComplete, MpiIrecv (with source, tag and bytes from the status) or
 * MpiRequestCancelled, written now. comm is the request's local communicator id. */
void hp_mpi_trace_completion(const hp_mpi_frame *f, uint64_t request, uint32_t comm,
                             const MPI_Status *status, uint64_t bytes, int is_recv);
/* Likewise NonBlockingCollectiveComplete of a traced non-blocking collective. */
void hp_mpi_trace_collective_completion(const hp_mpi_frame *f, uint64_t request,
                                        uint32_t comm, uint32_t op, uint32_t root,
                                        uint64_t sent, uint64_t received);

#endif
