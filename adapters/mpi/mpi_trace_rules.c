/*
 * The trace rules of mpi-semantics.txt (tsend, trecv, tcoll, tcollr, tisend, tirecv):
 * after a point-to-point call or collective returned, they note in the frame what its
 * trace events need (communicator, peer rank in it, tag, root, request id); hp_mpi_exit
 * writes the events when the location records a trace. Peers are ranks in the call's
 * communicator, as OTF2 wants. MPI_PROC_NULL peers move nothing and get no event.
 *
 * A non-blocking request gets a trace id in the request table (mpi_requests.c); its
 * completion, found there by the completing call, is written at once by
 * hp_mpi_trace_completion (mpi_trace_events.c), between that call's Enter and Leave.
 */
#include "adapters/mpi/mpi_trace_rules.h"

#include "adapters/mpi/mpi_adapter.h"
#include "adapters/mpi/mpi_comms.h"
#include "adapters/mpi/mpi_event.h"
#include "adapters/mpi/mpi_requests.h"
#include "adapters/mpi/mpi_trace_events.h"
#include "adapters/mpi/mpi_waitstates.h"

#include <otf2/OTF2_GeneralDefinitions.h>

void hp_mpi_bytes_tsend(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm)
{
    if (hp_ws_on)
        hp__mpi_ws_send(f, dest, tag, comm, 0);
    if (dest == MPI_PROC_NULL)
        return;
    f->trace |= HP_MPI_TRACE_SEND;
    f->comm = comm;
    f->send_peer = dest;
    f->send_tag = tag;
}

void hp_mpi_bytes_trecv(hp_mpi_frame *f, const MPI_Status *status, MPI_Comm comm)
{
    if (hp_ws_on)
        hp__mpi_ws_recv(f, status, comm);
    if (status == MPI_STATUS_IGNORE || status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    f->trace |= HP_MPI_TRACE_RECV;
    f->comm = comm;
    f->recv_peer = status->MPI_SOURCE;
    f->recv_tag = status->MPI_TAG;
}

void hp_mpi_bytes_tcoll(hp_mpi_frame *f, MPI_Comm comm)
{
    if (hp_ws_on)
        hp__mpi_ws_coll(f, -1, comm);
    f->trace |= HP_MPI_TRACE_COLL;
    f->comm = comm;
    f->root = -1;
}

void hp_mpi_bytes_tcollr(hp_mpi_frame *f, int root, MPI_Comm comm)
{
    if (hp_ws_on)
        hp__mpi_ws_coll(f, root, comm);
    f->trace |= HP_MPI_TRACE_COLL;
    f->comm = comm;
    f->root = root;
}

void hp_mpi_bytes_tisend(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm,
                         const MPI_Request *request)
{
    if (hp_ws_on)
        hp__mpi_ws_send(f, dest, tag, comm, 1);
    uint32_t id = hp_mpi_frame_traced(f) && dest != MPI_PROC_NULL ? hp_mpi_comm_local_id(comm)
                                                                  : UINT32_MAX;
    uint64_t req = id != UINT32_MAX ? hp_mpi_req_trace_send(*request, id) : 0;
    if (req == 0)
        return;
    f->trace |= HP_MPI_TRACE_ISEND;
    f->comm = comm;
    f->send_peer = dest;
    f->send_tag = tag;
    f->request_id = req;
}

void hp_mpi_bytes_tirecv(hp_mpi_frame *f, int source, int tag, MPI_Comm comm,
                         const MPI_Request *request)
{
    /* With wait states the request keeps its communicator for the completion (a trace
     * id is only a number then: no event is written without a trace). */
    uint32_t id = (hp_mpi_frame_traced(f) || hp_ws_on) && source != MPI_PROC_NULL
                      ? hp_mpi_comm_local_id(comm)
                      : UINT32_MAX;
    uint64_t req = id != UINT32_MAX ? hp_mpi_req_trace_recv(*request, id) : 0;
    if (req == 0 && id != UINT32_MAX && hp_ws_on && source != MPI_ANY_SOURCE &&
        tag != MPI_ANY_TAG) /* the request table is full: its completion will not be seen */
        hp__mpi_ws_recv_untracked(id, source, tag);
    if (req == 0)
        return;
    f->trace |= HP_MPI_TRACE_IRECV_REQUEST;
    f->comm = comm;
    f->request_id = req;
}

/* A non-blocking collective: its request carries what the completion event reports
 * (operation, root, the bytes the byte rule counted at the call). */
void hp_mpi_bytes_ticollr(hp_mpi_frame *f, int root, MPI_Comm comm, const MPI_Request *request)
{
    unsigned op = hp_mpi_frame_traced(f) ? hp_mpi_collective_op(f->fn) : 0;
    uint32_t id = op != 0 ? hp_mpi_comm_local_id(comm) : UINT32_MAX;
    uint32_t r = root >= 0 ? (uint32_t)root : OTF2_UNDEFINED_UINT32;
    uint64_t req = id != UINT32_MAX ? hp_mpi_req_trace_coll(*request, id, op - 1, r, f) : 0;
    if (req == 0)
        return;
    f->trace |= HP_MPI_TRACE_NBC_REQUEST;
    f->comm = comm;
    f->request_id = req;
}

void hp_mpi_bytes_ticoll(hp_mpi_frame *f, MPI_Comm comm, const MPI_Request *request)
{
    hp_mpi_bytes_ticollr(f, -1, comm, request);
}

void hp_mpi_bytes_tpsend(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm,
                         const MPI_Request *request)
{
    /* With wait states, as tirecv: each start is a message end the replay must see. */
    uint32_t id = (hp_mpi_frame_traced(f) || hp_ws_on) && dest != MPI_PROC_NULL
                      ? hp_mpi_comm_local_id(comm)
                      : UINT32_MAX;
    if (id != UINT32_MAX)
        hp_mpi_req_trace_persistent(*request, id, dest, tag);
}

void hp_mpi_bytes_tprecv(hp_mpi_frame *f, int source, MPI_Comm comm,
                         const MPI_Request *request)
{
    uint32_t id = (hp_mpi_frame_traced(f) || hp_ws_on) && source != MPI_PROC_NULL
                      ? hp_mpi_comm_local_id(comm)
                      : UINT32_MAX;
    if (id != UINT32_MAX)
        hp_mpi_req_trace_persistent(*request, id, source, 0);
}
