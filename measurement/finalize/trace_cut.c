/*
 * The consistent cut (trace_cut.h): counting the message channels and collectives of a
 * process before the agreed time, and the filter that writes a location's records
 * through the agreed counts.
 *
 * Only adaptive buffers are cut (a location whose buffer fell back to flushing is
 * written whole): their events are in memory, so they can be read twice, once to count
 * and once to write.
 */
#include "trace_cut.h"

#include <stdlib.h>
#include <string.h>

#include "measurement/core/location.h"
#include "measurement/trace/trace_bins.h"
#include "util/hash.h"

/* Makes room for one more element after n in *array (capacity *cap); -1 when out of
 * memory (the array is then as it was). */
static int room_for_one(void *array, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t more = *cap ? 2 * *cap : 64;
    void *bigger = realloc(*(void **)array, more * size);
    if (bigger == NULL)
        return -1;
    *(void **)array = bigger;
    *cap = more;
    return 0;
}

static bool is_send(uint32_t kind)
{
    return kind == HP_TRACE_MPI_SEND || kind == HP_TRACE_MPI_ISEND;
}

static bool is_recv(uint32_t kind)
{
    return kind == HP_TRACE_MPI_RECV || kind == HP_TRACE_MPI_IRECV;
}

uint64_t hp_trace_cut_local_stop(const hp_trace_clock *clock)
{
    uint64_t at = HP_TRACE_CUT_NONE;
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next) {
        if (l->trace.bins == NULL || l->trace.bins->stats.stopped_at == 0)
            continue;
        uint64_t t = hp_trace_clock_map(clock, l->trace.bins->stats.stopped_at);
        if (t < at)
            at = t;
    }
    return at;
}

static uint64_t hash_key(uint32_t comm, uint32_t peer, uint32_t tag, uint32_t dir)
{
    uint64_t h = hp_hash_u64(HP_HASH_SEED, (uint64_t)comm << 32 | peer);
    return hp_hash_u64(h, (uint64_t)tag << 1 | dir);
}

static bool same_key(const hp_trace_cut_channel *ch, uint32_t comm, uint32_t peer,
                     uint32_t tag, uint32_t dir)
{
    return ch->comm == comm && ch->peer == peer && ch->tag == tag && ch->dir == dir;
}

static uint64_t channel_hash(const void *cut, uint32_t i)
{
    const hp_trace_cut_channel *ch = &((const hp_trace_cut *)cut)->channels[i];
    return hash_key(ch->comm, ch->peer, ch->tag, ch->dir);
}

static bool channel_is(const void *cut, uint32_t i, const void *key)
{
    const hp_trace_cut_channel *k = key;
    return same_key(&((const hp_trace_cut *)cut)->channels[i], k->comm, k->peer, k->tag,
                    k->dir);
}

hp_trace_cut_channel *hp_trace_cut_find(hp_trace_cut *c, uint32_t comm, uint32_t peer,
                                        uint32_t tag, uint32_t dir)
{
    if (c->index.slots == NULL)
        return NULL;
    hp_trace_cut_channel key = { .comm = comm, .peer = peer, .tag = tag, .dir = dir };
    uint32_t i = hp_hash_index_find(&c->index, hash_key(comm, peer, tag, dir), channel_is, c,
                                    &key);
    return i != UINT32_MAX ? &c->channels[i] : NULL;
}

/* The channel of the key, added when new; NULL when out of memory. */
static hp_trace_cut_channel *channel(hp_trace_cut *c, uint32_t comm, uint32_t peer,
                                     uint32_t tag, uint32_t dir)
{
    hp_trace_cut_channel *ch = hp_trace_cut_find(c, comm, peer, tag, dir);
    if (ch != NULL)
        return ch;
    if (room_for_one(&c->channels, &c->capacity, c->nchannels, sizeof(*c->channels)) < 0)
        return NULL;
    ch = &c->channels[c->nchannels];
    *ch = (hp_trace_cut_channel){ .comm = comm, .peer = peer, .tag = tag, .dir = dir };
    if (hp_hash_index_add(&c->index, hash_key(comm, peer, tag, dir), (uint32_t)c->nchannels,
                          channel_hash, c) != 0)
        return NULL;
    c->nchannels++;
    return ch;
}

