/*
 * The events of the OTF2 trace (trace_writer.h): each location's buffered records
 * (measurement/trace/trace_event.h) streamed through one OTF2 event writer at a time,
 * mapped onto the global clock. OTF2 rejects a timestamp smaller than the previous one
 * of the same location; clock correction can produce that, so timestamps are clamped
 * and the clamps counted. The archive around them is trace_archive.c.
 */
#include "otf2-writer/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ events */

uint64_t hp_trace_clock_map(const hp_trace_clock *clock, uint64_t t)
{
    /* Signed difference: a tick before t0 maps below offset instead of wrapping. */
    double global = (double)(int64_t)(t - clock->t0) * clock->slope + clock->offset;
    if (!(global > 0.0)) /* also NaN */
        return 0;
    if (global >= 18446744073709549568.0) /* largest double below 2^64 */
        return UINT64_MAX - 1;
    return (uint64_t)global;
}

typedef struct location_stream {
    OTF2_EvtWriter *writer;
    uint64_t id;
    const hp_trace_clock *clock;
    uint64_t last_time; /* of the previous event: OTF2 refuses anything smaller */
    uint64_t written;
    unsigned halvings;  /* of its sampling frequency (adaptive mode): its generator */
} location_stream;

/* The i-th payload slot after e, as written by hp_trace_add_args. */
static hp_trace_payload payload_of(const hp_trace_event *e, size_t i)
{
    const hp_trace_event *slot = e + 1 + i;
    return (hp_trace_payload){ slot->time, (uint64_t)slot->kind | (uint64_t)slot->region << 32 };
}

static OTF2_ErrorCode write_request_event(location_stream *s, const hp_trace_event *e,
                                          uint64_t t)
{
    hp_trace_payload p = payload_of(e, 0);
    uint32_t peer = (uint32_t)(p.a >> 32), tag = (uint32_t)p.a;
    switch (e->kind) {
    case HP_TRACE_MPI_ISEND:
        return OTF2_EvtWriter_MpiIsend(s->writer, NULL, t, peer, e->region, tag, p.b,
                                       payload_of(e, 1).a);
    case HP_TRACE_MPI_IRECV:
        return OTF2_EvtWriter_MpiIrecv(s->writer, NULL, t, peer, e->region, tag, p.b,
                                       payload_of(e, 1).a);
    case HP_TRACE_MPI_ISEND_COMPLETE:
        return OTF2_EvtWriter_MpiIsendComplete(s->writer, NULL, t, p.a);
    case HP_TRACE_MPI_IRECV_REQUEST:
        return OTF2_EvtWriter_MpiIrecvRequest(s->writer, NULL, t, p.a);
    case HP_TRACE_NBC_REQUEST:
        return OTF2_EvtWriter_NonBlockingCollectiveRequest(s->writer, NULL, t, p.a);
    case HP_TRACE_NBC_COMPLETE: {
        hp_trace_payload q = payload_of(e, 1);
        return OTF2_EvtWriter_NonBlockingCollectiveComplete(s->writer, NULL, t,
                                                            (OTF2_CollectiveOp)(p.a >> 32),
                                                            e->region, (uint32_t)p.a, p.b,
                                                            q.a, q.b);
    }
    default: /* HP_TRACE_MPI_REQUEST_CANCELLED */
        return OTF2_EvtWriter_MpiRequestCancelled(s->writer, NULL, t, p.a);
    }
}

static OTF2_ErrorCode write_mpi_event(location_stream *s, const hp_trace_event *e, uint64_t t)
{
    hp_trace_payload p = payload_of(e, 0);
    uint32_t peer = (uint32_t)(p.a >> 32), tag = (uint32_t)p.a;
    switch (e->kind) {
    case HP_TRACE_MPI_SEND:
        return OTF2_EvtWriter_MpiSend(s->writer, NULL, t, peer, e->region, tag, p.b);
    case HP_TRACE_MPI_RECV:
        return OTF2_EvtWriter_MpiRecv(s->writer, NULL, t, peer, e->region, tag, p.b);
    case HP_TRACE_COLL_BEGIN:
        return OTF2_EvtWriter_MpiCollectiveBegin(s->writer, NULL, t);
    case HP_TRACE_COLL_END: {
        uint32_t root = (uint32_t)p.a;
        return OTF2_EvtWriter_MpiCollectiveEnd(s->writer, NULL, t,
                                               (OTF2_CollectiveOp)(p.a >> 32), e->region,
                                               root, p.b, payload_of(e, 1).a);
    }
    default:
        return write_request_event(s, e, t);
    }
}

/* The program's begin and end, on each process's master thread, as Score-P writes them
 * (name: global string 1, no arguments, exit status undefined). */
enum { PROGRAM_NAME_STRING = 1 };

static bool is_master(const location_stream *s)
{
    return (s->id & 0xffffffffu) == 0;
}

