/*
 * Trace buffers (trace_buffer.h): chunks of budget pages per location, spilled to a
 * file of the location's own when the location reaches its share of the budget or the
 * budget is used up. Only the owning thread appends; the reader runs at the end of
 * measurement.
 */
#include "trace_buffer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_bins.h"

#define CHUNK_CAPACITY ((HP_TRACE_PAGE_SIZE - sizeof(hp_trace_chunk)) / sizeof(hp_trace_event))

/* No marker region (hp_trace_provider's markers before the setup). */
#define NO_REGION UINT32_MAX

/* Before the setup (an event on a thread that started early): no pages, so the event is
 * counted lost, and time 0. */
static void *no_pages(size_t bytes)
{
    (void)bytes;
    return NULL;
}

static uint64_t no_time(void)
{
    return 0;
}

static size_t chunk_limit = 2;
static hp_trace_provider provider = { no_pages, no_time,
                                      { NO_REGION, NO_REGION, NO_REGION } };
static _Atomic unsigned spill_serial;
static uint64_t adaptive_bytes;  /* > 0: HP_TRACE_ADAPTIVE, each location's buffer */
static uint64_t adaptive_period; /* ns between samples at the start frequency */
static unsigned event_share;     /* percent, 0 = trace_bins.h's default */
static unsigned sample_slots = 1;
static hp_trace_rearm_fn *sample_rearm;

void hp_trace_buffer_setup(uint64_t total_memory, const hp_trace_provider *h)
{
    /* A quarter of the budget per location for up to two threads' worth of tracing; the
     * rest stays for call trees. Small budgets still get two chunks. */
    size_t limit = (size_t)(total_memory / 4 / HP_TRACE_PAGE_SIZE);
    chunk_limit = limit > 2 ? limit : 2;
    provider = *h;
}

uint32_t hp_trace_dropped_region(void)
{
    uint32_t id = provider.markers[HP_TRACE_MARKER_DROPPED];
    return id != NO_REGION ? id : 0;
}

void hp_trace_marker_regions(uint32_t out[HP_TRACE_MARKERS])
{
    for (unsigned k = 0; k < HP_TRACE_MARKERS; k++)
        out[k] = provider.markers[k];
}

void hp_trace_set_buffer(uint64_t bytes, bool adaptive, uint64_t start_period)
{
    if (bytes != 0 && !adaptive)
        chunk_limit = bytes / HP_TRACE_PAGE_SIZE > 2 ? bytes / HP_TRACE_PAGE_SIZE : 2;
    if (adaptive)
        adaptive_bytes = bytes != 0 ? bytes : chunk_limit * HP_TRACE_PAGE_SIZE;
    adaptive_period = start_period;
}

void hp_trace_set_event_share(unsigned percent)
{
    event_share = percent;
}

bool hp_trace_adaptive(void)
{
    return adaptive_bytes != 0;
}

void hp_trace_set_sample_record(unsigned slots, hp_trace_rearm_fn *rearm)
{
    sample_slots = slots;
    sample_rearm = rearm;
}

void hp_trace_buffer_init(hp_trace_buffer *b)
{
    memset(b, 0, sizeof(*b));
    b->spill_fd = -1;
}

static void use_chunk(hp_trace_buffer *b, hp_trace_chunk *c)
{
    b->next = c->events;
    b->end = c->events + CHUNK_CAPACITY;
}

/* Closes the current chunk's count. */
static void seal_current(hp_trace_buffer *b)
{
    if (b->last != NULL)
        b->last->count = (size_t)(b->next - b->last->events);
}

static bool append_new_chunk(hp_trace_buffer *b)
{
    hp_trace_chunk *c = provider.pages(HP_TRACE_PAGE_SIZE);
    if (c == NULL)
        return false;
    c->next = NULL;
    c->count = 0;
    if (b->last != NULL)
        b->last->next = c;
    else
        b->first = c;
    b->last = c;
    b->chunks++;
    use_chunk(b, c);
    return true;
}

static bool write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}

