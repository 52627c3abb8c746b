/*
 * The adaptive trace buffer (trace_bins.h): bins handed to streams from a free list,
 * sample levels given back whole when the bins run out, and the reader that merges the
 * streams in time order at the end.
 *
 * A bin starts with a small head (the next bin of its list and the slots it holds); the
 * free list and every stream are lists of bin indices through these heads, so giving a
 * level back is one splice of its list onto the free list, whatever its size. Bins that
 * were never used are taken from `fresh` upwards, so a large buffer costs memory only as
 * far as it is filled.
 */
#include "trace_bins.h"

#include <stdlib.h>

typedef struct bin_head {
    uint32_t next;
    uint32_t used;     /* slots, written when the stream moves on (or the reader opens) */
    uint64_t reserved; /* keeps the slots 16-byte aligned */
} bin_head;

_Static_assert(sizeof(bin_head) == sizeof(hp_trace_event), "a head takes one slot");

static bin_head *head_of(const hp_trace_bins *b, uint32_t i)
{
    return (bin_head *)(b->base + (size_t)i * b->bin_size);
}

static hp_trace_event *slots_of(const hp_trace_bins *b, uint32_t i)
{
    return (hp_trace_event *)(head_of(b, i) + 1);
}

static void stream_init(hp_bins_stream *s)
{
    s->next = s->end = NULL;
    s->first = s->last = HP_BINS_NIL;
    s->nbins = 0;
}

hp_trace_bins *hp_trace_bins_init(void *region, size_t size, const hp_trace_bins_config *cfg)
{
    size_t bin_size = cfg->bin_size != 0 ? cfg->bin_size : HP_BINS_DEFAULT_BIN_SIZE;
    unsigned share = cfg->event_share != 0 ? cfg->event_share : HP_BINS_DEFAULT_EVENT_SHARE;
    unsigned sample_slots = cfg->sample_slots != 0 ? cfg->sample_slots : 1;
    size_t control = (sizeof(hp_trace_bins) + 63) & ~(size_t)63;
    if (region == NULL || bin_size % sizeof(hp_trace_event) != 0 ||
        bin_size < 17 * sizeof(hp_trace_event) || share > 100 ||
        sample_slots > HP_BINS_MAX_SAMPLE_SLOTS || size < control ||
        (size - control) / bin_size < 2 || (size - control) / bin_size >= HP_BINS_NIL)
        return NULL;
    hp_trace_bins *b = region;
    memset(b, 0, sizeof(*b));
    b->base = (char *)region + control;
    b->bin_size = bin_size;
    b->nbins = (uint32_t)((size - control) / bin_size);
    b->bin_slots = (uint32_t)(bin_size / sizeof(hp_trace_event) - 1);
    b->event_bin_limit = (uint32_t)((uint64_t)b->nbins * share / 100);
    if (b->event_bin_limit == 0)
        b->event_bin_limit = 1;
    b->sample_slots = sample_slots;
    b->start_period = cfg->start_period;
    b->rearm = cfg->rearm;
    b->rearm_arg = cfg->rearm_arg;
    b->stop_region = cfg->stop_region;
    b->event_reserve = b->bin_slots / 4 < HP_BINS_EVENT_RESERVE ? b->bin_slots / 4
                                                                : HP_BINS_EVENT_RESERVE;
    b->next_number = 1;
    b->free_head = HP_BINS_NIL;
    stream_init(&b->events);
    for (unsigned k = 0; k < HP_BINS_LEVELS; k++)
        stream_init(&b->levels[k]);
    b->stats.bins = b->nbins;
    return b;
}

/* A free bin, or HP_BINS_NIL. */
static uint32_t pop_bin(hp_trace_bins *b)
{
    uint32_t i = b->free_head;
    if (i != HP_BINS_NIL) {
        b->free_head = head_of(b, i)->next;
        return i;
    }
    return b->fresh < b->nbins ? b->fresh++ : HP_BINS_NIL;
}

/* Writes the slot count of s's current bin into its head. */
static void seal(hp_trace_bins *b, hp_bins_stream *s)
{
    if (s->last != HP_BINS_NIL && s->next != NULL)
        head_of(b, s->last)->used = (uint32_t)(s->next - slots_of(b, s->last));
}

