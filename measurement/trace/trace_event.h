/*
 * The records of a location's trace as the core keeps them: one event per slot, events
 * with arguments followed by payload slots of the same size. Shared by the trace buffer
 * (trace_buffer.h), the adaptive bins (trace_bins.h) and the OTF2 writer; types only.
 */
#ifndef HP_MEASUREMENT_TRACE_TRACE_EVENT_H
#define HP_MEASUREMENT_TRACE_TRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

typedef enum hp_trace_kind {
    HP_TRACE_ENTER = 1,
    HP_TRACE_LEAVE = 2,
    HP_TRACE_MPI_SEND = 3,   /* + 1 payload: a = peer << 32 | tag, b = bytes */
    HP_TRACE_MPI_RECV = 4,   /* + 1 payload: a = peer << 32 | tag, b = bytes */
    HP_TRACE_COLL_BEGIN = 5,
    HP_TRACE_COLL_END = 6,   /* + 2 payloads: a = op << 32 | root, b = sent; a = received */
    HP_TRACE_MPI_ISEND = 7,  /* + 2 payloads: a = peer << 32 | tag, b = bytes; a = request */
    HP_TRACE_MPI_ISEND_COMPLETE = 8,    /* + 1 payload: a = request */
    HP_TRACE_MPI_IRECV_REQUEST = 9,     /* + 1 payload: a = request */
    HP_TRACE_MPI_IRECV = 10, /* + 2 payloads: a = peer << 32 | tag, b = bytes; a = request */
    HP_TRACE_MPI_REQUEST_CANCELLED = 11, /* + 1 payload: a = request */
    HP_TRACE_NBC_REQUEST = 12,  /* + 1 payload: a = request */
    HP_TRACE_NBC_COMPLETE = 13, /* + 2 payloads: a = op << 32 | root, b = sent;
                                   a = received, b = request */
    HP_TRACE_METRIC = 14,       /* region = counter index (metrics.h order); + 1 payload:
                                   a = value */
    HP_TRACE_SAMPLE = 15,       /* a timer sample (hp_trace_add_sample): region = unwind
                                   distance; + 1 payload: a = the sample's call-tree node
                                   (hp_cct_node *) while buffered, its global calling
                                   context id when handed to the writer (UINT32_MAX = none:
                                   left out); b = the location's sample number, 1, 2, ... */
    /* Made at finalize only, from ENTER and LEAVE, for traces with samples (hybrid
     * traces, trace_output.h): */
    HP_TRACE_CC_ENTER = 16,     /* region = unwind distance; + 1 payload: a = calling
                                   context id (>= UINT32_MAX - 1: left out) */
    HP_TRACE_CC_LEAVE = 17      /* region = calling context id (>= UINT32_MAX - 1: left
                                   out) */
} hp_trace_kind;

/* One event; region is the process-local region id while buffered, and the global one
 * when handed to the OTF2 writer (for MPI events: the communicator id). Events with
 * arguments are followed by payload slots of the same size. */
typedef struct hp_trace_event {
    uint64_t time;
    uint32_t kind;   /* hp_trace_kind */
    uint32_t region;
} hp_trace_event;

typedef struct hp_trace_payload {
    uint64_t a;
    uint64_t b;
} hp_trace_payload;

_Static_assert(sizeof(hp_trace_payload) == sizeof(hp_trace_event),
               "payload slots must have the size of events");

/* Number of slots an event of this kind takes (the event and its payloads). */
static inline unsigned hp_trace_slots(uint32_t kind)
{
    switch (kind) {
    case HP_TRACE_MPI_SEND:
    case HP_TRACE_MPI_RECV:
    case HP_TRACE_MPI_ISEND_COMPLETE:
    case HP_TRACE_MPI_IRECV_REQUEST:
    case HP_TRACE_MPI_REQUEST_CANCELLED:
    case HP_TRACE_NBC_REQUEST:
    case HP_TRACE_METRIC:
    case HP_TRACE_SAMPLE:
    case HP_TRACE_CC_ENTER:
        return 2;
    case HP_TRACE_COLL_END:
    case HP_TRACE_MPI_ISEND:
    case HP_TRACE_MPI_IRECV:
    case HP_TRACE_NBC_COMPLETE:
        return 3;
    default:
        return 1;
    }
}

/* Whether an event's region field holds a communicator id (MPI events that name one). */
static inline bool hp_trace_has_comm(uint32_t kind)
{
    return kind == HP_TRACE_MPI_SEND || kind == HP_TRACE_MPI_RECV ||
           kind == HP_TRACE_COLL_BEGIN || kind == HP_TRACE_COLL_END ||
           kind == HP_TRACE_MPI_ISEND || kind == HP_TRACE_MPI_IRECV ||
           kind == HP_TRACE_NBC_COMPLETE;
}

#endif