/* ------------------------------------------------------------------ requests */

#define SET_EMPTY 0
#define SET_REMOVED UINT64_MAX

static size_t set_slot(const hp_trace_cut_set *s, uint64_t id, bool for_insert)
{
    size_t mask = s->size - 1, i = (size_t)(hp_hash_mix(id + 1) >> 17) & mask;
    size_t removed = SIZE_MAX;
    for (; s->keys[i] != SET_EMPTY; i = (i + 1) & mask) {
        if (s->keys[i] == id + 1)
            return i;
        if (s->keys[i] == SET_REMOVED && removed == SIZE_MAX)
            removed = i;
    }
    return for_insert && removed != SIZE_MAX ? removed : i;
}

static bool set_has(const hp_trace_cut_set *s, uint64_t id, uint64_t *value)
{
    if (s->size == 0)
        return false;
    size_t i = set_slot(s, id, false);
    if (s->keys[i] != id + 1)
        return false;
    if (value != NULL)
        *value = s->values[i];
    return true;
}

static void set_remove(hp_trace_cut_set *s, uint64_t id)
{
    if (s->size == 0)
        return;
    size_t i = set_slot(s, id, false);
    if (s->keys[i] == id + 1)
        s->keys[i] = SET_REMOVED;
}

static int set_put(hp_trace_cut_set *s, uint64_t id, uint64_t value);

/* Rebuilds the set with twice the live entries' room (dropping removed slots). */
static int set_rehash(hp_trace_cut_set *s)
{
    hp_trace_cut_set old = *s, bigger = { 0 };
    size_t live = 0;
    for (size_t i = 0; i < old.size; i++)
        live += old.keys[i] != SET_EMPTY && old.keys[i] != SET_REMOVED;
    bigger.size = 64;
    while (bigger.size < 4 * (live + 1))
        bigger.size *= 2;
    bigger.keys = calloc(bigger.size, sizeof(uint64_t));
    bigger.values = calloc(bigger.size, sizeof(uint64_t));
    if (bigger.keys == NULL || bigger.values == NULL) {
        free(bigger.keys);
        free(bigger.values);
        return -1;
    }
    *s = bigger;
    for (size_t i = 0; i < old.size; i++)
        if (old.keys[i] != SET_EMPTY && old.keys[i] != SET_REMOVED)
            set_put(s, old.keys[i] - 1, old.values[i]);
    free(old.keys);
    free(old.values);
    return 0;
}

static int set_put(hp_trace_cut_set *s, uint64_t id, uint64_t value)
{
    if (2 * (s->used + 1) > s->size && set_rehash(s) < 0)
        return -1;
    size_t i = set_slot(s, id, true);
    if (s->keys[i] == SET_EMPTY)
        s->used++;
    s->keys[i] = id + 1;
    s->values[i] = value;
    return 0;
}

static void set_release(hp_trace_cut_set *s)
{
    free(s->keys);
    free(s->values);
    *s = (hp_trace_cut_set){ 0 };
}

/* The request id of an event that carries one (payload order of trace_event.h). */
static bool request_of(const hp_trace_event *e, uint64_t *id)
{
    const hp_trace_payload *p = (const hp_trace_payload *)e;
    switch (e->kind) {
    case HP_TRACE_MPI_ISEND:
    case HP_TRACE_MPI_IRECV:
        *id = p[2].a;
        return true;
    case HP_TRACE_NBC_COMPLETE:
        *id = p[2].b;
        return true;
    case HP_TRACE_MPI_ISEND_COMPLETE:
    case HP_TRACE_MPI_IRECV_REQUEST:
    case HP_TRACE_MPI_REQUEST_CANCELLED:
    case HP_TRACE_NBC_REQUEST:
        *id = p[1].a;
        return true;
    default:
        return false;
    }
}