/* Makes bin i the current bin of s, at the end of its list. */
static void stream_add_bin(hp_trace_bins *b, hp_bins_stream *s, uint32_t i)
{
    seal(b, s);
    bin_head *h = head_of(b, i);
    h->next = HP_BINS_NIL;
    h->used = 0;
    if (s->last != HP_BINS_NIL)
        head_of(b, s->last)->next = i;
    else
        s->first = i;
    s->last = i;
    s->nbins++;
    s->next = slots_of(b, i);
    s->end = s->next + b->bin_slots;
}

/* Records stored in a level's bins: every bin but the last is as full as records fit. */
static uint64_t level_records(const hp_trace_bins *b, const hp_bins_stream *l)
{
    if (l->nbins == 0)
        return 0;
    uint64_t per_bin = b->bin_slots / b->sample_slots;
    return (l->nbins - 1) * per_bin +
           (uint64_t)(l->next - slots_of(b, l->last)) / b->sample_slots;
}

static bool samples_hold_bins(const hp_trace_bins *b)
{
    for (unsigned k = atomic_load(&b->closed); k < HP_BINS_LEVELS; k++)
        if (b->levels[k].nbins > 0)
            return true;
    return false;
}

/*
 * Gives every bin of the lowest open level back, closes the level and doubles the
 * sample interval. False (and nothing changed) when no open level holds a bin. Runs
 * either in the sample path, or in the event path with busy set; in the latter case a
 * sample may interrupt it, so the level is closed before its bins move: the interrupting
 * sample then sees a closed level (or the busy flag), never bins in transit.
 */
static bool close_lowest_level(hp_trace_bins *b, uint64_t time)
{
    unsigned k = atomic_load(&b->closed);
    if (k + 2 >= HP_BINS_LEVELS || !samples_hold_bins(b)) /* shifts stay below 64 bits */
        return false;
    hp_bins_stream *l = &b->levels[k];
    uint64_t revoked = level_records(b, l);
    atomic_store(&b->closed, k + 1);
    atomic_signal_fence(memory_order_seq_cst);
    if (l->first != HP_BINS_NIL) {
        head_of(b, l->last)->next = b->free_head;
        b->free_head = l->first;
    }
    b->stats.bins_revoked += l->nbins;
    b->stats.samples_revoked += revoked;
    stream_init(l);
    uint64_t period = b->start_period << (k + 1);
    bool rearmed = b->rearm != NULL && b->rearm(b->rearm_arg, period) == 0;
    if (rearmed) /* the timer follows: later numbers skip the closed levels */
        atomic_store(&b->shift, k + 1);
    b->halving[k] = (hp_trace_bins_halving){ time, period, k, rearmed };
    b->stats.halvings = k + 1;
    return true;
}

uint64_t hp_trace_bins_period(const hp_trace_bins *b)
{
    return b->start_period << atomic_load(&b->closed);
}

hp_bins_result hp__trace_bins_sample_slow(hp_trace_bins *b, const hp_trace_event *rec,
                                          uint64_t n, unsigned level)
{
    if (b->busy) { /* the event path is inside the free list: leave it alone */
        b->stats.samples_busy++;
        return HP_BINS_BUSY;
    }
    uint32_t i;
    while ((i = pop_bin(b)) == HP_BINS_NIL) {
        if (!close_lowest_level(b, rec[0].time)) {
            b->stats.samples_lost++;
            return HP_BINS_LOST;
        }
        if (level < atomic_load(&b->closed)) { /* this sample's own level went */
            b->next_number = hp__trace_bins_after(n, atomic_load(&b->shift));
            b->stats.samples_closed++;
            return HP_BINS_CLOSED;
        }
    }
    hp_bins_stream *l = &b->levels[level];
    stream_add_bin(b, l, i);
    memcpy(l->next, rec, b->sample_slots * sizeof(*rec));
    l->next += b->sample_slots;
    b->next_number = hp__trace_bins_after(n, atomic_load(&b->shift));
    b->stats.samples_stored++;
    return HP_BINS_STORED;
}

/* A bin for the events, from the free list or by closing sample levels; HP_BINS_NIL when
 * the samples hold nothing more. The busy flag keeps samples off the free list meanwhile. */