static bool open_spill_file(hp_trace_buffer *b)
{
    const char *dir = secure_getenv("TMPDIR");
    snprintf(b->spill_path, sizeof(b->spill_path), "%.40s/hp-trace-%d-%u.raw",
             dir != NULL && dir[0] != '\0' ? dir : "/tmp", (int)getpid(),
             atomic_fetch_add(&spill_serial, 1));
    b->spill_fd = open(b->spill_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    return b->spill_fd >= 0;
}

/* Writes every chunk to the spill file and keeps the first chunk for new events. */
static bool flush_to_spill_file(hp_trace_buffer *b)
{
    if (b->spill_fd < 0 && !open_spill_file(b))
        return false;
    /* Each chunk goes out with its count, so that reading back never splits an event
     * from its payload slots (chunks keep them together). */
    for (hp_trace_chunk *c = b->first; c != NULL && c->count > 0; c = c->next) {
        uint64_t count = c->count;
        if (!write_all(b->spill_fd, &count, sizeof(count)) ||
            !write_all(b->spill_fd, c->events, c->count * sizeof(hp_trace_event)))
            return false;
        if (c == b->last)
            break;
    }
    for (hp_trace_chunk *c = b->first; c != NULL; c = c->next)
        c->count = 0;
    b->last = b->first; /* the other chunks are reused one by one below */
    use_chunk(b, b->first);
    return true;
}

/* Takes the next already allocated chunk after a flush, if any. */
static bool reuse_next_chunk(hp_trace_buffer *b)
{
    if (b->last == NULL || b->last->next == NULL)
        return false;
    b->last = b->last->next;
    b->last->count = 0;
    use_chunk(b, b->last);
    return true;
}

/* The location's adaptive buffer, made at its first event; false when the budget cannot
 * hold it (the location then uses the flushing buffer). */
/* Each open sample level holds at least one bin, and a level closes only when no bin is
 * free: with a few large bins, levels close long before the buffer is full (a 256 KiB
 * buffer of 64 KiB bins closed 13 levels while holding 28 samples). At least 64 bins,
 * of 4 to 64 KiB. */
static size_t bin_size_for(uint64_t bytes)
{
    uint64_t size = bytes / 64;
    if (size < 4096)
        size = 4096;
    if (size > HP_BINS_DEFAULT_BIN_SIZE)
        size = HP_BINS_DEFAULT_BIN_SIZE;
    return (size_t)size & ~(size_t)4095;
}

static uint32_t stop_region(void)
{
    uint32_t id = provider.markers[HP_TRACE_MARKER_STOPPED];
    return id != NO_REGION ? id : HP_BINS_NIL;
}

static bool bins_ready(hp_trace_buffer *b)
{
    if (b->bins != NULL)
        return true;
    if (b->first != NULL) /* already flushing */
        return false;
    void *region = provider.pages(adaptive_bytes);
    hp_trace_bins_config cfg = { bin_size_for(adaptive_bytes), event_share, sample_slots,
                                 adaptive_period, sample_rearm, b,
                                 stop_region() };
    b->bins = region != NULL ? hp_trace_bins_init(region, adaptive_bytes, &cfg) : NULL;
    return b->bins != NULL;
}

/* Adaptive mode: the bins decide about the event and say where it goes; the caller's
 * append then writes it there. After the events stopped every event comes here (no room
 * is given beyond it); before, the whole current bin is the room. */
static bool bins_make_room(hp_trace_buffer *b, uint64_t time, uint32_t kind)
{
    hp_trace_bins *x = b->bins;
    if (b->next != NULL)
        x->events.next = b->next; /* what the appends wrote meanwhile */
    hp_bins_result why;
    hp_trace_event *dst = hp_trace_bins_event_room(x, time, kind, &why);
    if (dst == NULL) {
        if (why == HP_BINS_LOST)
            b->lost++;
        b->next = b->end = NULL;
        return false;
    }
    x->events.next = dst; /* taken back: the caller's append writes and counts it */
    b->next = dst;
    b->end = x->stopped ? dst + hp_trace_slots(kind) : x->events.end;
    return true;
}

/* Room without a flush: the rest of the current chunk, the next one kept from a flush,
 * or a new one within the quota. Async-signal-safe. */
bool hp__trace_grow(hp_trace_buffer *b, size_t slots)
{
    if (b->next != NULL && (size_t)(b->end - b->next) >= slots)
        return true;
    seal_current(b);
    return reuse_next_chunk(b) || (b->chunks < chunk_limit && append_new_chunk(b));
}

/* Writes the chunks out to make room: the flush's span in *start, *end (counted), or
 * false (counted as lost) when nothing can be flushed or the write failed. */
static bool flush_for_room(hp_trace_buffer *b, uint64_t *start, uint64_t *end)
{
    if (b->first == NULL) { /* not even one chunk: nothing to flush */
        b->lost++;
        return false;
    }
    *start = provider.now();
    if (!flush_to_spill_file(b)) {
        b->lost++;
        return false;
    }
    *end = provider.now();
    b->flushes++;
    return true;
}

void hp_trace_add_flush(hp_trace_buffer *b, uint64_t start, uint64_t end)
{
    uint32_t id = provider.markers[HP_TRACE_MARKER_FLUSH];
    id = id != NO_REGION ? id : 0;
    hp_trace_add(b, HP_TRACE_ENTER, id, start);
    hp_trace_add(b, HP_TRACE_LEAVE, id, end > start ? end : start);
}

bool hp__trace_make_room(hp_trace_buffer *b, uint64_t *time, size_t slots, uint32_t kind)
{
    if (b->next != NULL && (size_t)(b->end - b->next) >= slots)
        return true;
    if (adaptive_bytes != 0 && bins_ready(b))
        return bins_make_room(b, *time, kind);
    if (hp__trace_grow(b, slots))
        return true;
    uint64_t start, end;
    if (!flush_for_room(b, &start, &end))
        return false;
    /* The flush starts after every event written so far and the pending event moves
     * behind it, so the location's events stay in time order. */
    if (start < *time)
        start = *time;
    hp_trace_add_flush(b, start, end);
    *time = end > start ? end : start;
    return true;
}

bool hp_trace_reserve(hp_trace_buffer *b, size_t slots, uint64_t flush[2])
{
    flush[0] = flush[1] = 0;
    if (b->next != NULL && (size_t)(b->end - b->next) >= slots)
        return true;
    if (adaptive_bytes != 0 && bins_ready(b))
        return true; /* the bins make room event by event, without flushes */
    return hp__trace_grow(b, slots) || flush_for_room(b, &flush[0], &flush[1]);
}

void hp__trace_add_sample_slow(hp_trace_buffer *b, uint64_t time, const void *node,
                               uint32_t distance)
{
    if (adaptive_bytes == 0) {
        if (!hp__trace_grow(b, 2)) {
            b->lost_samples++;
            return;
        }
        hp__trace_store_sample(b, time, node, distance, ++b->samples);
        return;
    }
    /* Adaptive: samples go to their level's bins, never into the events' stream. Before
     * the location's first event there are no bins: the sample is left out. */
    if (b->bins == NULL) {
        b->lost_samples++;
        return;
    }
    uint64_t number = b->bins->next_number;
    hp_trace_event rec[2] = {
        { time, HP_TRACE_SAMPLE, distance },
        { (uint64_t)(uintptr_t)node, (uint32_t)number, (uint32_t)(number >> 32) },
    };
    switch (hp_trace_bins_sample(b->bins, rec)) {
    case HP_BINS_STORED:
        b->samples++;
        break;
    case HP_BINS_CLOSED: /* its level was given back: as designed */
        break;
    default:
        b->lost_samples++;
    }
}

int hp_trace_reader_open(hp_trace_reader *r, hp_trace_buffer *b)
{
    seal_current(b);
    r->buffer = b;
    r->chunk = b->first;
    r->fd = -1;
    r->scratch = NULL;
    r->bins = NULL;
    if (b->bins != NULL) {
        if (b->next != NULL)
            b->bins->events.next = b->next;
        r->bins = malloc(sizeof(*r->bins));
        if (r->bins == NULL)
            return -1;
        hp_trace_bins_reader_open(r->bins, b->bins);
        return 0;
    }
    if (b->spill_fd >= 0) {
        r->fd = b->spill_fd;
        r->scratch = malloc(CHUNK_CAPACITY * sizeof(hp_trace_event));
        if (r->scratch == NULL || lseek(r->fd, 0, SEEK_SET) < 0)
            return -1;
    }
    return 0;
}

int hp_trace_reader_next(hp_trace_reader *r, const hp_trace_event **events, size_t *n)
{
    if (r->bins != NULL) {
        hp_trace_bins_record rec;
        if (!hp_trace_bins_reader_next(r->bins, &rec))
            return 0;
        *events = rec.slots;
        *n = rec.nslots;
        return 1;
    }
    if (r->fd >= 0) {
        uint64_t count;
        ssize_t got = read(r->fd, &count, sizeof(count));
        if (got == (ssize_t)sizeof(count)) {
            if (count > CHUNK_CAPACITY)
                return -1;
            size_t want = count * sizeof(hp_trace_event);
            if (read(r->fd, r->scratch, want) != (ssize_t)want)
                return -1;
            *events = r->scratch;
            *n = count;
            return 1;
        }
        if (got != 0)
            return -1;
        r->fd = -1; /* the spill file is done; now the chunks in memory */
    }
    while (r->chunk != NULL && r->chunk->count == 0)
        r->chunk = r->chunk == r->buffer->last ? NULL : r->chunk->next;
    if (r->chunk == NULL)
        return 0;
    *events = r->chunk->events;
    *n = r->chunk->count;
    r->chunk = r->chunk == r->buffer->last ? NULL : r->chunk->next;
    return 1;
}

void hp_trace_reader_close(hp_trace_reader *r)
{
    free(r->scratch);
    if (r->bins != NULL)
        hp_trace_bins_reader_close(r->bins);
    free(r->bins);
    r->bins = NULL;
    hp_trace_buffer *b = r->buffer;
    if (b->spill_fd >= 0) {
        close(b->spill_fd);
        unlink(b->spill_path);
        b->spill_fd = -1;
    }
}
