/*
 * The per-location trace buffer: events of a location in time order, kept in chunks of
 * budget pages while the program runs and turned into OTF2 at the end
 * (otf2-writer/). Appending is a store and a pointer increment; a full chunk takes a new
 * page. When a location holds its share of the budget (or the budget is used up), its
 * chunks are written to a spill file and reused; the flush itself is recorded as a visit
 * of the region "TRACE BUFFER FLUSH", so the time it cost is visible in the trace.
 *
 * With HP_TRACE_ADAPTIVE=true (hp_trace_set_buffer) a location's events go instead into
 * the bins of its adaptive buffer (trace_bins.h), taken from the budget at its first
 * event: the append below writes straight into the current event bin, and the slow path
 * takes the next bin, or, beyond the events' share, decides event by event (region events
 * thinned to MPI only). Nothing is ever flushed then.
 */
#ifndef HP_MEASUREMENT_TRACE_BUFFER_H
#define HP_MEASUREMENT_TRACE_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

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
    HP_TRACE_METRIC = 14        /* region = counter index (metrics.h order); + 1 payload:
                                   a = value */
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

typedef struct hp_trace_chunk {
    struct hp_trace_chunk *next;
    size_t count;
    hp_trace_event events[];
} hp_trace_chunk;

struct hp_trace_bins;
struct hp_trace_bins_reader;

typedef struct hp_trace_buffer {
    hp_trace_event *next; /* where the next event goes; == end when the chunk is full */
    hp_trace_event *end;
    hp_trace_chunk *first;
    hp_trace_chunk *last;
    size_t chunks;
    uint64_t events;      /* all events recorded, spilled ones included */
    uint64_t flushes;
    uint64_t lost;        /* events dropped (no memory and no spill file) */
    int spill_fd;         /* -1 until the first flush */
    char spill_path[96];
    struct hp_trace_bins *bins; /* adaptive mode: where the events go (NULL until the
                                   first event, or when the budget could not hold it) */
} hp_trace_buffer;

/* Sets up tracing for this process: chunk quota per location from the budget, and the
 * region that marks flushes. Returns 0 or -1. */
int hp_trace_setup(uint64_t total_memory);

/* HP_TRACE_BUFFER and HP_TRACE_ADAPTIVE (before the first event): each location's buffer
 * holds bytes (0 = a quarter of the budget); adaptive: in bins that never flush, with
 * samples of start_period ns. */
void hp_trace_set_buffer(uint64_t bytes, bool adaptive, uint64_t start_period);

/* Adaptive mode with samples in traces (before the first event): a sample record takes
 * slots slots (1..16), and rearm(arg, period_ns) re-arms the location's timer when its
 * buffer halves the frequency; arg is the location's hp_trace_buffer. Samples go in with
 * hp_trace_bins_sample(b->bins, record) from the signal handler, once b->bins exists (it
 * is made at the location's first event). */
typedef int hp_trace_rearm_fn(void *arg, uint64_t period_ns);
void hp_trace_set_sample_record(unsigned slots, hp_trace_rearm_fn *rearm);

void hp_trace_buffer_init(hp_trace_buffer *b);

/* Slow path of hp_trace_add: a new chunk, or a flush. After a flush, *time is moved to
 * the flush's end so that the location's events stay in time order. Returns false when
 * the event (of kind, with region) is not to be stored: no room (counted as lost), or
 * thinned in adaptive mode (counted there). */
bool hp__trace_make_room(hp_trace_buffer *b, uint64_t *time, size_t slots, uint32_t kind,
                         uint32_t region);

static inline void hp_trace_add(hp_trace_buffer *b, hp_trace_kind kind, uint32_t region,
                                uint64_t time)
{
    if (unlikely(b->next == b->end) && !hp__trace_make_room(b, &time, 1, kind, region))
        return;
    *b->next++ = (hp_trace_event){ time, (uint32_t)kind, region };
    b->events++;
}

/* An event with npayload payload slots (hp_trace_slots(kind) - 1), kept in one chunk. */
static inline void hp_trace_add_args(hp_trace_buffer *b, hp_trace_kind kind, uint32_t id,
                                     uint64_t time, const hp_trace_payload *payload,
                                     size_t npayload)
{
    if (unlikely((size_t)(b->end - b->next) < 1 + npayload) &&
        !hp__trace_make_room(b, &time, 1 + npayload, kind, id))
        return;
    *b->next++ = (hp_trace_event){ time, (uint32_t)kind, id };
    for (size_t i = 0; i < npayload; i++)
        *b->next++ = (hp_trace_event){ payload[i].a, (uint32_t)payload[i].b,
                                       (uint32_t)(payload[i].b >> 32) };
    b->events++;
}

/* Reads a location's events back in time order: first what was spilled, then the
 * chunks (adaptive mode: the kept records of the bins, merged in time order). Usage: hp_trace_reader r; hp_trace_reader_open(&r, b); while
 * (hp_trace_reader_next(&r, &events, &n) == 1) ...; hp_trace_reader_close(&r).
 * next returns 1 with a chunk, 0 at the end, -1 on a read error. */
typedef struct hp_trace_reader {
    hp_trace_buffer *buffer;
    hp_trace_chunk *chunk;
    int fd;
    hp_trace_event *scratch;
    struct hp_trace_bins_reader *bins; /* adaptive mode: one record per call */
} hp_trace_reader;

int hp_trace_reader_open(hp_trace_reader *r, hp_trace_buffer *b);
int hp_trace_reader_next(hp_trace_reader *r, const hp_trace_event **events, size_t *n);
void hp_trace_reader_close(hp_trace_reader *r);

#endif