static bool starts_request(uint32_t kind)
{
    return kind == HP_TRACE_MPI_ISEND || kind == HP_TRACE_MPI_IRECV_REQUEST ||
           kind == HP_TRACE_NBC_REQUEST;
}

/* The per-communicator counters, grown to hold local id comm. */
static int hold_comm(hp_trace_cut *c, uint32_t comm)
{
    if (comm < c->ncomms)
        return 0;
    if (comm >= 1u << 20) /* not a communicator id */
        return -1;
    uint32_t n = comm + 16;
    uint64_t *count = realloc(c->coll_count, n * sizeof(uint64_t));
    if (count != NULL)
        c->coll_count = count;
    uint64_t *keep = realloc(c->coll_keep, n * sizeof(uint64_t));
    if (keep != NULL)
        c->coll_keep = keep;
    uint64_t *used = realloc(c->coll_used, n * sizeof(uint64_t));
    if (used != NULL)
        c->coll_used = used;
    if (count == NULL || keep == NULL || used == NULL)
        return -1;
    for (uint32_t i = c->ncomms; i < n; i++)
        c->coll_count[i] = c->coll_keep[i] = c->coll_used[i] = 0;
    c->ncomms = n;
    return 0;
}

/* Counts one event before the cut. A request started before it is followed until it
 * completes (its value: the channel of an MpiIsend, + 1). */
static void count_event(hp_trace_cut *c, const hp_trace_event *e)
{
    uint64_t req;
    uint32_t value = 0;
    if (is_send(e->kind) || is_recv(e->kind)) {
        uint64_t a = ((const hp_trace_payload *)e)[1].a;
        hp_trace_cut_channel *ch = channel(c, e->region, (uint32_t)(a >> 32), (uint32_t)a,
                                           is_send(e->kind) ? HP_TRACE_CUT_SEND
                                                            : HP_TRACE_CUT_RECV);
        if (ch == NULL)
            c->failed = 1;
        else
            ch->count++;
        value = ch != NULL ? (uint32_t)(ch - c->channels) + 1 : 0;
        if (ch != NULL && e->kind == HP_TRACE_MPI_IRECV && request_of(e, &req) &&
            set_put(&c->receives, req, (uint64_t)value << 32 | (uint32_t)ch->count) < 0)
            c->failed = 1;
    } else if (e->kind == HP_TRACE_COLL_END && hold_comm(c, e->region) == 0) {
        c->coll_count[e->region]++;
    }
    if (!request_of(e, &req))
        return;
    if (starts_request(e->kind)) {
        if (set_put(&c->requests, req, value) < 0)
            c->failed = 1;
    } else if (e->kind != HP_TRACE_MPI_ISEND) {
        set_remove(&c->requests, req);
    }
}

/* Requests still open at the cut: their start is left out too (an MpiIsend then does not
 * count for its channel). What remains in the set are the requests to leave out. */
static void leave_out_open_requests(hp_trace_cut *c)
{
    for (size_t i = 0; i < c->requests.size; i++) {
        uint64_t k = c->requests.keys[i], v = c->requests.values[i];
        if (k != SET_EMPTY && k != SET_REMOVED && v != 0 && c->channels[v - 1].count > 0)
            c->channels[v - 1].count--;
    }
}

/* Reads every adaptive location once, counting what lies before the cut. */
static void count_locations(hp_trace_cut *c)
{
    for (hp_location *l = hp_location_list(); l != NULL && !c->failed; l = l->next) {
        if (l->trace.bins == NULL)
            continue;
        hp_trace_reader r;
        if (hp_trace_reader_open(&r, &l->trace) < 0) {
            c->failed = 1;
            hp_trace_reader_close(&r);
            break;
        }
        const hp_trace_event *e;
        size_t n;
        while (hp_trace_reader_next(&r, &e, &n) == 1)
            for (size_t i = 0; i < n; i += hp_trace_slots(e[i].kind))
                if (hp_trace_clock_map(&c->clock, e[i].time) < c->at)
                    count_event(c, &e[i]);
        hp_trace_reader_close(&r);
    }
}

