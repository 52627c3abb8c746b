/*
 * What the MPI adapter's files share: the table of the wrapped MPI functions (generated
 * by gen-wrappers.py from mpi_proto.h into the build tree: mpi_functions.c) and the frame
 * that one measured call carries from enter to exit. A function is declared by the header
 * of the file that defines it (mpi_event.h, mpi_selection.h, mpi_lifecycle.h, ...),
 * except the trace declarations below: the trace rules of mpi-semantics.txt and the
 * trace events of requests (mpi_trace_rules.c), and hp_mpi_collective_op (mpi_event.c).
 *
 * What a generated wrapper looks like, line by line, is doc/mpi-wrappers.md (MPI_Send's,
 * as `gen-wrappers.py --show MPI_Send` prints it).
 */
#ifndef HP_ADAPTERS_MPI_MPI_ADAPTER_H
#define HP_ADAPTERS_MPI_MPI_ADAPTER_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Score-P's MPI function groups (HP_MPI_ENABLE_GROUPS). */
typedef enum hp_mpi_group {
    HP_MPI_GROUP_CG = 1u << 0,
    HP_MPI_GROUP_COLL = 1u << 1,
    HP_MPI_GROUP_ENV = 1u << 2,
    HP_MPI_GROUP_ERR = 1u << 3,
    HP_MPI_GROUP_EXT = 1u << 4,
    HP_MPI_GROUP_IO = 1u << 5,
    HP_MPI_GROUP_MISC = 1u << 6,
    HP_MPI_GROUP_P2P = 1u << 7,
    HP_MPI_GROUP_RMA = 1u << 8,
    HP_MPI_GROUP_SPAWN = 1u << 9,
    HP_MPI_GROUP_TOPO = 1u << 10,
    HP_MPI_GROUP_TYPE = 1u << 11,
    HP_MPI_GROUP_XNONBLOCK = 1u << 12,
    HP_MPI_GROUP_XREQTEST = 1u << 13
} hp_mpi_group;

typedef struct hp_mpi_function {
    const char *name; /* "MPI_Send" */
    unsigned groups;  /* hp_mpi_group bits */
    const char *role; /* Cube region role: "point2point", "collective", "barrier",
                         "function", ... (Score-P's roles) */
} hp_mpi_function;

/* Generated: one entry per wrapped function, index = HP_MPI_FN_<name> (mpi_functions.h). */
extern const hp_mpi_function hp_mpi_functions[];
extern const unsigned hp_mpi_function_count;

/* What one measured MPI call carries from enter to exit. The byte helpers add to it.
 * hp_mpi_enter sets the fields up to slot (path_counters only with path_anchor); the
 * others are written by the trace rules before anything reads them (they are read only
 * under the trace bits those rules set), so a call pays a few stores, not the whole
 * frame. */
typedef struct hp_mpi_frame {
    void *loc;   /* the measuring location (struct hp_location *), NULL = not measured */
    unsigned fn; /* HP_MPI_FN_* */
    unsigned trace; /* HP_MPI_TRACE_* bits, set by the t* rules (mpi_trace_rules.c) */
    uint64_t bytes_sent;
    uint64_t bytes_received;
    uint64_t messages_sent;
    uint64_t messages_received;
    /* with sampling: the node the call path was unwound below (NULL = not unwound) */
    void *path_anchor;     /* struct hp_cct_node * */
    int path_counters;     /* the path below the anchor took the counters at enter */
    int root;              /* rank in comm, -1 for none */
    /* the shadow-stack frame (struct hp_frame *) of a call entered on the fast path,
       NULL otherwise: hp_mpi_exit pops it directly while it is still on top */
    void *slot;
    /* for trace events (HP_ENABLE_TRACING), valid under the trace bits */
    MPI_Comm comm;
    int send_peer, send_tag;
    int recv_peer, recv_tag;
    uint64_t request_id;   /* trace id of the request a non-blocking call started */
    /* wait-state records of this call waiting for its exit time (hp_ws_record *),
       valid under HP_MPI_TRACE_WS_OPEN0/1: hp_mpi_exit closes them with its own stamp */
    void *ws_open[2];
} hp_mpi_frame;

enum {
    HP_MPI_TRACE_SEND = 1u << 0, /* a blocking send: MpiSend */
    HP_MPI_TRACE_RECV = 1u << 1, /* a blocking receive: MpiRecv */
    HP_MPI_TRACE_COLL = 1u << 2, /* a blocking collective: MpiCollectiveBegin/End */
    HP_MPI_TRACE_ISEND = 1u << 3, /* a non-blocking send: MpiIsend */
    HP_MPI_TRACE_IRECV_REQUEST = 1u << 4, /* a non-blocking receive: MpiIrecvRequest */
    HP_MPI_TRACE_NBC_REQUEST = 1u << 5, /* a non-blocking collective: its Request event */
    HP_MPI_TRACE_WS_OPEN0 = 1u << 6, /* ws_open[0] holds a wait-state record (no event) */
    HP_MPI_TRACE_WS_OPEN1 = 1u << 7, /* ws_open[1] too */
    HP_MPI_TRACE_WS = HP_MPI_TRACE_WS_OPEN0 | HP_MPI_TRACE_WS_OPEN1
};

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

/* OTF2's collective operation of function fn plus one (0 = not a collective we trace;
 * non-blocking variants map to the operation of the blocking one). */
unsigned hp_mpi_collective_op(unsigned fn);

#endif