static int write_program_begin(hp_trace_writer *w, location_stream *s, uint64_t t,
                               char *err, size_t errlen)
{
    OTF2_ErrorCode rc = OTF2_EvtWriter_ProgramBegin(s->writer, NULL, t, PROGRAM_NAME_STRING,
                                                    0, NULL);
    if (hp__otf2_check(w, rc, "writing ProgramBegin", err, errlen) != 0)
        return -1;
    if (s->written++ == 0 && t < w->first_time)
        w->first_time = t;
    return 0;
}

static int write_program_end(hp_trace_writer *w, location_stream *s, char *err,
                             size_t errlen)
{
    OTF2_ErrorCode rc = OTF2_EvtWriter_ProgramEnd(s->writer, NULL, s->last_time,
                                                  OTF2_UNDEFINED_INT64);
    if (hp__otf2_check(w, rc, "writing ProgramEnd", err, errlen) != 0)
        return -1;
    s->written++;
    return 0;
}

static int write_event(hp_trace_writer *w, location_stream *s, const hp_trace_event *e,
                       char *err, size_t errlen)
{
    /* A communicator that is not defined in the trace (the caller maps it to
     * UINT32_MAX): its event is left out, and not counted. */
    if (hp_trace_has_comm(e->kind) && e->region == UINT32_MAX)
        return 0;
    /* Likewise a sample or region without a calling context. */
    if ((e->kind == HP_TRACE_SAMPLE && payload_of(e, 0).a >= UINT32_MAX) ||
        (e->kind == HP_TRACE_CC_ENTER && payload_of(e, 0).a >= UINT32_MAX - 1) ||
        (e->kind == HP_TRACE_CC_LEAVE && e->region >= UINT32_MAX - 1))
        return 0;
    uint64_t t = hp_trace_clock_map(s->clock, e->time);
    if (t < s->last_time) {
        t = s->last_time;
        w->clamped++;
    }
    s->last_time = t;
    OTF2_ErrorCode rc;
    if (s->written == 0 && is_master(s) && write_program_begin(w, s, t, err, errlen) != 0)
        return -1;
    switch (e->kind) {
    case HP_TRACE_ENTER:
        rc = OTF2_EvtWriter_Enter(s->writer, NULL, t, e->region);
        break;
    case HP_TRACE_LEAVE:
        rc = OTF2_EvtWriter_Leave(s->writer, NULL, t, e->region);
        break;
    case HP_TRACE_MPI_SEND:
    case HP_TRACE_MPI_RECV:
    case HP_TRACE_COLL_BEGIN:
    case HP_TRACE_COLL_END:
    case HP_TRACE_MPI_ISEND:
    case HP_TRACE_MPI_ISEND_COMPLETE:
    case HP_TRACE_MPI_IRECV_REQUEST:
    case HP_TRACE_MPI_IRECV:
    case HP_TRACE_MPI_REQUEST_CANCELLED:
    case HP_TRACE_NBC_REQUEST:
    case HP_TRACE_NBC_COMPLETE:
        rc = write_mpi_event(s, e, t);
        break;
    case HP_TRACE_METRIC: {
        /* one counter per metric class (put_metrics), its value since the thread began */
        OTF2_Type type = OTF2_TYPE_UINT64;
        OTF2_MetricValue value = { .unsigned_int = payload_of(e, 0).a };
        rc = OTF2_EvtWriter_Metric(s->writer, NULL, t, e->region, 1, &type, &value);
        break;
    }
    case HP_TRACE_CC_ENTER:
        rc = OTF2_EvtWriter_CallingContextEnter(s->writer, NULL, t,
                                                (OTF2_CallingContextRef)payload_of(e, 0).a,
                                                e->region);
        break;
    case HP_TRACE_CC_LEAVE:
        rc = OTF2_EvtWriter_CallingContextLeave(s->writer, NULL, t, e->region);
        break;
    case HP_TRACE_SAMPLE: {
        OTF2_AttributeList *attributes = NULL;
        if (w->adaptive) { /* the list is emptied by the event that takes it */
            attributes = w->sample_attributes;
            OTF2_AttributeList_AddUint64(attributes, SAMPLE_NUMBER_ATTRIBUTE,
                                         payload_of(e, 0).b);
        }
        rc = OTF2_EvtWriter_CallingContextSample(s->writer, attributes, t,
                                                 (OTF2_CallingContextRef)payload_of(e, 0).a,
                                                 e->region,
                                                 SAMPLING_INTERRUPT_GENERATOR + s->halvings);
        break;
    }
    default:
        hp__otf2_error(err, errlen, "%s: location %#" PRIx64 ": event %" PRIu64
                       " has unknown kind %" PRIu32, w->anchor_path, s->id, s->written, e->kind);
        return -1;
    }
    if (hp__otf2_check(w, rc, "writing an event", err, errlen) != 0)
        return -1;
    if (s->written++ == 0 && t < w->first_time)
        w->first_time = t; /* a location's first event is its earliest */
    return 0;
}