hp_trace_cut *hp_trace_cut_new(uint64_t at, const hp_trace_clock *clock)
{
    hp_trace_cut *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->at = at;
    c->clock = *clock;
    if (hp_hash_index_init(&c->index, 128) != 0 || hold_comm(c, 1) < 0)
        c->failed = 1;
    count_locations(c);
    leave_out_open_requests(c);
    if (c->failed) {
        hp_trace_cut_free(c);
        return NULL;
    }
    for (size_t i = 0; i < c->nchannels; i++)
        c->channels[i].keep = c->channels[i].count;
    memcpy(c->coll_keep, c->coll_count, c->ncomms * sizeof(uint64_t));
    return c;
}

void hp_trace_cut_free(hp_trace_cut *c)
{
    if (c == NULL)
        return;
    free(c->channels);
    hp_hash_index_release(&c->index);
    free(c->coll_count);
    free(c->coll_keep);
    free(c->coll_used);
    set_release(&c->requests);
    set_release(&c->receives);
    free(c);
}

/* ------------------------------------------------------------------ the filter */

void hp_trace_cut_filter_init(hp_trace_cut_filter *f, hp_trace_cut *c, hp_trace_reader *r,
                              uint32_t dropped_region)
{
    memset(f, 0, sizeof(*f));
    f->cut = c;
    f->reader = r;
    f->dropped_region = dropped_region;
}

void hp_trace_cut_filter_release(hp_trace_cut_filter *f)
{
    free(f->open);
    free(f->out);
    f->open = NULL;
    f->out = NULL;
}

/* Room for n more slots after used ones in the output. */
static int out_room(hp_trace_cut_filter *f, size_t used, size_t n)
{
    if (used + n <= f->out_capacity)
        return 0;
    size_t cap = 2 * (used + n) + 16;
    hp_trace_event *bigger = realloc(f->out, cap * sizeof(*bigger));
    if (bigger == NULL)
        return -1;
    f->out = bigger;
    f->out_capacity = cap;
    return 0;
}

/* Ticks whose global time is the cut's (the writer's mapping inverted), not before t. */
static uint64_t raw_at_cut(const hp_trace_cut *c, uint64_t t)
{
    double ticks = (double)c->clock.t0 + ((double)c->at - c->clock.offset) / c->clock.slope;
    uint64_t raw = ticks > 0 ? (uint64_t)ticks : 0;
    return raw > t ? raw : t;
}

/* Follows the regions open before the cut; false when out of memory. */
static bool track(hp_trace_cut_filter *f, const hp_trace_event *e)
{
    if (e->kind == HP_TRACE_LEAVE && f->nopen > 0) {
        f->nopen--;
    } else if (e->kind == HP_TRACE_ENTER) {
        if (room_for_one(&f->open, &f->open_capacity, f->nopen, sizeof(*f->open)) < 0)
            return false;
        f->open[f->nopen++] = e->region;
    }
    return true;
}

/* Whether an event before the cut is written: message events within their channel's
 * agreed count, collectives within their communicator's. */
static bool keep_before(hp_trace_cut_filter *f, const hp_trace_event *e)
{
    hp_trace_cut *c = f->cut;
    uint64_t req = 0;
    if (request_of(e, &req) && e->kind != HP_TRACE_MPI_IRECV && set_has(&c->requests, req, NULL))
        return false; /* open at the cut, or its MpiIsend was left out */
    uint64_t recv;
    if (e->kind == HP_TRACE_MPI_IRECV_REQUEST && set_has(&c->receives, req, &recv) &&
        (uint32_t)recv > c->channels[(recv >> 32) - 1].keep)
        return false; /* its receive will be left out (numbers count from 1) */
    if (is_send(e->kind) || is_recv(e->kind)) {
        uint64_t a = ((const hp_trace_payload *)e)[1].a;
        hp_trace_cut_channel *ch = hp_trace_cut_find(c, e->region, (uint32_t)(a >> 32),
                                                     (uint32_t)a, is_send(e->kind)
                                                                      ? HP_TRACE_CUT_SEND
                                                                      : HP_TRACE_CUT_RECV);
        if (ch == NULL || ch->used >= ch->keep) {
            if (e->kind == HP_TRACE_MPI_ISEND && set_put(&c->requests, req, 0) < 0)
                c->failed = 1; /* its completion stays: a warning of readers, no more */
            return false;
        }
        ch->used++;
    } else if (e->kind == HP_TRACE_COLL_BEGIN && e->region < c->ncomms) {
        if (c->coll_used[e->region] >= c->coll_keep[e->region]) {
            f->skip_coll_end = 1;
            return false;
        }
        c->coll_used[e->region]++;
    } else if (e->kind == HP_TRACE_COLL_END && f->skip_coll_end) {
        f->skip_coll_end = 0;
        return false;
    }
    return true;
}

