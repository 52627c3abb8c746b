/*
 * OTF2 trace archive writer (trace_writer.h) on top of libotf2 3.0. At the end of the
 * measurement every process opens the archive <dir>/traces.otf2 (POSIX substrate, no
 * compression, 1 MiB event and 4 MiB definition chunks), streams the buffered events of
 * each of its locations through one OTF2 event writer at a time, and rank 0 writes the
 * global definitions in Score-P's layout (doc/formats/CUBE4-OTF2.md §5-6): clock
 * properties, the MPI paradigm, the system tree, location groups, locations, regions
 * and, for MPI runs, the MPI location group / communicator definitions.
 *
 * Why it looks the way it does:
 *  - libotf2 keeps a location's event chunks in memory until the writer is closed unless
 *    the allocator refuses a chunk; our memory callbacks cap each event buffer at a few
 *    chunks, so writing a huge trace costs a few MiB, not a copy of the trace.
 *  - libotf2 swallows some errors (a failed anchor write still lets OTF2_Archive_Close
 *    return success) and prints the rest as multi-line stderr noise. An error callback
 *    keeps the first message for our one-line error and makes every later check fail.
 *  - OTF2 rejects a timestamp smaller than the previous one of the same location; clock
 *    correction can produce that, so timestamps are clamped and the clamps counted.
 *  - Global definitions of a class need ids 0, 1, 2, ... in write order; strings are
 *    interned and each new one is written just before its first user.
 */
#include "otf2-writer/trace_writer.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "util/compiler.h"

#define ARCHIVE_NAME "traces"
#ifdef HP_VERSION
#define TRACE_CREATOR "hpmeasure " HP_VERSION
#else
#define TRACE_CREATOR "hpmeasure"
#endif

enum {
    EVENT_CHUNK_SIZE = 1 << 20,
    DEF_CHUNK_SIZE = 4 << 20,
    /* Event chunks of one location kept in memory before OTF2 writes them out. */
    EVENT_CHUNKS_IN_MEMORY = 4,
    OTF2_MESSAGE_SIZE = 512
};

/* What hp__trace_writer_set_event_chunks changed (tests only). */
static uint64_t event_chunk_size = EVENT_CHUNK_SIZE;
static unsigned event_chunks_in_memory = EVENT_CHUNKS_IN_MEMORY;

void hp__trace_writer_set_event_chunks(uint64_t chunk_size, unsigned in_memory)
{
    event_chunk_size = chunk_size;
    event_chunks_in_memory = in_memory;
}

struct hp_trace_writer {
    OTF2_Archive *archive;
    int rank;
    bool collective; /* the run is an MPI run (collectives were given) */
    bool collectives_set; /* the archive may be closed (see discard_writer) */
    char *anchor_path; /* "<dir>/traces.otf2", for messages */

    uint64_t *locations; /* locations written so far: their local definitions at close */
    size_t nlocations, locations_cap;

    const hp_trace_comm *comms; /* communicators the program created (rank 0) */
    uint32_t ncomms;

    const uint32_t *markers; /* marker regions of hybrid traces (hp_trace_marker_context) */
    unsigned nmarkers;

    bool adaptive;        /* HP_TRACE_ADAPTIVE: samples carry their number (attribute 0)
                             and name the generator of their location's halvings */
    unsigned halvings;    /* of the next location hp_trace_writer_location writes */
    OTF2_AttributeList *sample_attributes;

    bool clock_error_set;           /* write ClockOffset definitions (MPI runs) */
    uint64_t clock_time[2];         /* global times of the two offset measurements */
    double clock_error[2];          /* and the uncertainty of the mapping then, ns */

    uint64_t clamped;              /* timestamps raised to keep a location monotonic */
    uint64_t first_time, last_time; /* range of the timestamps written by this process */

    OTF2_ErrorCallback previous_error_callback;
    OTF2_ErrorCode otf2_code;             /* first error OTF2 reported, 0 if none */
    char otf2_message[OTF2_MESSAGE_SIZE]; /* its message, one line */
};

/* ------------------------------------------------------------------ errors */

/* The first error wins: a failing collective close still runs its later steps (every
 * process has to take part) but keeps the message of the step that failed first. */
static HP_PRINTF(3, 4) void set_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0 || err[0] != '\0')
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void clear_error(char *err, size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
}

static void flatten_to_one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t')
            *s = ' ';
}

/* Replaces OTF2's stderr printing while the archive is open. OTF2 reports an error at
 * every level it passes; the first report is the cause, the rest are consequences. */
static OTF2_ErrorCode remember_otf2_error(void *data, const char *file, uint64_t line,
                                          const char *function, OTF2_ErrorCode code,
                                          const char *fmt, va_list va)
{
    (void)file;
    (void)line;
    (void)function;
    hp_trace_writer *w = data;
    if (code <= OTF2_SUCCESS || w->otf2_code != OTF2_SUCCESS)
        return code; /* warnings, or an error after the first */
    w->otf2_code = code;
    vsnprintf(w->otf2_message, sizeof w->otf2_message, fmt, va);
    flatten_to_one_line(w->otf2_message);
    return code;
}

/* 0 when rc is success and OTF2 reported no error so far, else -1 with a message:
 * "<anchor>: <what> failed: <description> (<name>): <OTF2's first message>". */
static int check_otf2(hp_trace_writer *w, OTF2_ErrorCode rc, const char *what, char *err,
                      size_t errlen)
{
    if (rc == OTF2_SUCCESS && w->otf2_code == OTF2_SUCCESS)
        return 0;
    OTF2_ErrorCode code = w->otf2_code != OTF2_SUCCESS ? w->otf2_code : rc;
    /* Debian's 3.0.2 names the POSIX codes by their errno number: leave those out. */
    const char *name = OTF2_Error_GetName(code);
    bool named = name != NULL && !isdigit((unsigned char)name[0]);
    set_error(err, errlen, "%s: %s failed: %s%s%s%s%s%s", w->anchor_path, what,
              OTF2_Error_GetDescription(code), named ? " (" : "", named ? name : "",
              named ? ")" : "", w->otf2_message[0] ? ": " : "", w->otf2_message);
    return -1;
}

