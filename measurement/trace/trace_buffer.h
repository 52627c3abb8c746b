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
 * takes the next bin, or, once the events filled their share and stopped, decides event
 * by event (only Leaves of recorded Enters go on). Nothing is ever flushed then.
 */
#ifndef HP_MEASUREMENT_TRACE_TRACE_BUFFER_H
#define HP_MEASUREMENT_TRACE_TRACE_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_event.h"
#include "util/compiler.h"

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
    uint64_t samples;     /* samples recorded (hp_trace_add_sample) */
    uint64_t lost_samples; /* samples dropped: the buffer was full and a signal handler
                              cannot flush it */
    int spill_fd;         /* -1 until the first flush */
    char spill_path[96];
    struct hp_trace_bins *bins; /* adaptive mode: where the events go (NULL until the
                                   first event, or when the budget could not hold it) */
} hp_trace_buffer;

/* The trace's own marker regions (local ids), which no call tree contains: TRACE BUFFER
 * FLUSH, TRACE EVENTS STOPPED and TRACE EVENTS DROPPED, in this order. */
enum {
    HP_TRACE_MARKER_FLUSH,
    HP_TRACE_MARKER_STOPPED,
    HP_TRACE_MARKER_DROPPED,
    HP_TRACE_MARKERS
};

/* The size of a chunk: one page of the measurement budget (HP_PAGE_SIZE of
 * measurement/core/memory.h; trace_provider.c checks that the two agree). */
#define HP_TRACE_PAGE_SIZE (32u * 1024u)

/* What the buffer takes from the measurement core, which sits above it and provides it
 * at setup (measurement/core/trace_provider.c): budget pages for chunks and adaptive
 * buffers (HP_TRACE_PAGE_SIZE-aligned, never freed; NULL when the budget is used up),
 * the timer for a flush's span, and the local ids of the marker regions (UINT32_MAX =
 * none). Before the setup: no pages (events are counted lost) and time 0. */
typedef struct hp_trace_provider {
    void *(*pages)(size_t bytes);
    uint64_t (*now)(void);
    uint32_t markers[HP_TRACE_MARKERS];
} hp_trace_provider;

/* Sets up tracing for this process: the chunk quota per location from the budget
 * (total_memory bytes), and what the core hands down. */
void hp_trace_buffer_setup(uint64_t total_memory, const hp_trace_provider *provider);

/* HP_TRACE_BUFFER and HP_TRACE_ADAPTIVE (before the first event): each location's buffer
 * holds bytes (0 = a quarter of the budget); adaptive: in bins that never flush, with
 * samples of start_period ns. */
void hp_trace_set_buffer(uint64_t bytes, bool adaptive, uint64_t start_period);

/* HP_TRACE_EVENT_SHARE (before the first event): the percentage of an adaptive buffer's
 * bins that events (MPI and regions) may fill before they stop (1 to 100; default 50). */
void hp_trace_set_event_share(unsigned percent);

/* True in adaptive mode (HP_TRACE_ADAPTIVE=true with tracing on). */
bool hp_trace_adaptive(void);

/* Local id of the region TRACE EVENTS DROPPED, which marks the range an MPI job's
 * consistent cut left out (measurement/finalize/trace_cut.h). */
uint32_t hp_trace_dropped_region(void);

/* The marker regions' local ids (UINT32_MAX = none), in HP_TRACE_MARKER_* order. */
void hp_trace_marker_regions(uint32_t out[HP_TRACE_MARKERS]);

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
 * the event (of kind) is not to be stored: no room (counted as lost), or
 * after the stop in adaptive mode (counted there too). */
bool hp__trace_make_room(hp_trace_buffer *b, uint64_t *time, size_t slots, uint32_t kind);

/* Appends an event at time. Returns the time it was recorded with: later than time when
 * a flush came first (events that share the time follow it with the returned one). */
static inline uint64_t hp_trace_add(hp_trace_buffer *b, hp_trace_kind kind, uint32_t region,
                                    uint64_t time)
{
    if (unlikely(b->next == b->end) && !hp__trace_make_room(b, &time, 1, kind))
        return time;
    *b->next++ = (hp_trace_event){ time, (uint32_t)kind, region };
    b->events++;
    return time;
}

/* An event with npayload payload slots (hp_trace_slots(kind) - 1), kept in one chunk.
 * Returns the time it was recorded with, as hp_trace_add. */
static inline uint64_t hp_trace_add_args(hp_trace_buffer *b, hp_trace_kind kind, uint32_t id,
                                         uint64_t time, const hp_trace_payload *payload,
                                         size_t npayload)
{
    if (unlikely((size_t)(b->end - b->next) < 1 + npayload) &&
        !hp__trace_make_room(b, &time, 1 + npayload, kind))
        return time;
    *b->next++ = (hp_trace_event){ time, (uint32_t)kind, id };
    for (size_t i = 0; i < npayload; i++)
        *b->next++ = (hp_trace_event){ payload[i].a, (uint32_t)payload[i].b,
                                       (uint32_t)(payload[i].b >> 32) };
    b->events++;
    return time;
}

/* Room for slots events in a row, taken before a group of events that go in after some
 * of their timestamps were read (an MPI call's message events go in at its end, with
 * its start time): a flush in the middle of the group would move an event behind the
 * flush and its successors back. A flush needed for the room is done now but recorded
 * by the caller after the group, where its times belong: its start and end are in
 * flush (0, 0 without a flush), for hp_trace_add_flush. Returns false when there is no
 * room (the group's events are then counted as lost one by one). Adaptive buffers
 * never flush: nothing is reserved. */
bool hp_trace_reserve(hp_trace_buffer *b, size_t slots, uint64_t flush[2]);

/* The TRACE BUFFER FLUSH region from start to end (Enter and Leave). */
void hp_trace_add_flush(hp_trace_buffer *b, uint64_t start, uint64_t end);

/* Another chunk without a flush, or false (async-signal-safe). */
bool hp__trace_grow(hp_trace_buffer *b, size_t slots);

static inline void hp__trace_store_sample(hp_trace_buffer *b, uint64_t time, const void *node,
                                          uint32_t distance, uint64_t number)
{
    *b->next++ = (hp_trace_event){ time, HP_TRACE_SAMPLE, distance };
    *b->next++ = (hp_trace_event){ (uint64_t)(uintptr_t)node, (uint32_t)number,
                                   (uint32_t)(number >> 32) };
    b->events++;
}

/* Slow path of hp_trace_add_sample: a new chunk, or (adaptive mode) the sample's level. */
void hp__trace_add_sample_slow(hp_trace_buffer *b, uint64_t time, const void *node,
                               uint32_t distance);

/* A timer sample, from the sampling signal handler: async-signal-safe (no lock, no
 * malloc, no system call; a new chunk comes from the lock-free budget). The handler
 * only runs while the thread is outside the core, so it never interleaves with the
 * thread's own appends. A full buffer is not flushed from the handler: the sample is
 * dropped and counted, and the thread's next event flushes as usual. In adaptive mode
 * (b->bins) it goes to the bins of its level (trace_bins.h), numbered by them.
 * node: the call-tree node the sample was charged to; distance: OTF2's unwind distance. */
static inline void hp_trace_add_sample(hp_trace_buffer *b, uint64_t time, const void *node,
                                       uint32_t distance)
{
    if (unlikely(b->bins != NULL || (size_t)(b->end - b->next) < 2)) {
        hp__trace_add_sample_slow(b, time, node, distance);
        return;
    }
    hp__trace_store_sample(b, time, node, distance, ++b->samples);
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