static int write_events(hp_trace_writer *w, location_stream *s,
                        int (*next)(void *, const hp_trace_event **, size_t *), void *ctx,
                        char *err, size_t errlen)
{
    const hp_trace_event *events;
    size_t n;
    int more;
    while ((more = next(ctx, &events, &n)) == 1)
        for (size_t i = 0; i < n; i += hp_trace_slots(events[i].kind)) {
            if (i + hp_trace_slots(events[i].kind) > n) {
                hp__otf2_error(err, errlen, "%s: location %#" PRIx64 ": an event's arguments are "
                               "cut off", w->anchor_path, s->id);
                return -1;
            }
            if (write_event(w, s, &events[i], err, errlen) != 0)
                return -1;
        }
    if (more != 0) {
        hp__otf2_error(err, errlen, "%s: location %#" PRIx64 ": reading the buffered events failed",
                       w->anchor_path, s->id);
        return -1;
    }
    if (s->written > 0 && is_master(s) && write_program_end(w, s, err, errlen) != 0)
        return -1;
    if (s->written > 0 && s->last_time > w->last_time)
        w->last_time = s->last_time;
    return 0;
}

/* Remembers the location for its local definitions at close; a location written twice
 * would make OTF2 append to or replace its file, so it is refused. */
static int add_location(hp_trace_writer *w, uint64_t id, char *err, size_t errlen)
{
    for (size_t i = 0; i < w->nlocations; i++)
        if (w->locations[i] == id) {
            hp__otf2_error(err, errlen, "%s: location %#" PRIx64 " written twice", w->anchor_path,
                           id);
            return -1;
        }
    if (w->nlocations == w->locations_cap) {
        size_t cap = w->locations_cap ? 2 * w->locations_cap : 8;
        uint64_t *l = realloc(w->locations, cap * sizeof *l);
        if (l == NULL) {
            hp__otf2_error(err, errlen, "%s: out of memory", w->anchor_path);
            return -1;
        }
        w->locations = l;
        w->locations_cap = cap;
    }
    w->locations[w->nlocations++] = id;
    return 0;
}

int hp_trace_writer_set_adaptive(hp_trace_writer *w)
{
    if (w->sample_attributes == NULL && (w->sample_attributes = OTF2_AttributeList_New()) == NULL)
        return -1;
    w->adaptive = true;
    return 0;
}

void hp_trace_writer_set_halvings(hp_trace_writer *w, unsigned halvings)
{
    w->halvings = halvings;
}

int64_t hp_trace_writer_location(hp_trace_writer *w, uint64_t location_id,
                                 const hp_trace_clock *clock,
                                 int (*next)(void *ctx, const hp_trace_event **events,
                                             size_t *n),
                                 void *ctx, char *err, size_t errlen)
{
    hp__otf2_clear(err, errlen);
    if (add_location(w, location_id, err, errlen) != 0)
        return -1;
    location_stream s = { .id = location_id, .clock = clock, .halvings = w->halvings };
    w->halvings = 0;
    s.writer = OTF2_Archive_GetEvtWriter(w->archive, location_id);
    if (s.writer == NULL) {
        hp__otf2_check(w, OTF2_ERROR_INVALID_CALL, "OTF2_Archive_GetEvtWriter", err, errlen);
        return -1;
    }
    int rc = write_events(w, &s, next, ctx, err, errlen);
    uint64_t counted = 0;
    if (rc == 0)
        rc = hp__otf2_check(w, OTF2_EvtWriter_GetNumberOfEvents(s.writer, &counted),
                            "OTF2_EvtWriter_GetNumberOfEvents", err, errlen);
    /* Closed even after a failure: it releases the chunks and must precede
     * CloseEvtFiles. */
    if (hp__otf2_check(w, OTF2_Archive_CloseEvtWriter(w->archive, s.writer),
                       "OTF2_Archive_CloseEvtWriter", err, errlen) != 0 || rc != 0)
        return -1;
    if (counted != s.written) {
        hp__otf2_error(err, errlen, "%s: location %#" PRIx64 ": OTF2 counted %" PRIu64
                       " events, %" PRIu64 " were written", w->anchor_path, location_id, counted,
                       s.written);
        return -1;
    }
    return (int64_t)counted;
}

uint64_t hp_trace_writer_clamped(const hp_trace_writer *w)
{
    return w->clamped;
}

int hp_trace_writer_time_range(const hp_trace_writer *w, uint64_t *first, uint64_t *last)
{
    if (w->first_time > w->last_time)
        return 0;
    *first = w->first_time;
    *last = w->last_time;
    return 1;
}
