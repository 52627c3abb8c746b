/*
 * Request tracking for the MPI wrappers (mpi_requests.c): which outstanding requests carry
 * bytes to count at completion (non-blocking receives) or at each MPI_Start (persistent
 * sends, receives and collectives). Called by the generated wrappers (gen-wrappers.py).
 *
 * The table is a fixed-size open-addressing hash (MPI_Request -> kind, bytes) in static
 * storage: no locks, no heap, bounded probing; a request that finds no slot is counted
 * as lost (hp_mpi_req_lost) and moves no bytes. Non-blocking sends are counted at the
 * call and enter the table only when traced (for their completion event), so an empty
 * table (the common case of untraced programs without Irecv) makes every completion call
 * skip the bookkeeping after one load.
 */
#ifndef HP_ADAPTERS_MPI_MPI_REQUESTS_H
#define HP_ADAPTERS_MPI_MPI_REQUESTS_H

#include <mpi.h>
#include <stddef.h> /* mpi_adapter.h uses size_t */
#include <stdint.h>

#include "mpi_adapter.h"

/* Number of requests in the table; 0 = nothing to do at completion. */
extern long hp_mpi_req_live;

static inline int hp_mpi_req_pending(void)
{
    return __atomic_load_n(&hp_mpi_req_live, __ATOMIC_RELAXED) != 0;
}

/* Requests that found no slot (table full or probe limit), and slots in use (for tests
 * and the summary). */
uint64_t hp_mpi_req_lost(void);

static inline void hp_mpi_frame_clear(hp_mpi_frame *f)
{
    f->bytes_sent = f->bytes_received = f->messages_sent = f->messages_received = 0;
}

/* After MPI_Irecv/MPI_Imrecv/MPI_Isendrecv(_replace): count the receive at completion. */
void hp_mpi_req_track_recv(MPI_Request req);
/* After MPI_Recv_init: count each completed activation from its status. */
void hp_mpi_req_track_precv(MPI_Request req);
/* After MPI_Send_init & co. and the persistent collectives (*_init): what one activation
 * moves, counted into the frame of each MPI_Start/MPI_Startall. */
void hp_mpi_req_track_persistent(MPI_Request req, const hp_mpi_frame *bytes);
/* Tracing: a non-blocking send enters the table (only when traced) and gets a trace id;
 * a receive tracked by hp_mpi_req_track_recv gets one too. Both return the id (unique in
 * the process, never 0), or 0 when the request could not be tracked (no event then).
 * comm is the local communicator id of its events (mpi_comms.h). */
uint64_t hp_mpi_req_trace_send(MPI_Request req, uint32_t comm);
uint64_t hp_mpi_req_trace_recv(MPI_Request req, uint32_t comm);
/* A persistent send or receive (after the *_init call's own tracking): each activation
 * gets a new trace id at MPI_Start and its events. Returns 0 when not tracked. */
int hp_mpi_req_trace_persistent(MPI_Request req, uint32_t comm, int peer, int tag);
/* A non-blocking collective (OTF2 operation op, root or OTF2_UNDEFINED_UINT32, the bytes
 * of the frame): entered with its trace id, like a send. */
uint64_t hp_mpi_req_trace_coll(MPI_Request req, uint32_t comm, uint32_t op, uint32_t root,
                               const hp_mpi_frame *bytes);

/* MPI_Start / MPI_Startall. */
void hp_mpi_req_start(hp_mpi_frame *f, MPI_Request req);
void hp_mpi_req_startall(hp_mpi_frame *f, int count, const MPI_Request reqs[]);
/* MPI_Request_free (handle saved before the call). */
void hp_mpi_req_forget(MPI_Request req);

/* A completed request (handle saved before the call; status never MPI_STATUS_IGNORE). */
void hp_mpi_req_complete(hp_mpi_frame *f, MPI_Request req, const MPI_Status *status);

/* The request arrays of Waitall/Waitany/Waitsome and the Test family: handles saved before
 * the call (completion overwrites them with MPI_REQUEST_NULL), and a status array of our
 * own when the caller passed MPI_STATUSES_IGNORE. Small arrays live in the struct (on the
 * wrapper's stack), larger ones in a per-thread buffer that grows by mmap and is reused. */
enum { HP_MPI_REQS_SMALL = 8 };
typedef struct hp_mpi_reqs {
    int n; /* 0 = nothing saved (no request pending: nothing to count) */
    MPI_Request *req;
    MPI_Request small_req[HP_MPI_REQS_SMALL];
    MPI_Status small_st[HP_MPI_REQS_SMALL];
} hp_mpi_reqs;

/* Saves the handles; returns the status array the real call must get (statuses itself,
 * or ours when statuses == MPI_STATUSES_IGNORE). statuses may be NULL (Waitany/Testany:
 * only the handles are saved). */
MPI_Status *hp_mpi_req_save(hp_mpi_reqs *r, int count, const MPI_Request reqs[],
                            MPI_Status *statuses);
void hp_mpi_req_complete_all(hp_mpi_frame *f, const hp_mpi_reqs *r, const MPI_Status *statuses);
void hp_mpi_req_complete_one(hp_mpi_frame *f, const hp_mpi_reqs *r, int index,
                             const MPI_Status *status);
void hp_mpi_req_complete_some(hp_mpi_frame *f, const hp_mpi_reqs *r, int outcount,
                              const int indices[], const MPI_Status *statuses);

/* Preload mode (HP_MPI_PRELOAD): the next definition of an MPI function after ours,
 * hp_next_symbol (util/next_symbol.h) cached in *slot, falling back to the "P" name;
 * aborts after the message when neither exists. */
void *hp_mpi_next_symbol(void **slot, const char *name);

/* For tests: drop every entry. */
void hp_mpi_req_reset(void);

#endif