/* ------------------------------------------------------------------ OTF2 callbacks */

/* Every full chunk goes to disk; no post-flush callback, because that would add a
 * BufferFlush event with a "now" timestamp to traces written after the run. */
static OTF2_FlushType always_flush(void *data, OTF2_FileType type, OTF2_LocationRef location,
                                   void *caller, bool final)
{
    (void)data;
    (void)type;
    (void)location;
    (void)caller;
    (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = always_flush,
                                                     .otf2_post_flush = NULL };

typedef struct chunk_list {
    void **chunks;
    size_t n, cap;
} chunk_list;

/* Returning NULL for an event buffer that holds event_chunks_in_memory chunks makes OTF2
 * write them out, free them (free_chunks) and ask again. Definition buffers are small
 * and never refused. */
static void *allocate_chunk(void *data, OTF2_FileType type, OTF2_LocationRef location,
                            void **per_buffer, uint64_t size)
{
    (void)data;
    (void)location;
    chunk_list *l = *per_buffer;
    if (l == NULL) {
        l = calloc(1, sizeof *l);
        if (l == NULL)
            return NULL;
        *per_buffer = l;
    }
    if (type == OTF2_FILETYPE_EVENTS && l->n >= event_chunks_in_memory)
        return NULL;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        void **chunks = realloc(l->chunks, cap * sizeof *chunks);
        if (chunks == NULL)
            return NULL;
        l->chunks = chunks;
        l->cap = cap;
    }
    void *chunk = malloc(size);
    if (chunk != NULL)
        l->chunks[l->n++] = chunk;
    return chunk;
}

