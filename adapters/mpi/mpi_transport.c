/*
 * The core's transport (measurement/finalize/transport.h) over MPI: point-to-point
 * byte transfers of any size on a private duplicate of MPI_COMM_WORLD, waiting off the
 * CPU (mpi_offcpu.h: a rank waiting for its child must not take the CPU from it). The
 * trace step (mpi_trace.c, whose OTF2 collectives need that communicator) and the
 * wait-state replay (mpi_waitstates.c) are plugged in by mpi_lifecycle.c when it opens
 * the transport, so this file knows nothing of traces or wait states.
 */
#include "mpi_transport.h"

#include "mpi_offcpu.h"

#include <stdint.h>
#include <stdlib.h>

enum { UNIFY_TAG = 7301, CHUNK = 1 << 30 };

static MPI_Comm unify_comm = MPI_COMM_NULL;

/* Sends a byte buffer of any size in chunks MPI's int counts can hold. */
static void send_bytes(const hp_transport *t, const char *data, uint64_t length, int peer)
{
    (void)t;
    hp__mpi_offcpu_send(&length, 1, MPI_UINT64_T, peer, UNIFY_TAG, unify_comm);
    for (uint64_t done = 0; done < length; done += CHUNK) {
        uint64_t n = length - done < CHUNK ? length - done : CHUNK;
        hp__mpi_offcpu_send(data + done, (int)n, MPI_BYTE, peer, UNIFY_TAG, unify_comm);
    }
}

/* Returns a malloc'ed buffer (NULL when the peer sent nothing or memory ran out; the
 * message is received and dropped then, so both sides stay in step). */
static char *receive_bytes(const hp_transport *t, int peer, uint64_t *length)
{
    (void)t;
    hp__mpi_offcpu_recv(length, 1, MPI_UINT64_T, peer, UNIFY_TAG, unify_comm, MPI_STATUS_IGNORE);
    char *data = *length > 0 ? malloc(*length) : NULL;
    static char sink[1 << 16];
    for (uint64_t done = 0; done < *length; done += CHUNK) {
        uint64_t n = *length - done < CHUNK ? *length - done : CHUNK;
        if (data != NULL) {
            hp__mpi_offcpu_recv(data + done, (int)n, MPI_BYTE, peer, UNIFY_TAG, unify_comm,
                                MPI_STATUS_IGNORE);
            continue;
        }
        for (uint64_t part = 0; part < n; part += sizeof(sink)) /* drop it */
            hp__mpi_offcpu_recv(sink, (int)(n - part < sizeof(sink) ? n - part : sizeof(sink)),
                                MPI_BYTE, peer, UNIFY_TAG, unify_comm, MPI_STATUS_IGNORE);
    }
    return data;
}

static hp_transport mpi = { 0, 1, send_bytes, receive_bytes, NULL, NULL };

const hp_transport *hp__mpi_transport_open(int rank, int size,
                                          hp_transport_trace_fn *write_trace,
                                          hp_transport_step_fn *wait_states)
{
    if (hp__mpi_offcpu_comm_dup(MPI_COMM_WORLD, &unify_comm) != MPI_SUCCESS) {
        unify_comm = MPI_COMM_NULL;
        return NULL;
    }
    mpi.rank = rank;
    mpi.size = size;
    mpi.write_trace = write_trace;
    mpi.wait_states = wait_states;
    return &mpi;
}

const hp_transport *hp__mpi_transport(void)
{
    return unify_comm != MPI_COMM_NULL ? &mpi : NULL;
}

MPI_Comm hp__mpi_transport_comm(void)
{
    return unify_comm;
}

void hp__mpi_transport_close(void)
{
    /* MPI_Finalize busy-polls until every rank is in it: a rank that finished its part
     * early waits here, off the CPU, for the ranks still writing. */
    hp__mpi_offcpu_barrier(unify_comm);
    PMPI_Comm_free(&unify_comm);
}
