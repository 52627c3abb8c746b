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

#include "memory.h"
#include "region.h"
#include "timer.h"

#define CHUNK_CAPACITY ((HP_PAGE_SIZE - sizeof(hp_trace_chunk)) / sizeof(hp_trace_event))

static size_t chunk_limit = 2;
static hp_region *flush_region;
static _Atomic unsigned spill_serial;

int hp_trace_setup(uint64_t total_memory)
{
    /* A quarter of the budget per location for up to two threads' worth of tracing; the
     * rest stays for call trees. Small budgets still get two chunks. */
    size_t limit = (size_t)(total_memory / 4 / HP_PAGE_SIZE);
    chunk_limit = limit > 2 ? limit : 2;
    flush_region = hp_region_define("TRACE BUFFER FLUSH", "", -1, HP_PARADIGM_USER,
                                    HP_ROLE_ARTIFICIAL);
    return flush_region != NULL ? 0 : -1;
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
    hp_trace_chunk *c = hp_memory_pages(HP_PAGE_SIZE);
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
    const char *dir = getenv("TMPDIR");
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

/* Room without a flush: the rest of the current chunk, the next one kept from a flush,
 * or a new one within the quota. Async-signal-safe. */
bool hp__trace_grow(hp_trace_buffer *b, size_t slots)
{
    if (b->next != NULL && (size_t)(b->end - b->next) >= slots)
        return true;
    seal_current(b);
    return reuse_next_chunk(b) || (b->chunks < chunk_limit && append_new_chunk(b));
}

bool hp__trace_make_room(hp_trace_buffer *b, uint64_t *time, size_t slots)
{
    if (hp__trace_grow(b, slots))
        return true;
    if (b->first == NULL) { /* not even one chunk: nothing to flush */
        b->lost++;
        return false;
    }
    uint64_t start = hp_timer_now();
    if (!flush_to_spill_file(b)) {
        b->lost++;
        return false;
    }
    uint64_t end = hp_timer_now();
    b->flushes++;
    uint32_t id = flush_region != NULL ? flush_region->id : 0;
    /* The flush starts after every event written so far and the pending event moves
     * behind it, so the location's events stay in time order. */
    if (start < *time)
        start = *time;
    if (end < start)
        end = start;
    *b->next++ = (hp_trace_event){ start, HP_TRACE_ENTER, id };
    *b->next++ = (hp_trace_event){ end, HP_TRACE_LEAVE, id };
    b->events += 2;
    *time = end;
    return true;
}

int hp_trace_reader_open(hp_trace_reader *r, hp_trace_buffer *b)
{
    seal_current(b);
    r->buffer = b;
    r->chunk = b->first;
    r->fd = -1;
    r->scratch = NULL;
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
    hp_trace_buffer *b = r->buffer;
    if (b->spill_fd >= 0) {
        close(b->spill_fd);
        unlink(b->spill_path);
        b->spill_fd = -1;
    }
}
