/*
 * The adaptive trace buffer of one location (HP_TRACE_ADAPTIVE=true; the paper
 * "Automatic Adaption of the Sampling Frequency"): a fixed memory region from the budget,
 * cut into bins of equal size, that holds a run of any length without flushing.
 *
 * Bins are handed out on demand from a free list to a stream: the events (regions and
 * MPI) form one stream; samples form one stream per level, where sample number n
 * (counted from 1) goes to level lambda(n) = number of trailing zero bits of n, so level
 * k holds the samples n = 2^k * odd. When a sample needs a bin and none is free, every
 * bin of the lowest open level is given back at once (half of the stored samples; the
 * bins are spliced onto the free list, nothing is copied), the level is closed, and the
 * sampling interval doubles: a callback re-arms the timer, and later sample numbers
 * advance in steps of 2^k so that they stay numbers of the start interval. After k
 * halvings the kept samples are exactly those whose number is a multiple of 2^k, and
 * each stands for 2^k start intervals.
 *
 * Events (regions and MPI alike) hold at most event_share percent of the bins, so the
 * samples always keep the rest and cover the run to its end. When the events fill their
 * share they stop: later events are dropped, but for the Leaves of recorded Enters,
 * which go into a reserve held back in the share's last bin (up to HP_BINS_EVENT_RESERVE
 * slots), so the trace stays balanced. The stop is marked by an Enter and a Leave of
 * the stop region at its time, and in hp_trace_bins_stats (time, events and messages
 * dropped). Each buffer stops on its own; an MPI job's ranks then agree at finalize on a
 * consistent cut across their buffers (measurement/finalize/trace_cut.h).
 *
 * Records are slots of the trace buffer's format (hp_trace_event, trace_buffer.h): an
 * event is its hp_trace_slots(kind) slots; a sample is sample_slots slots whose first
 * slot's time is the sample's time. A stream's records are in time order, and the reader
 * merges the streams.
 *
 * Threads and signals: one buffer per location, used by its own thread only. The sample
 * path (hp_trace_bins_sample) is async-signal-safe and may interrupt the event path: it
 * takes no lock, allocates nothing and makes no system call (the re-arm callback aside,
 * which timer_settime satisfies). While the event path is taking a bin (busy), a sample
 * that would need a new bin is refused (HP_BINS_BUSY, its number is not used) instead of
 * touching the free list.
 */
#ifndef HP_MEASUREMENT_TRACE_TRACE_BINS_H
#define HP_MEASUREMENT_TRACE_TRACE_BINS_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace_event.h"
#include "util/compiler.h"

enum {
    HP_BINS_LEVELS = 64,            /* levels of a 64-bit sample number */
    HP_BINS_MAX_SAMPLE_SLOTS = 16,
    HP_BINS_DEFAULT_BIN_SIZE = 64 * 1024,
    HP_BINS_DEFAULT_EVENT_SHARE = 50,
    HP_BINS_EVENT_RESERVE = 64      /* slots for Leaves after the stop */
};

#define HP_BINS_NIL UINT32_MAX

/* Returns 0 when the timer now fires every period_ns; anything else leaves the rate as
 * it was (later samples of closed levels are then dropped at the cost of lambda). Called
 * from the sample path, so it must be async-signal-safe. */
typedef int hp_trace_bins_rearm_fn(void *arg, uint64_t period_ns);

typedef struct hp_trace_bins_config {
    size_t bin_size;        /* bytes; 0 = 64 KiB; at least 16 slots */
    unsigned event_share;   /* percent of the bins events may hold; 0 = 50 */
    unsigned sample_slots;  /* slots of one sample record, 1..16; 0 = 1 */
    uint64_t start_period;  /* ns between samples at the start frequency */
    hp_trace_bins_rearm_fn *rearm; /* NULL = the rate cannot change */
    void *rearm_arg;
    uint32_t stop_region;   /* region that marks the stop of the events; HP_BINS_NIL = none */
} hp_trace_bins_config;

/* One halving: at time, level `level` was closed and the sample interval became
 * period_ns (start_period << (level + 1)). */
typedef struct hp_trace_bins_halving {
    uint64_t time;
    uint64_t period_ns;
    uint32_t level;
    uint32_t rearmed; /* the timer follows (rearm returned 0) */
} hp_trace_bins_halving;