static uint32_t take_event_bin(hp_trace_bins *b, uint64_t time)
{
    b->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    uint32_t i;
    while ((i = pop_bin(b)) == HP_BINS_NIL && close_lowest_level(b, time))
        ;
    if (i != HP_BINS_NIL) {
        stream_add_bin(b, &b->events, i);
        if (b->events.nbins >= b->event_bin_limit) /* the share's last bin: keep a reserve */
            b->events.end -= b->event_reserve;
    }
    atomic_signal_fence(memory_order_seq_cst);
    b->busy = 0;
    return i;
}

static hp_bins_result lose_event(hp_trace_bins *b, uint32_t kind, bool closing)
{
    if (kind == HP_TRACE_ENTER)
        b->open_stopped++;
    if (closing) { /* a recorded Enter stays without its Leave */
        if (b->open_recorded > 0)
            b->open_recorded--;
        b->stats.unclosed++;
    }
    b->stats.events_lost++;
    return HP_BINS_LOST;
}

/* Events reached their share: from now on they are dropped, but for the Leaves of
 * recorded Enters, which go into the reserve held back in the last bin. The stop is
 * marked in the events themselves by the stop region (Enter and Leave at the time of
 * the stop), and in the statistics. */
static void stop_events(hp_trace_bins *b, uint64_t time)
{
    hp_bins_stream *e = &b->events;
    b->stopped = true;
    b->stats.stopped_at = time != 0 ? time : 1;
    if (e->next != NULL)
        e->end = slots_of(b, e->last) + b->bin_slots; /* the reserve is open now */
    if (b->stop_region == HP_BINS_NIL || e->next == NULL || e->end - e->next < 2)
        return;
    *e->next++ = (hp_trace_event){ time, HP_TRACE_ENTER, b->stop_region };
    *e->next++ = (hp_trace_event){ time, HP_TRACE_LEAVE, b->stop_region };
}

static bool is_message(uint32_t kind)
{
    return kind == HP_TRACE_MPI_SEND || kind == HP_TRACE_MPI_RECV ||
           kind == HP_TRACE_MPI_ISEND || kind == HP_TRACE_MPI_IRECV;
}

hp_trace_event *hp_trace_bins_event_room(hp_trace_bins *b, uint64_t time, uint32_t kind,
                                         hp_bins_result *why)
{
    unsigned k = hp_trace_slots(kind);
    bool closing = false; /* a Leave of a recorded Enter: kept while the reserve has room */
    if (kind == HP_TRACE_LEAVE) {
        /* Enters dropped after the stop are the innermost open ones: so a Leave closes a
         * dropped Enter exactly while their count is positive. */
        if (b->open_stopped > 0) {
            b->open_stopped--;
            b->stats.events_lost++;
            *why = HP_BINS_LOST;
            return NULL;
        }
        closing = true;
    } else if (b->stopped) {
        b->stats.messages_lost += is_message(kind);
        *why = lose_event(b, kind, false);
        return NULL;
    }
    hp_bins_stream *e = &b->events;
    if (e->next == NULL || (size_t)(e->end - e->next) < k) {
        if (!b->stopped && e->nbins >= b->event_bin_limit)
            stop_events(b, time);
        if (b->stopped && (!closing || e->next == NULL || (size_t)(e->end - e->next) < k)) {
            b->stats.messages_lost += is_message(kind);
            *why = lose_event(b, kind, closing);
            return NULL;
        }
        if (!b->stopped && take_event_bin(b, time) == HP_BINS_NIL) {
            /* only when the samples hold no bin at all: a buffer too small to share */
            stop_events(b, time);
            *why = lose_event(b, kind, closing);
            return NULL;
        }
    }
    hp_trace_event *dst = e->next;
    e->next += k;
    if (b->open_recorded > 0 || kind != HP_TRACE_LEAVE)
        b->open_recorded += (kind == HP_TRACE_ENTER) - (kind == HP_TRACE_LEAVE);
    b->stats.events_stored++;
    *why = HP_BINS_STORED;
    return dst;
}

hp_bins_result hp__trace_bins_event_slow(hp_trace_bins *b, const hp_trace_event *slots)
{
    hp_bins_result why;
    hp_trace_event *dst = hp_trace_bins_event_room(b, slots[0].time, slots[0].kind, &why);
    if (dst != NULL)
        memcpy(dst, slots, hp_trace_slots(slots[0].kind) * sizeof(*slots));
    return why;
}