static void free_chunks(void *data, OTF2_FileType type, OTF2_LocationRef location,
                        void **per_buffer, bool final)
{
    (void)data;
    (void)type;
    (void)location;
    chunk_list *l = *per_buffer;
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->chunks[i]);
    l->n = 0;
    if (final) {
        free(l->chunks);
        free(l);
        *per_buffer = NULL;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = { .otf2_allocate = allocate_chunk,
                                                       .otf2_free_all = free_chunks };

/* ------------------------------------------------------------------ open */

/* OTF2 would create a missing directory tree and report a non-directory only deep in
 * its POSIX layer; checking first gives a message that names the path. */
static int check_directory(const char *directory, char *err, size_t errlen)
{
    struct stat st;
    if (stat(directory, &st) != 0) {
        set_error(err, errlen, "trace directory '%s': %s", directory, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        set_error(err, errlen, "trace directory '%s': %s", directory, strerror(ENOTDIR));
        return -1;
    }
    if (access(directory, W_OK | X_OK) != 0) {
        set_error(err, errlen, "trace directory '%s': %s", directory, strerror(errno));
        return -1;
    }
    return 0;
}

static hp_trace_writer *new_writer(const char *directory, int rank,
                                   const hp_trace_collectives *collectives)
{
    hp_trace_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    size_t len = strlen(directory) + sizeof "/" ARCHIVE_NAME ".otf2";
    w->anchor_path = malloc(len);
    if (w->anchor_path == NULL) {
        free(w);
        return NULL;
    }
    snprintf(w->anchor_path, len, "%s/%s.otf2", directory, ARCHIVE_NAME);
    w->rank = rank;
    w->collective = collectives != NULL;
    w->first_time = UINT64_MAX;
    return w;
}

static void free_writer(hp_trace_writer *w)
{
    OTF2_Error_RegisterCallback(w->previous_error_callback, NULL);
    if (w->sample_attributes != NULL)
        OTF2_AttributeList_Delete(w->sample_attributes);
    free(w->locations);
    free(w->anchor_path);
    free(w);
}

static int set_collectives(hp_trace_writer *w, const hp_trace_collectives *c, char *err,
                           size_t errlen)
{
    if (c == NULL)
        return check_otf2(w, OTF2_Archive_SetSerialCollectiveCallbacks(w->archive),
                          "OTF2_Archive_SetSerialCollectiveCallbacks", err, errlen);
    if (c->install == NULL) {
        set_error(err, errlen, "%s: collectives given without an install function",
                  w->anchor_path);
        return -1;
    }
    return check_otf2(w, c->install(w->archive, c->arg), "installing the collective callbacks",
                      err, errlen);
}

/* The order libotf2 wants: callbacks first (setting the collectives creates the
 * directories on the primary archive), then the collective OpenEvtFiles. The steps
 * before the collectives are local, so their outcome can be agreed on first. */
static int prepare_local(hp_trace_writer *w, char *err, size_t errlen)
{
    return check_otf2(w, OTF2_Archive_SetFlushCallbacks(w->archive, &flush_callbacks, NULL),
                      "OTF2_Archive_SetFlushCallbacks", err, errlen) != 0 ||
                   check_otf2(w, OTF2_Archive_SetMemoryCallbacks(w->archive, &memory_callbacks,
                                                                 NULL),
                              "OTF2_Archive_SetMemoryCallbacks", err, errlen) != 0
               ? -1
               : 0;
}

static int prepare_collective(hp_trace_writer *w, const hp_trace_collectives *collectives,
                              char *err, size_t errlen)
{
    if (set_collectives(w, collectives, err, errlen) != 0)
        return -1;
    w->collectives_set = true;
    if (check_otf2(w, OTF2_Archive_SetCreator(w->archive, TRACE_CREATOR),
                   "OTF2_Archive_SetCreator", err, errlen) != 0)
        return -1;
    return check_otf2(w, OTF2_Archive_OpenEvtFiles(w->archive), "OTF2_Archive_OpenEvtFiles",
                      err, errlen);
}

/* OTF2 3.0 aborts the process when an archive whose collective callbacks were never
 * set is closed, so such an archive (a failure before the collective steps) is left
 * open: a small leak on a path that ends the trace anyway. */
static void discard_writer(hp_trace_writer *w)
{
    if (w == NULL)
        return;
    if (w->archive != NULL && w->collectives_set)
        OTF2_Archive_Close(w->archive);
    free_writer(w);
}

/* Everything up to the first collective step; NULL with a message on failure. */
static hp_trace_writer *open_local(const char *directory, int rank,
                                   const hp_trace_collectives *collectives, char *err,
                                   size_t errlen)
{
    if (check_directory(directory, err, errlen) != 0)
        return NULL;
    hp_trace_writer *w = new_writer(directory, rank, collectives);
    if (w == NULL) {
        set_error(err, errlen, "trace directory '%s': out of memory", directory);
        return NULL;
    }
    w->previous_error_callback = OTF2_Error_RegisterCallback(remember_otf2_error, w);
    w->archive = OTF2_Archive_Open(directory, ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
                                   event_chunk_size, DEF_CHUNK_SIZE, OTF2_SUBSTRATE_POSIX,
                                   OTF2_COMPRESSION_NONE);
    if (w->archive == NULL) {
        check_otf2(w, OTF2_ERROR_FILE_INTERACTION, "OTF2_Archive_Open", err, errlen);
        free_writer(w);
        return NULL;
    }
    if (prepare_local(w, err, errlen) != 0) {
        discard_writer(w);
        return NULL;
    }
    return w;
}

hp_trace_writer *hp_trace_writer_open(const char *directory, int rank,
                                      const hp_trace_collectives *collectives,
                                      char *err, size_t errlen)
{
    clear_error(err, errlen);
    hp_trace_writer *w = open_local(directory, rank, collectives, err, errlen);
    /* No process may enter OTF2's collectives unless every process can. */
    if (collectives != NULL && collectives->agree != NULL &&
        !collectives->agree(w != NULL, collectives->arg)) {
        if (w != NULL)
            set_error(err, errlen, "%s: not opened, because another process could not open "
                      "it", w->anchor_path);
        discard_writer(w);
        return NULL;
    }
    if (w != NULL && prepare_collective(w, collectives, err, errlen) != 0) {
        discard_writer(w);
        return NULL;
    }
    return w;
}

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
    if (check_otf2(w, rc, "writing ProgramBegin", err, errlen) != 0)
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
    if (check_otf2(w, rc, "writing ProgramEnd", err, errlen) != 0)
        return -1;
    s->written++;
    return 0;
}

/* The interrupt generator of every thread's sampling timer (put_sampling); in adaptive
 * mode generator k is the timer after k halvings, and attribute 0 the sample's number. */
enum { SAMPLING_INTERRUPT_GENERATOR = 0, SAMPLE_NUMBER_ATTRIBUTE = 0 };

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
        set_error(err, errlen, "%s: location %#" PRIx64 ": event %" PRIu64
                  " has unknown kind %" PRIu32, w->anchor_path, s->id, s->written, e->kind);
        return -1;
    }
    if (check_otf2(w, rc, "writing an event", err, errlen) != 0)
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
                set_error(err, errlen, "%s: location %#" PRIx64 ": an event's arguments are "
                          "cut off", w->anchor_path, s->id);
                return -1;
            }
            if (write_event(w, s, &events[i], err, errlen) != 0)
                return -1;
        }
    if (more != 0) {
        set_error(err, errlen, "%s: location %#" PRIx64 ": reading the buffered events failed",
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
            set_error(err, errlen, "%s: location %#" PRIx64 " written twice", w->anchor_path,
                      id);
            return -1;
        }
    if (w->nlocations == w->locations_cap) {
        size_t cap = w->locations_cap ? 2 * w->locations_cap : 8;
        uint64_t *l = realloc(w->locations, cap * sizeof *l);
        if (l == NULL) {
            set_error(err, errlen, "%s: out of memory", w->anchor_path);
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
    clear_error(err, errlen);
    if (add_location(w, location_id, err, errlen) != 0)
        return -1;
    location_stream s = { .id = location_id, .clock = clock, .halvings = w->halvings };
    w->halvings = 0;
    s.writer = OTF2_Archive_GetEvtWriter(w->archive, location_id);
    if (s.writer == NULL) {
        check_otf2(w, OTF2_ERROR_INVALID_CALL, "OTF2_Archive_GetEvtWriter", err, errlen);
        return -1;
    }
    int rc = write_events(w, &s, next, ctx, err, errlen);
    uint64_t counted = 0;
    if (rc == 0)
        rc = check_otf2(w, OTF2_EvtWriter_GetNumberOfEvents(s.writer, &counted),
                        "OTF2_EvtWriter_GetNumberOfEvents", err, errlen);
    /* Closed even after a failure: it releases the chunks and must precede
     * CloseEvtFiles. */
    if (check_otf2(w, OTF2_Archive_CloseEvtWriter(w->archive, s.writer),
                   "OTF2_Archive_CloseEvtWriter", err, errlen) != 0 || rc != 0)
        return -1;
    if (counted != s.written) {
        set_error(err, errlen, "%s: location %#" PRIx64 ": OTF2 counted %" PRIu64
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

/* ------------------------------------------------------------------ strings */

/* Interned definition strings: id = index in names, found through an open-addressing
 * hash (tens of thousands of region names are common, so no linear search). */
typedef struct string_table {
    char **names;
    uint32_t n, cap;
    uint32_t *slots; /* id + 1, 0 = empty */
    uint32_t nslots; /* power of two */
} string_table;

static uint32_t hash_string(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static uint32_t *find_slot(const string_table *t, const char *s)
{
    uint32_t mask = t->nslots - 1;
    for (uint32_t i = hash_string(s) & mask;; i = (i + 1) & mask)
        if (t->slots[i] == 0 || strcmp(t->names[t->slots[i] - 1], s) == 0)
            return &t->slots[i];
}

static int grow_slots(string_table *t)
{
    uint32_t nslots = t->nslots ? 2 * t->nslots : 1024;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (slots == NULL)
        return -1;
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    for (uint32_t id = 0; id < t->n; id++)
        *find_slot(t, t->names[id]) = id + 1;
    return 0;
}

static int append_name(string_table *t, const char *s)
{
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 256;
        char **names = realloc(t->names, cap * sizeof *names);
        if (names == NULL)
            return -1;
        t->names = names;
        t->cap = cap;
    }
    t->names[t->n] = strdup(s);
    if (t->names[t->n] == NULL)
        return -1;
    t->n++;
    return 0;
}

/* The id of s, added when new. Returns OTF2_UNDEFINED_STRING when out of memory. */
static OTF2_StringRef intern(string_table *t, const char *s)
{
    if ((t->n + 1) * 2 > t->nslots && grow_slots(t) != 0)
        return OTF2_UNDEFINED_STRING;
    uint32_t *slot = find_slot(t, s);
    if (*slot != 0)
        return *slot - 1;
    if (append_name(t, s) != 0)
        return OTF2_UNDEFINED_STRING;
    *slot = t->n;
    return t->n - 1;
}

static void free_strings(string_table *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    free(t->slots);
}

/* ------------------------------------------------------------------ global definitions */

/* What writing the global definitions needs; failed stops it at the first error. */
typedef struct global_defs {
    hp_trace_writer *w;
    OTF2_GlobalDefWriter *writer;
    const hp_profile *p;
    const uint64_t *events;
    const uint32_t *process_of_rank; /* rank -> process index */
    const uint64_t *master_of_rank;  /* rank -> OTF2 id of its first location */
    bool mpi_run;      /* MPI groups and communicators */
    bool mpi_paradigm; /* the MPI Paradigm definition: an MPI run, or MPI regions */
    string_table strings;
    char *err;
    size_t errlen;
    int failed;
} global_defs;

/* Checks one definition write. After a failure the remaining writes still happen (the
 * archive is lost anyway) but only the first failure is reported. */
static void put(global_defs *d, OTF2_ErrorCode rc, const char *kind)
{
    char what[64];
    snprintf(what, sizeof what, "writing a %s definition", kind);
    if (!d->failed && check_otf2(d->w, rc, what, d->err, d->errlen) != 0)
        d->failed = 1;
}

/* The id of a definition string. A new string is written right away, so that every
 * string precedes its first user (the Python reader resolves references as it reads)
 * and string ids are consecutive in write order. */
static OTF2_StringRef str(global_defs *d, const char *s)
{
    if (s == NULL)
        s = "";
    uint32_t before = d->strings.n;
    OTF2_StringRef id = intern(&d->strings, s);
    if (id == OTF2_UNDEFINED_STRING) {
        set_error(d->err, d->errlen, "%s: out of memory for definition strings",
                  d->w->anchor_path);
        d->failed = 1;
    } else if (d->strings.n != before && !d->failed) {
        put(d, OTF2_GlobalDefWriter_WriteString(d->writer, id, s), "String");
    }
    return id;
}

static OTF2_Paradigm paradigm_of(const char *cube_paradigm)
{
    static const struct {
        const char *name;
        OTF2_Paradigm paradigm;
    } map[] = {
        { "compiler", OTF2_PARADIGM_COMPILER },
        { "mpi", OTF2_PARADIGM_MPI },
        { "user", OTF2_PARADIGM_USER },
        /* lo2s: Vampir mishandles MEASUREMENT_SYSTEM regions, so USER, as lo2s does. */
        { "measurement", OTF2_PARADIGM_USER },
        { "openmp", OTF2_PARADIGM_OPENMP },
        { "pthread", OTF2_PARADIGM_PTHREAD },
    };
    for (size_t i = 0; cube_paradigm != NULL && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(cube_paradigm, map[i].name) == 0)
            return map[i].paradigm;
    return OTF2_PARADIGM_UNKNOWN;
}

static OTF2_RegionRole role_of(const char *cube_role)
{
    static const struct {
        const char *name;
        OTF2_RegionRole role;
    } map[] = {
        { "function", OTF2_REGION_ROLE_FUNCTION },
        { "wrapper", OTF2_REGION_ROLE_WRAPPER },
        { "loop", OTF2_REGION_ROLE_LOOP },
        { "code", OTF2_REGION_ROLE_CODE },
        { "artificial", OTF2_REGION_ROLE_ARTIFICIAL },
        { "point2point", OTF2_REGION_ROLE_POINT2POINT },
        { "barrier", OTF2_REGION_ROLE_BARRIER },
        { "implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER },
        { "one2all", OTF2_REGION_ROLE_COLL_ONE2ALL },
        { "collective one2all", OTF2_REGION_ROLE_COLL_ONE2ALL },
        { "all2one", OTF2_REGION_ROLE_COLL_ALL2ONE },
        { "collective all2one", OTF2_REGION_ROLE_COLL_ALL2ONE },
        { "all2all", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "collective all2all", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "other collective", OTF2_REGION_ROLE_COLL_OTHER },
        { "collective", OTF2_REGION_ROLE_COLL_OTHER },
        { "rma", OTF2_REGION_ROLE_RMA },
        { "atomic", OTF2_REGION_ROLE_ATOMIC },
        { "io", OTF2_REGION_ROLE_FILE_IO },
        { "file io", OTF2_REGION_ROLE_FILE_IO },
        { "file io metadata", OTF2_REGION_ROLE_FILE_IO_METADATA },
        { "data transfer", OTF2_REGION_ROLE_DATA_TRANSFER },
        { "allocate", OTF2_REGION_ROLE_ALLOCATE },
        { "deallocate", OTF2_REGION_ROLE_DEALLOCATE },
        { "reallocate", OTF2_REGION_ROLE_REALLOCATE },
        { "thread create", OTF2_REGION_ROLE_THREAD_CREATE },
        { "thread wait", OTF2_REGION_ROLE_THREAD_WAIT },
        { "task", OTF2_REGION_ROLE_TASK },
        { "task create", OTF2_REGION_ROLE_TASK_CREATE },
        { "task wait", OTF2_REGION_ROLE_TASK_WAIT },
        { "parallel", OTF2_REGION_ROLE_PARALLEL },
        { "critical", OTF2_REGION_ROLE_CRITICAL },
        { "critical sblock", OTF2_REGION_ROLE_CRITICAL_SBLOCK },
        { "flush", OTF2_REGION_ROLE_FLUSH },
    };
    for (size_t i = 0; cube_role != NULL && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(cube_role, map[i].name) == 0)
            return map[i].role;
    return OTF2_REGION_ROLE_UNKNOWN;
}

static void put_paradigms(global_defs *d)
{
    if (!d->mpi_paradigm)
        return;
    OTF2_GlobalDefWriter *dw = d->writer;
    put(d, OTF2_GlobalDefWriter_WriteParadigm(dw, OTF2_PARADIGM_MPI, str(d, "MPI"),
                                              OTF2_PARADIGM_CLASS_PROCESS),
        "Paradigm");
    /* Display names of unnamed communicators and windows, as Score-P gives them. */
    OTF2_AttributeValue comm_template = { .stringRef = str(d, "Comm ${id}") };
    put(d, OTF2_GlobalDefWriter_WriteParadigmProperty(
               dw, OTF2_PARADIGM_MPI, OTF2_PARADIGM_PROPERTY_COMM_NAME_TEMPLATE,
               OTF2_TYPE_STRING, comm_template),
        "ParadigmProperty");
    OTF2_AttributeValue win_template = { .stringRef = str(d, "Win ${id}") };
    put(d, OTF2_GlobalDefWriter_WriteParadigmProperty(
               dw, OTF2_PARADIGM_MPI, OTF2_PARADIGM_PROPERTY_RMA_WIN_NAME_TEMPLATE,
               OTF2_TYPE_STRING, win_template),
        "ParadigmProperty");
}

/* Node 0 is the machine, node 1 + i the profile's node i. The classes differ from the
 * location group names because Vampir shows the class next to the node (lo2s). */
static void put_system_tree(global_defs *d)
{
    OTF2_GlobalDefWriter *dw = d->writer;
    const char *machine = d->p->machine_name ? d->p->machine_name : "Linux";
    put(d, OTF2_GlobalDefWriter_WriteSystemTreeNode(dw, 0, str(d, machine), str(d, "machine"),
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "SystemTreeNode");
    put(d, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(dw, 0,
                                                          OTF2_SYSTEM_TREE_DOMAIN_MACHINE),
        "SystemTreeNodeDomain");
    OTF2_AttributeValue platform = { .stringRef = str(d, machine) };
    put(d, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(dw, 0, str(d, "platform"),
                                                            OTF2_TYPE_STRING, platform),
        "SystemTreeNodeProperty");
    for (uint32_t i = 0; i < d->p->nnodes; i++) {
        put(d, OTF2_GlobalDefWriter_WriteSystemTreeNode(dw, 1 + i, str(d, d->p->nodes[i].name),
                                                        str(d, "node"), 0),
            "SystemTreeNode");
        put(d, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                   dw, 1 + i, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY),
            "SystemTreeNodeDomain");
    }
}

/* Location group id = rank, written in rank order (ids must be consecutive). */
static void put_location_groups(global_defs *d)
{
    bool name_ranks = d->p->nprocesses > 1; /* a 1-process MPI run is a "Process" */
    for (uint32_t rank = 0; rank < d->p->nprocesses; rank++) {
        const hp_profile_process *proc = &d->p->processes[d->process_of_rank[rank]];
        char name[32] = "Process";
        if (name_ranks)
            snprintf(name, sizeof name, "MPI Rank %" PRIu32, rank);
        put(d, OTF2_GlobalDefWriter_WriteLocationGroup(d->writer, rank, str(d, name),
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                       1 + proc->node,
                                                       OTF2_UNDEFINED_LOCATION_GROUP),
            "LocationGroup");
    }
}

static uint64_t location_id_of(const hp_profile *p, const hp_profile_location *l)
{
    return (uint64_t)(uint32_t)p->processes[l->process].rank << 32 | (uint32_t)l->thread;
}

static void put_locations(global_defs *d)
{
    for (size_t i = 0; i < d->p->nlocations; i++) {
        const hp_profile_location *l = &d->p->locations[i];
        put(d, OTF2_GlobalDefWriter_WriteLocation(
                   d->writer, location_id_of(d->p, l), str(d, l->name),
                   OTF2_LOCATION_TYPE_CPU_THREAD, d->events[i],
                   (OTF2_LocationGroupRef)d->p->processes[l->process].rank),
            "Location");
    }
}

static uint32_t line_or_zero(int line)
{
    return line > 0 ? (uint32_t)line : 0;
}

/* Region id = index in the profile, the global id the events carry. Score-P's name is
 * the demangled one, its canonical name the mangled one. */
static void put_regions(global_defs *d)
{
    for (uint32_t i = 0; i < d->p->nregions; i++) {
        const hp_profile_region *r = &d->p->regions[i];
        OTF2_StringRef name = str(d, r->name);
        OTF2_StringRef canonical = str(d, r->mangled_name ? r->mangled_name : r->name);
        OTF2_StringRef file = r->file && r->file[0] ? str(d, r->file) : OTF2_UNDEFINED_STRING;
        put(d, OTF2_GlobalDefWriter_WriteRegion(d->writer, i, name, canonical, str(d, ""),
                                                role_of(r->role), paradigm_of(r->paradigm),
                                                OTF2_REGION_FLAG_NONE, file,
                                                line_or_zero(r->begin_line),
                                                line_or_zero(r->end_line)),
            "Region");
    }
}

/* The counters (measurement/core/metrics.h): the profile's inclusive integer metrics, in the
 * order of the events' counter index; one metric member and class each, recorded per
 * thread at every Enter and Leave, accumulated since the thread began. */
static void put_metrics(global_defs *d)
{
    uint32_t k = 0;
    for (size_t i = 0; i < d->p->nmetrics; i++) {
        const hp_profile_metric *m = &d->p->metrics[i];
        if (m->kind != HP_METRIC_INCLUSIVE || m->dtype != HP_DTYPE_UINT64)
            continue;
        put(d, OTF2_GlobalDefWriter_WriteMetricMember(
                   d->writer, k, str(d, m->disp_name), str(d, m->descr ? m->descr : ""),
                   OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                   OTF2_BASE_DECIMAL, 0, str(d, m->uom ? m->uom : "")),
            "MetricMember");
        OTF2_MetricMemberRef member = k;
        put(d, OTF2_GlobalDefWriter_WriteMetricClass(d->writer, k, 1, &member,
                                                     OTF2_METRIC_SYNCHRONOUS,
                                                     OTF2_RECORDER_KIND_CPU),
            "MetricClass");
        k++;
    }
}

/* An MPI communicator as OTF2 wants it: a Comm referencing a Group whose members are
 * indices into the COMM_LOCATIONS group (= MPI_COMM_WORLD ranks). */
typedef struct mpi_comm_def {
    OTF2_GroupType type; /* COMM_GROUP, or COMM_SELF (no members) */
    hp_trace_comm comm;
} mpi_comm_def;

enum { COMM_LOCATIONS_GROUP = 0 };

/* Comm c uses group 1 + c. Groups first, as Score-P writes them. */
static void put_mpi_comms(global_defs *d, const mpi_comm_def *comms, uint32_t ncomms)
{
    for (uint32_t c = 0; c < ncomms; c++)
        put(d, OTF2_GlobalDefWriter_WriteGroup(d->writer, COMM_LOCATIONS_GROUP + 1 + c,
                                               str(d, ""), comms[c].type, OTF2_PARADIGM_MPI,
                                               OTF2_GROUP_FLAG_NONE, comms[c].comm.nmembers,
                                               comms[c].comm.members),
            "Group");
    for (uint32_t c = 0; c < ncomms; c++) {
        uint32_t parent = comms[c].comm.parent;
        put(d, OTF2_GlobalDefWriter_WriteComm(d->writer, c, str(d, comms[c].comm.name),
                                              COMM_LOCATIONS_GROUP + 1 + c,
                                              parent < c ? parent : OTF2_UNDEFINED_COMM,
                                              OTF2_COMM_FLAG_NONE),
            "Comm");
    }
}

/* Group 0: COMM_LOCATIONS (world rank i -> location of rank i's first thread), defined
 * before any group that indexes it; Comm 0 MPI_COMM_WORLD, Comm 1 MPI_COMM_SELF, then
 * the communicators the program created (hp_trace_writer_set_comms). */
static void put_mpi_groups(global_defs *d)
{
    if (!d->mpi_run)
        return;
    uint32_t nranks = (uint32_t)d->p->nprocesses, ncomms = 2 + d->w->ncomms;
    uint64_t *world = malloc(nranks * sizeof *world);
    mpi_comm_def *comms = malloc(ncomms * sizeof *comms);
    if (world == NULL || comms == NULL) {
        set_error(d->err, d->errlen, "%s: out of memory", d->w->anchor_path);
        d->failed = 1;
        free(world);
        free(comms);
        return;
    }
    for (uint32_t r = 0; r < nranks; r++)
        world[r] = r;
    put(d, OTF2_GlobalDefWriter_WriteGroup(d->writer, COMM_LOCATIONS_GROUP, str(d, ""),
                                           OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, nranks, d->master_of_rank),
        "Group");
    comms[0] = (mpi_comm_def){ OTF2_GROUP_TYPE_COMM_GROUP,
                               { "MPI_COMM_WORLD", UINT32_MAX, nranks, world } };
    comms[1] = (mpi_comm_def){ OTF2_GROUP_TYPE_COMM_SELF, { "MPI_COMM_SELF", UINT32_MAX, 0, NULL } };
    for (uint32_t c = 2; c < ncomms; c++)
        comms[c] = (mpi_comm_def){ OTF2_GROUP_TYPE_COMM_GROUP, d->w->comms[c - 2] };
    put_mpi_comms(d, comms, ncomms);
    free(comms);
    free(world);
}

void hp_trace_writer_set_markers(hp_trace_writer *w, const uint32_t *regions, unsigned n)
{
    w->markers = regions;
    w->nmarkers = regions != NULL ? n : 0;
}

void hp_trace_writer_set_comms(hp_trace_writer *w, const hp_trace_comm *comms, uint32_t n)
{
    w->comms = comms;
    w->ncomms = comms != NULL ? n : 0;
}

/* globalOffset <= every event, traceLength >= last - first: the caller's range, widened
 * by what this process wrote itself. */
static void put_clock(global_defs *d, double ticks_per_second, uint64_t first, uint64_t last)
{
    uint64_t own_first, own_last;
    if (hp_trace_writer_time_range(d->w, &own_first, &own_last)) {
        first = own_first < first ? own_first : first;
        last = own_last > last ? own_last : last;
    }
    if (first > last) /* no events at all */
        first = last = 0;
    put(d, OTF2_GlobalDefWriter_WriteClockProperties(d->writer,
                                                     (uint64_t)(ticks_per_second + 0.5),
                                                     first, last - first,
                                                     OTF2_UNDEFINED_TIMESTAMP),
        "ClockProperties");
}

/* The marker regions below every call path and at the top, in the order of
 * hp_trace_marker_context, so that their ids follow the call tree's without gaps. */
static void put_marker_contexts(global_defs *d)
{
    size_t n = d->p->ncnodes;
    if ((uint64_t)(n + 1) * (d->w->nmarkers + 1) >= UINT32_MAX - 1) {
        set_error(d->err, d->errlen, "%s: %zu call paths are too many for the calling "
                  "contexts of %u marker regions", d->w->anchor_path, n, d->w->nmarkers);
        d->failed = 1;
        return;
    }
    for (unsigned k = 0; k < d->w->nmarkers; k++) {
        if (d->w->markers[k] >= d->p->nregions) {
            set_error(d->err, d->errlen, "%s: marker region %u is not defined (%zu regions)",
                      d->w->anchor_path, d->w->markers[k], d->p->nregions);
            d->failed = 1;
            return;
        }
        for (size_t parent = 0; parent <= n; parent++)
            put(d, OTF2_GlobalDefWriter_WriteCallingContext(
                       d->writer, hp_trace_marker_context(n, k, (uint32_t)parent),
                       d->w->markers[k], OTF2_UNDEFINED_SOURCE_CODE_LOCATION,
                       parent < n ? (OTF2_CallingContextRef)parent
                                  : OTF2_UNDEFINED_CALLING_CONTEXT),
                "CallingContext");
    }
}

/* With sampling on: the interrupt generator of the samples (the timers' period, in ns)
 * and the calling contexts they name, which are the unified call tree's nodes (context i
 * = Cube call path i; no source locations: a sampled function is known by its region).
 * Without sampling nothing, so that such traces stay as they were. */
static void put_sampling(global_defs *d)
{
    const hp_profile *p = d->p;
    if (p->sampling.frequency == 0)
        return;
    uint64_t period = 1000000000u / p->sampling.frequency;
    put(d, OTF2_GlobalDefWriter_WriteInterruptGenerator(
               d->writer, SAMPLING_INTERRUPT_GENERATOR, str(d, "sampling timer"),
               OTF2_INTERRUPT_GENERATOR_MODE_TIME, OTF2_BASE_DECIMAL, -9, period),
        "InterruptGenerator");
    /* Adaptive mode: a location whose frequency was halved k times names generator k;
     * each of its kept samples stands for 2^k start periods. */
    for (unsigned k = 1; d->w->adaptive && k < 64 && (period << k) >> k == period; k++) {
        char name[64];
        snprintf(name, sizeof name, "sampling timer, halved %u times", k);
        put(d, OTF2_GlobalDefWriter_WriteInterruptGenerator(
                   d->writer, SAMPLING_INTERRUPT_GENERATOR + k, str(d, name),
                   OTF2_INTERRUPT_GENERATOR_MODE_TIME, OTF2_BASE_DECIMAL, -9, period << k),
            "InterruptGenerator");
    }
    if (d->w->adaptive)
        put(d, OTF2_GlobalDefWriter_WriteAttribute(d->writer, SAMPLE_NUMBER_ATTRIBUTE,
                                                   str(d, "sample number"),
                                                   str(d, "the sample's number n: its level in "
                                                          "the adaptive trace buffer is the "
                                                          "trailing zero bits of n"),
                                                   OTF2_TYPE_UINT64),
            "Attribute");
    for (size_t i = 0; i < p->ncnodes; i++) {
        uint32_t parent = p->cnodes[i].parent;
        put(d, OTF2_GlobalDefWriter_WriteCallingContext(
                   d->writer, (OTF2_CallingContextRef)i, p->cnodes[i].region,
                   OTF2_UNDEFINED_SOURCE_CODE_LOCATION,
                   parent == HP_PROFILE_NO_PARENT ? OTF2_UNDEFINED_CALLING_CONTEXT : parent),
            "CallingContext");
    }
    put_marker_contexts(d);
}

/* Score-P's order: clock properties, paradigms, system tree, location groups,
 * locations, regions, sampling, metrics, groups, communicators. */
static void put_definitions(global_defs *d, double ticks_per_second, uint64_t first,
                            uint64_t last)
{
    put_clock(d, ticks_per_second, first, last);
    str(d, ""); /* string 0, as in Score-P's traces */
    /* string 1: the program, named by every master location's ProgramBegin */
    str(d, d->p->ncnodes > 0 ? d->p->regions[d->p->cnodes[0].region].name : "");
    put_paradigms(d);
    put_system_tree(d);
    put_location_groups(d);
    put_locations(d);
    put_regions(d);
    put_sampling(d);
    put_metrics(d);
    put_mpi_groups(d);
}

/* ---- checks of the profile the definitions rely on */

static int fail_profile(global_defs *d, const char *what, size_t index)
{
    set_error(d->err, d->errlen, "%s: profile: %s (index %zu)", d->w->anchor_path, what,
              index);
    return -1;
}

/* process_of_rank: ranks must be exactly 0..nprocesses-1 (location group ids). */
static int map_ranks(global_defs *d, uint32_t *process_of_rank)
{
    const hp_profile *p = d->p;
    for (size_t r = 0; r < p->nprocesses; r++)
        process_of_rank[r] = UINT32_MAX;
    for (size_t i = 0; i < p->nprocesses; i++) {
        int rank = p->processes[i].rank;
        if (rank < 0 || (size_t)rank >= p->nprocesses)
            return fail_profile(d, "process rank out of 0..nprocesses-1", i);
        if (process_of_rank[rank] != UINT32_MAX)
            return fail_profile(d, "two processes with the same rank", i);
        if (p->processes[i].node >= p->nnodes)
            return fail_profile(d, "process on an undefined node", i);
        process_of_rank[rank] = (uint32_t)i;
    }
    return 0;
}

/* master_of_rank: the location of each rank's lowest thread (its COMM_LOCATIONS member). */
static int map_masters(global_defs *d, uint64_t *master_of_rank)
{
    const hp_profile *p = d->p;
    int *lowest = malloc(p->nprocesses * sizeof *lowest);
    if (lowest == NULL)
        return fail_profile(d, "out of memory", 0);
    for (size_t r = 0; r < p->nprocesses; r++)
        lowest[r] = -1;
    for (size_t i = 0; i < p->nlocations; i++) {
        const hp_profile_location *l = &p->locations[i];
        if (l->process >= p->nprocesses || l->thread < 0) {
            free(lowest);
            return fail_profile(d, "location with an undefined process or thread", i);
        }
        int rank = p->processes[l->process].rank;
        if (lowest[rank] < 0 || l->thread < lowest[rank]) {
            lowest[rank] = l->thread;
            master_of_rank[rank] = location_id_of(p, l);
        }
    }
    for (size_t r = 0; r < p->nprocesses; r++)
        if (lowest[r] < 0) {
            free(lowest);
            return fail_profile(d, "rank without a location", r);
        }
    free(lowest);
    return 0;
}

static bool has_mpi_region(const hp_profile *p)
{
    for (size_t i = 0; i < p->nregions; i++)
        if (paradigm_of(p->regions[i].paradigm) == OTF2_PARADIGM_MPI)
            return true;
    return false;
}

static int write_global_defs(global_defs *d, double ticks_per_second, uint64_t first,
                             uint64_t last)
{
    const char *machine = d->p->machine_name ? d->p->machine_name : "Linux";
    if (check_otf2(d->w, OTF2_Archive_SetMachineName(d->w->archive, machine),
                   "OTF2_Archive_SetMachineName", d->err, d->errlen) != 0)
        return -1;
    d->writer = OTF2_Archive_GetGlobalDefWriter(d->w->archive);
    if (d->writer == NULL)
        return check_otf2(d->w, OTF2_ERROR_INVALID_CALL, "OTF2_Archive_GetGlobalDefWriter",
                          d->err, d->errlen);
    put_definitions(d, ticks_per_second, first, last);
    return d->failed ? -1 : 0;
}

int hp_trace_writer_global_defs(hp_trace_writer *w, const hp_profile *p,
                                const uint64_t *events, double ticks_per_second,
                                uint64_t first_time, uint64_t last_time,
                                char *err, size_t errlen)
{
    clear_error(err, errlen);
    if (w->rank != 0) {
        set_error(err, errlen, "%s: global definitions are written on rank 0 only, not %d",
                  w->anchor_path, w->rank);
        return -1;
    }
    if (!(ticks_per_second >= 1.0) || p->nprocesses == 0 || p->nprocesses > UINT32_MAX ||
        p->nregions >= UINT32_MAX || (p->nlocations > 0 && events == NULL)) {
        set_error(err, errlen, "%s: global definitions: bad arguments (%g ticks/s, %zu "
                  "processes, %zu regions)", w->anchor_path, ticks_per_second, p->nprocesses,
                  p->nregions);
        return -1;
    }
    global_defs d = { .w = w, .p = p, .events = events, .err = err, .errlen = errlen,
                      .mpi_run = w->collective || p->nprocesses > 1 };
    d.mpi_paradigm = d.mpi_run || has_mpi_region(p);
    uint32_t *process_of_rank = malloc(p->nprocesses * sizeof *process_of_rank);
    uint64_t *master_of_rank = malloc(p->nprocesses * sizeof *master_of_rank);
    int rc = -1;
    if (process_of_rank == NULL || master_of_rank == NULL)
        set_error(err, errlen, "%s: out of memory", w->anchor_path);
    else if (map_ranks(&d, process_of_rank) == 0 && map_masters(&d, master_of_rank) == 0) {
        d.process_of_rank = process_of_rank;
        d.master_of_rank = master_of_rank;
        rc = write_global_defs(&d, ticks_per_second, first_time, last_time);
    }
    free_strings(&d.strings);
    free(process_of_rank);
    free(master_of_rank);
    return rc;
}

/* ------------------------------------------------------------------ close */

void hp_trace_writer_set_clock_error(hp_trace_writer *w, uint64_t t_init, double err_init,
                                     uint64_t t_fin, double err_fin)
{
    w->clock_error_set = true;
    w->clock_time[0] = t_init;
    w->clock_time[1] = t_fin > t_init ? t_fin : t_init;
    w->clock_error[0] = err_init;
    w->clock_error[1] = err_fin;
}

/* Two ClockOffsets per location: offset 0, since its timestamps are already global
 * (readers that apply offsets change nothing), and the standard deviation says how
 * far the mapping onto the reference host's clock may be off. */
static int write_clock_offsets(hp_trace_writer *w, OTF2_DefWriter *dw, char *err,
                               size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < 2 && w->clock_error_set; i++)
        rc |= check_otf2(w, OTF2_DefWriter_WriteClockOffset(dw, w->clock_time[i], 0,
                                                            w->clock_error[i]),
                         "OTF2_DefWriter_WriteClockOffset", err, errlen);
    return rc;
}

/* Local definitions: no ids (all ids are global), but every location needs its .def
 * file, empty like Score-P's without clock offsets: without it otf2-print complains
 * and the Python reader fails. */
static int write_local_defs(hp_trace_writer *w, char *err, size_t errlen)
{
    /* No early return: Open/CloseDefFiles are collective. */
    int rc = check_otf2(w, OTF2_Archive_OpenDefFiles(w->archive), "OTF2_Archive_OpenDefFiles",
                        err, errlen);
    for (size_t i = 0; i < w->nlocations; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->archive, w->locations[i]);
        if (dw == NULL) {
            rc |= check_otf2(w, OTF2_ERROR_INVALID_CALL, "OTF2_Archive_GetDefWriter", err,
                             errlen);
            continue;
        }
        rc |= write_clock_offsets(w, dw, err, errlen);
        rc |= check_otf2(w, OTF2_Archive_CloseDefWriter(w->archive, dw),
                         "OTF2_Archive_CloseDefWriter", err, errlen);
    }
    rc |= check_otf2(w, OTF2_Archive_CloseDefFiles(w->archive), "OTF2_Archive_CloseDefFiles",
                     err, errlen);
    return rc;
}

int hp_trace_writer_close(hp_trace_writer *w, char *err, size_t errlen)
{
    clear_error(err, errlen);
    if (w == NULL)
        return 0;
    /* Every step runs even after a failure: they are collective. check_otf2 also fails
     * when OTF2 reported an error earlier that its return codes swallowed. */
    int rc = check_otf2(w, OTF2_Archive_CloseEvtFiles(w->archive),
                        "OTF2_Archive_CloseEvtFiles", err, errlen);
    rc |= write_local_defs(w, err, errlen);
    rc |= check_otf2(w, OTF2_Archive_Close(w->archive), "OTF2_Archive_Close", err, errlen);
    free_writer(w);
    return rc != 0 ? -1 : 0;
}