typedef struct hp_trace_bins_stats {
    uint64_t samples_stored;   /* stored, including those given back later */
    uint64_t samples_closed;   /* dropped at once: their level was closed */
    uint64_t samples_revoked;  /* stored, then given back with their level */
    uint64_t samples_busy;     /* refused while the event path took a bin */
    uint64_t samples_lost;     /* no bin and no level to give back (a tiny buffer) */
    uint64_t events_stored;
    uint64_t events_lost;      /* dropped after events stopped at their share */
    uint64_t messages_lost;    /* of those: point-to-point message events */
    uint64_t stopped_at;       /* time events stopped; 0 = never */
    uint64_t unclosed;         /* recorded Enters whose Leave could not be stored */
    uint64_t bins_revoked;
    uint32_t bins;             /* bins of the buffer */
    uint32_t bins_events;      /* held by events now */
    uint32_t bins_samples;     /* held by sample levels now */
    uint32_t halvings;         /* levels closed */
} hp_trace_bins_stats;

/* Where a stream writes: its current bin and its list of bins. */
typedef struct hp_bins_stream {
    hp_trace_event *next; /* == end (or NULL) when the current bin is full */
    hp_trace_event *end;
    uint32_t first;       /* bin indices, HP_BINS_NIL when the stream holds none */
    uint32_t last;
    uint32_t nbins;
} hp_bins_stream;

typedef struct hp_trace_bins {
    /* Shared between the event path and the sample path (see the head of this file). */
    volatile sig_atomic_t busy;       /* the event path is taking a bin */
    _Atomic unsigned closed;          /* levels below this are closed */
    _Atomic unsigned shift;           /* sample numbers advance in steps of 1 << shift */
    uint64_t next_number;             /* number of the next sample */
    uint32_t free_head;               /* bins given back, linked through their heads */
    uint32_t fresh;                   /* bins never used start here */
    /* Layout. */
    char *base;                       /* bin 0 */
    size_t bin_size;
    uint32_t nbins;
    uint32_t bin_slots;               /* record slots per bin */
    uint32_t event_bin_limit;         /* events stop at this many bins */
    uint32_t event_reserve;           /* slots of the last of them kept for Leaves */
    uint32_t stop_region;
    unsigned sample_slots;
    uint64_t start_period;
    hp_trace_bins_rearm_fn *rearm;
    void *rearm_arg;
    /* Events. */
    hp_bins_stream events;
    bool stopped;
    uint64_t open_recorded;           /* recorded Enters not yet left */
    uint64_t open_stopped;            /* Enters dropped after the stop, not yet left */
    /* Samples. */
    hp_bins_stream levels[HP_BINS_LEVELS];
    hp_trace_bins_halving halving[HP_BINS_LEVELS];
    hp_trace_bins_stats stats;
} hp_trace_bins;

/* Lays a buffer out in region (size bytes, e.g. from hp_memory_pages): the control block
 * at the start, the bins after it. Touches only the control block; a bin's memory is
 * touched when it is first used. Returns the buffer, or NULL when cfg is invalid or the
 * region holds fewer than 2 bins. */
hp_trace_bins *hp_trace_bins_init(void *region, size_t size, const hp_trace_bins_config *cfg);

typedef enum hp_bins_result {
    HP_BINS_STORED = 0,
    HP_BINS_CLOSED,  /* sample of a closed level: dropped, as designed */
    HP_BINS_BUSY,    /* sample refused while the event path took a bin */
    HP_BINS_LOST     /* no room at all */
} hp_bins_result;

/* Slow paths of the two functions below. */
hp_bins_result hp__trace_bins_sample_slow(hp_trace_bins *b, const hp_trace_event *rec,
                                          uint64_t n, unsigned level);
hp_bins_result hp__trace_bins_event_slow(hp_trace_bins *b, const hp_trace_event *slots);

/* The event path without the copy, for a writer that appends in place (trace_buffer.c):
 * decides about an event of this kind at time as hp_trace_bins_event does and returns
 * where its hp_trace_slots(kind) slots go (counted as stored), or NULL with the reason in
 * *why. Events appended straight into events.next..events.end meanwhile are the caller's
 * to sync (events.next) before the next call; they are not counted in the statistics. */
hp_trace_event *hp_trace_bins_event_room(hp_trace_bins *b, uint64_t time, uint32_t kind,
                                         hp_bins_result *why);

/* The sample number after n, in steps of 1 << shift. */
static inline uint64_t hp__trace_bins_after(uint64_t n, unsigned shift)
{
    return ((n >> shift) + 1) << shift;
}