/* At the first record after the cut: the Leaves of the regions open, innermost first,
 * and the Enter of the dropped range, all at the cut. */
static int open_dropped_range(hp_trace_cut_filter *f, size_t *used)
{
    if (out_room(f, *used, f->nopen + 1) < 0)
        return -1;
    uint64_t t = raw_at_cut(f->cut, f->last_kept_raw);
    f->range_raw = t;
    while (f->nopen > 0)
        f->out[(*used)++] = (hp_trace_event){ t, HP_TRACE_LEAVE, f->open[--f->nopen] };
    f->out[(*used)++] = (hp_trace_event){ t, HP_TRACE_ENTER, f->dropped_region };
    f->past = 1;
    return 0;
}

/* Filters one chunk of the reader into the output; the number of slots written. */
static int filter_chunk(hp_trace_cut_filter *f, const hp_trace_event *e, size_t n,
                        size_t *used)
{
    hp_trace_cut *c = f->cut;
    for (size_t i = 0; i < n; i += hp_trace_slots(e[i].kind)) {
        unsigned k = hp_trace_slots(e[i].kind);
        bool sample = e[i].kind == HP_TRACE_SAMPLE;
        if (e[i].time > f->last_raw)
            f->last_raw = e[i].time;
        if (!f->past && hp_trace_clock_map(&c->clock, e[i].time) >= c->at &&
            open_dropped_range(f, used) < 0)
            return -1;
        bool keep = sample || (!f->past && keep_before(f, &e[i]));
        if (!keep) {
            c->events_dropped++;
            c->messages_dropped += is_send(e[i].kind) || is_recv(e[i].kind);
            continue;
        }
        if (!sample && !track(f, &e[i]))
            return -1;
        if (out_room(f, *used, k) < 0)
            return -1;
        memcpy(&f->out[*used], &e[i], k * sizeof(*e));
        *used += k;
        f->last_kept_raw = e[i].time;
    }
    return 0;
}

int hp_trace_cut_filter_next(hp_trace_cut_filter *f, const hp_trace_event **events,
                             size_t *n)
{
    if (f->cut == NULL || f->reader->bins == NULL) /* not cut: as read */
        return hp_trace_reader_next(f->reader, events, n);
    size_t used = 0;
    while (used == 0 && !f->done) {
        const hp_trace_event *in;
        size_t nin;
        int rc = hp_trace_reader_next(f->reader, &in, &nin);
        if (rc < 0)
            return rc;
        if (rc == 0) { /* the end: the dropped range closes at the last record */
            f->done = 1;
            if (!f->past)
                break;
            uint64_t end = hp_trace_clock_map(&f->cut->clock, f->last_raw);
            if (end > f->cut->last)
                f->cut->last = end;
            if (out_room(f, 0, 1) < 0)
                return -1;
            uint64_t t = f->last_raw > f->range_raw ? f->last_raw : f->range_raw;
            f->out[used++] = (hp_trace_event){ t, HP_TRACE_LEAVE, f->dropped_region };
            break;
        }
        if (filter_chunk(f, in, nin, &used) < 0)
            return -1;
    }
    *events = f->out;
    *n = used;
    return used > 0 ? 1 : 0;
}
