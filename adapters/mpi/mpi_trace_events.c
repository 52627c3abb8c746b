/*
 * The MPI events a request's life writes into the trace of its location (the events of
 * blocking calls are hp_mpi_exit's, mpi_event.c): the start of a persistent request,
 * the completion of a non-blocking one, found by the request table (mpi_requests.c)
 * inside the completing call, between its Enter and Leave.
 */
#include "adapters/mpi/mpi_trace_events.h"

#include "measurement/core/timer.h"

void hp_mpi_trace_start(const hp_mpi_frame *f, uint64_t request, uint32_t comm, int peer,
                        int tag, uint64_t bytes, int is_recv)
{
    if (!hp_mpi_frame_traced(f))
        return;
    hp_location *loc = f->loc;
    uint64_t now = hp_timer_now();
    if (is_recv) {
        hp_trace_payload p = { request, 0 };
        hp_trace_add_args(&loc->trace, HP_TRACE_MPI_IRECV_REQUEST, 0, now, &p, 1);
        return;
    }
    hp_trace_payload p[2] = { { (uint64_t)(uint32_t)peer << 32 | (uint32_t)tag, bytes },
                              { request, 0 } };
    hp_trace_add_args(&loc->trace, HP_TRACE_MPI_ISEND, comm, now, p, 2);
}

void hp_mpi_trace_collective_completion(const hp_mpi_frame *f, uint64_t request,
                                        uint32_t comm, uint32_t op, uint32_t root,
                                        uint64_t sent, uint64_t received)
{
    if (!hp_mpi_frame_traced(f))
        return;
    hp_location *loc = f->loc;
    hp_trace_payload p[2] = { { (uint64_t)op << 32 | root, sent }, { received, request } };
    hp_trace_add_args(&loc->trace, HP_TRACE_NBC_COMPLETE, comm, hp_timer_now(), p, 2);
}

void hp_mpi_trace_completion(const hp_mpi_frame *f, uint64_t request, uint32_t comm,
                             const MPI_Status *status, uint64_t bytes, int is_recv)
{
    if (!hp_mpi_frame_traced(f))
        return; /* an unmeasured completing call: no region to put the event in */
    hp_location *loc = f->loc;
    uint64_t now = hp_timer_now();
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    if (cancelled) {
        hp_trace_payload p = { request, 0 };
        hp_trace_add_args(&loc->trace, HP_TRACE_MPI_REQUEST_CANCELLED, 0, now, &p, 1);
    } else if (is_recv) {
        hp_trace_payload p[2] = {
            { (uint64_t)(uint32_t)status->MPI_SOURCE << 32 | (uint32_t)status->MPI_TAG, bytes },
            { request, 0 }
        };
        hp_trace_add_args(&loc->trace, HP_TRACE_MPI_IRECV, comm, now, p, 2);
    } else {
        hp_trace_payload p = { request, 0 };
        hp_trace_add_args(&loc->trace, HP_TRACE_MPI_ISEND_COMPLETE, 0, now, &p, 1);
    }
}