/* Stores one sample (sample_slots slots, rec[0].time its time). Async-signal-safe. */
static inline hp_bins_result hp_trace_bins_sample(hp_trace_bins *b, const hp_trace_event *rec)
{
    uint64_t n = b->next_number;
    unsigned level = (unsigned)__builtin_ctzll(n);
    if (level < atomic_load_explicit(&b->closed, memory_order_relaxed)) {
        b->next_number = hp__trace_bins_after(n, atomic_load_explicit(&b->shift,
                                                                      memory_order_relaxed));
        b->stats.samples_closed++;
        return HP_BINS_CLOSED;
    }
    hp_bins_stream *l = &b->levels[level];
    unsigned k = b->sample_slots;
    if (unlikely(l->next == NULL || (size_t)(l->end - l->next) < k))
        return hp__trace_bins_sample_slow(b, rec, n, level);
    for (unsigned i = 0; i < k; i++) /* a loop, not memcpy: k is small, a call is not */
        l->next[i] = rec[i];
    l->next += k;
    b->next_number = hp__trace_bins_after(n, atomic_load_explicit(&b->shift,
                                                                  memory_order_relaxed));
    b->stats.samples_stored++;
    return HP_BINS_STORED;
}

/* Stores one event (hp_trace_slots(slots[0].kind) slots); MPI and region events count
 * alike for the share. Not for signal handlers. */
static inline hp_bins_result hp_trace_bins_event(hp_trace_bins *b, const hp_trace_event *slots)
{
    unsigned k = hp_trace_slots(slots[0].kind);
    hp_bins_stream *e = &b->events;
    if (unlikely(b->stopped || e->next == NULL || (size_t)(e->end - e->next) < k))
        return hp__trace_bins_event_slow(b, slots);
    for (unsigned i = 0; i < k; i++)
        e->next[i] = slots[i];
    e->next += k;
    b->open_recorded += (slots[0].kind == HP_TRACE_ENTER) - (slots[0].kind == HP_TRACE_LEAVE);
    b->stats.events_stored++;
    return HP_BINS_STORED;
}

/* The statistics, with the bins counted now. */
void hp_trace_bins_get_stats(const hp_trace_bins *b, hp_trace_bins_stats *out);

/* The sample interval in force, in ns (start_period << halvings). */
uint64_t hp_trace_bins_period(const hp_trace_bins *b);

/* Reads the kept records merged in time order (at equal times events first, then samples
 * by level), for the writer at the end of measurement; no record may be added meanwhile.
 * Usage: hp_trace_bins_reader r; hp_trace_bins_reader_open(&r, b);
 * while (hp_trace_bins_reader_next(&r, &rec)) ... */
typedef struct hp_bins_cursor {
    const hp_trace_event *next; /* NULL when the stream is done */
    const hp_trace_event *end;
    uint32_t bin;
    uint64_t index;             /* records read from this stream */
} hp_bins_cursor;

typedef struct hp_trace_bins_reader {
    hp_trace_bins *bins;
    hp_bins_cursor cursor[1 + HP_BINS_LEVELS]; /* 0 = events, 1 + k = level k */
    uint32_t *open;       /* regions entered and not left so far (malloc'ed) */
    size_t nopen, capacity;
    bool untracked;       /* no memory for open: nothing is closed at the end */
    uint64_t last_time;
    hp_trace_event leave; /* the Leave made up for a region left open */
} hp_trace_bins_reader;

typedef struct hp_trace_bins_record {
    const hp_trace_event *slots;
    unsigned nslots;
    bool sample;
    unsigned level;     /* samples: their level */
    uint64_t number;    /* samples: their number, 2^level * (2 i + 1) for the i-th of
                           the level (every number of an open level was stored) */
    bool made_up;       /* a Leave the buffer had no room for (see below) */
} hp_trace_bins_record;

void hp_trace_bins_reader_open(hp_trace_bins_reader *r, hp_trace_bins *b);

/* The next record in time order; false at the end. When events stopped and the reserve
 * could not hold the Leaves of regions left open, those Leaves follow at the end, at the
 * time of the last record, innermost first (made_up set), so the trace stays balanced. */
bool hp_trace_bins_reader_next(hp_trace_bins_reader *r, hp_trace_bins_record *out);

/* Frees what the reader allocated. */
void hp_trace_bins_reader_close(hp_trace_bins_reader *r);

#endif