void hp_trace_bins_get_stats(const hp_trace_bins *b, hp_trace_bins_stats *out)
{
    *out = b->stats;
    out->bins_events = b->events.nbins;
    out->bins_samples = 0;
    for (unsigned k = 0; k < HP_BINS_LEVELS; k++)
        out->bins_samples += b->levels[k].nbins;
}

/* ---------------------------------------------------------------- reading */

static void cursor_at(const hp_trace_bins *b, hp_bins_cursor *c, uint32_t bin)
{
    while (bin != HP_BINS_NIL && head_of(b, bin)->used == 0)
        bin = head_of(b, bin)->next;
    c->bin = bin;
    if (bin == HP_BINS_NIL) {
        c->next = c->end = NULL;
        return;
    }
    c->next = slots_of(b, bin);
    c->end = c->next + head_of(b, bin)->used;
}

void hp_trace_bins_reader_open(hp_trace_bins_reader *r, hp_trace_bins *b)
{
    r->bins = b;
    r->open = NULL;
    r->nopen = r->capacity = 0;
    r->untracked = false;
    r->last_time = 0;
    seal(b, &b->events);
    cursor_at(b, &r->cursor[0], b->events.first);
    r->cursor[0].index = 0;
    for (unsigned k = 0; k < HP_BINS_LEVELS; k++) {
        seal(b, &b->levels[k]);
        cursor_at(b, &r->cursor[1 + k], b->levels[k].first);
        r->cursor[1 + k].index = 0;
    }
}

/* Follows the open regions of the events read (at the end of measurement: malloc is
 * fine here). */
static void track_open(hp_trace_bins_reader *r, const hp_trace_event *e)
{
    if (r->untracked)
        return;
    if (e->kind == HP_TRACE_LEAVE && r->nopen > 0) {
        r->nopen--;
    } else if (e->kind == HP_TRACE_ENTER) {
        if (r->nopen == r->capacity) {
            size_t cap = r->capacity ? 2 * r->capacity : 64;
            uint32_t *bigger = realloc(r->open, cap * sizeof(*bigger));
            if (bigger == NULL) {
                r->untracked = true;
                return;
            }
            r->open = bigger;
            r->capacity = cap;
        }
        r->open[r->nopen++] = e->region;
    }
}

/* The Leave of the innermost region still open at the end, if events stopped. */
static bool made_up_leave(hp_trace_bins_reader *r, hp_trace_bins_record *out)
{
    if (r->untracked || r->nopen == 0 || r->bins->stats.unclosed == 0)
        return false;
    r->leave = (hp_trace_event){ r->last_time, HP_TRACE_LEAVE, r->open[--r->nopen] };
    *out = (hp_trace_bins_record){ .slots = &r->leave, .nslots = 1, .made_up = true };
    return true;
}

bool hp_trace_bins_reader_next(hp_trace_bins_reader *r, hp_trace_bins_record *out)
{
    const hp_trace_bins *b = r->bins;
    int best = -1;
    for (int s = 0; s <= HP_BINS_LEVELS; s++) { /* ties: the lower stream first */
        const hp_bins_cursor *c = &r->cursor[s];
        if (c->next != NULL && (best < 0 || c->next->time < r->cursor[best].next->time))
            best = s;
    }
    if (best < 0)
        return made_up_leave(r, out);
    hp_bins_cursor *c = &r->cursor[best];
    out->slots = c->next;
    out->sample = best > 0;
    out->made_up = false;
    out->level = best > 0 ? (unsigned)best - 1 : 0;
    out->nslots = best > 0 ? b->sample_slots : hp_trace_slots(c->next->kind);
    out->number = best > 0 ? (2 * c->index + 1) << out->level : 0;
    if (best == 0)
        track_open(r, c->next);
    if (c->next->time > r->last_time)
        r->last_time = c->next->time;
    c->index++;
    c->next += out->nslots;
    if (c->next >= c->end)
        cursor_at(b, c, head_of(b, c->bin)->next);
    return true;
}

void hp_trace_bins_reader_close(hp_trace_bins_reader *r)
{
    free(r->open);
    r->open = NULL;
    r->nopen = r->capacity = 0;
}
