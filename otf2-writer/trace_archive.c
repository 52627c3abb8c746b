/*
 * The OTF2 archive of the trace (trace_writer.h) on top of libotf2 3.0: opening
 * <dir>/traces.otf2 on every process (POSIX substrate, no compression, 1 MiB event and
 * 4 MiB definition chunks), the errors of every OTF2 call, and the collective close with
 * each location's local definitions. The events of the locations are trace_events.c,
 * rank 0's global definitions trace_defs.c; the three share internal.h.
 *
 * Why it looks the way it does:
 *  - libotf2 keeps a location's event chunks in memory until the writer is closed unless
 *    the allocator refuses a chunk; our memory callbacks cap each event buffer at a few
 *    chunks, so writing a huge trace costs a few MiB, not a copy of the trace.
 *  - libotf2 swallows some errors (a failed anchor write still lets OTF2_Archive_Close
 *    return success) and prints the rest as multi-line stderr noise. An error callback
 *    keeps the first message for our one-line error and makes every later check fail.
 */
#include "otf2-writer/internal.h"

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
    EVENT_CHUNKS_IN_MEMORY = 4
};

/* What hp__trace_writer_set_event_chunks changed (tests only). */
static uint64_t event_chunk_size = EVENT_CHUNK_SIZE;
static unsigned event_chunks_in_memory = EVENT_CHUNKS_IN_MEMORY;

void hp__trace_writer_set_event_chunks(uint64_t chunk_size, unsigned in_memory)
{
    event_chunk_size = chunk_size;
    event_chunks_in_memory = in_memory;
}

/* ------------------------------------------------------------------ errors */

void hp__otf2_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0 || err[0] != '\0')
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void hp__otf2_clear(char *err, size_t errlen)
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

int hp__otf2_check(hp_trace_writer *w, OTF2_ErrorCode rc, const char *what, char *err,
                      size_t errlen)
{
    if (rc == OTF2_SUCCESS && w->otf2_code == OTF2_SUCCESS)
        return 0;
    OTF2_ErrorCode code = w->otf2_code != OTF2_SUCCESS ? w->otf2_code : rc;
    /* Debian's 3.0.2 names the POSIX codes by their errno number: leave those out. */
    const char *name = OTF2_Error_GetName(code);
    bool named = name != NULL && !isdigit((unsigned char)name[0]);
    hp__otf2_error(err, errlen, "%s: %s failed: %s%s%s%s%s%s", w->anchor_path, what,
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
        hp__otf2_error(err, errlen, "trace directory '%s': %s", directory, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        hp__otf2_error(err, errlen, "trace directory '%s': %s", directory, strerror(ENOTDIR));
        return -1;
    }
    if (access(directory, W_OK | X_OK) != 0) {
        hp__otf2_error(err, errlen, "trace directory '%s': %s", directory, strerror(errno));
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
        return hp__otf2_check(w, OTF2_Archive_SetSerialCollectiveCallbacks(w->archive),
                              "OTF2_Archive_SetSerialCollectiveCallbacks", err, errlen);
    if (c->install == NULL) {
        hp__otf2_error(err, errlen, "%s: collectives given without an install function",
                       w->anchor_path);
        return -1;
    }
    return hp__otf2_check(w, c->install(w->archive, c->arg), "installing the collective callbacks",
                          err, errlen);
}

/* The order libotf2 wants: callbacks first (setting the collectives creates the
 * directories on the primary archive), then the collective OpenEvtFiles. The steps
 * before the collectives are local, so their outcome can be agreed on first. */
static int prepare_local(hp_trace_writer *w, char *err, size_t errlen)
{
    return hp__otf2_check(w, OTF2_Archive_SetFlushCallbacks(w->archive, &flush_callbacks, NULL),
                          "OTF2_Archive_SetFlushCallbacks", err, errlen) != 0 ||
                   hp__otf2_check(w, OTF2_Archive_SetMemoryCallbacks(w->archive, &memory_callbacks,
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
    if (hp__otf2_check(w, OTF2_Archive_SetCreator(w->archive, TRACE_CREATOR),
                       "OTF2_Archive_SetCreator", err, errlen) != 0)
        return -1;
    return hp__otf2_check(w, OTF2_Archive_OpenEvtFiles(w->archive), "OTF2_Archive_OpenEvtFiles",
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
        hp__otf2_error(err, errlen, "trace directory '%s': out of memory", directory);
        return NULL;
    }
    w->previous_error_callback = OTF2_Error_RegisterCallback(remember_otf2_error, w);
    w->archive = OTF2_Archive_Open(directory, ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
                                   event_chunk_size, DEF_CHUNK_SIZE, OTF2_SUBSTRATE_POSIX,
                                   OTF2_COMPRESSION_NONE);
    if (w->archive == NULL) {
        hp__otf2_check(w, OTF2_ERROR_FILE_INTERACTION, "OTF2_Archive_Open", err, errlen);
        free_writer(w);
        return NULL;
    }
    if (prepare_local(w, err, errlen) != 0) {
        discard_writer(w);
        return NULL;
    }
    return w;
}

/* Whether every process got as far as this one did (ok); without agreement (serial)
 * only this one counts. A process that succeeded itself says why it gives up. */
static int agreed(hp_trace_writer *w, const hp_trace_collectives *c, int ok, char *err,
                  size_t errlen)
{
    if (c == NULL || c->agree == NULL || c->agree(ok, c->arg))
        return ok;
    if (ok)
        hp__otf2_error(err, errlen, "%s: not opened, because another process could not open "
                       "it", w->anchor_path);
    return 0;
}

hp_trace_writer *hp_trace_writer_open(const char *directory, int rank,
                                      const hp_trace_collectives *collectives,
                                      char *err, size_t errlen)
{
    hp__otf2_clear(err, errlen);
    hp_trace_writer *w = open_local(directory, rank, collectives, err, errlen);
    /* No process may enter OTF2's collectives unless every process can, and none goes on
     * to the collectives after them (the cut, the counts, the close) unless every
     * process came through. */
    if (!agreed(w, collectives, w != NULL, err, errlen) ||
        !agreed(w, collectives, prepare_collective(w, collectives, err, errlen) == 0, err,
                errlen)) {
        discard_writer(w);
        return NULL;
    }
    return w;
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
        rc |= hp__otf2_check(w, OTF2_DefWriter_WriteClockOffset(dw, w->clock_time[i], 0,
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
    int rc = hp__otf2_check(w, OTF2_Archive_OpenDefFiles(w->archive), "OTF2_Archive_OpenDefFiles",
                            err, errlen);
    for (size_t i = 0; i < w->nlocations; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->archive, w->locations[i]);
        if (dw == NULL) {
            rc |= hp__otf2_check(w, OTF2_ERROR_INVALID_CALL, "OTF2_Archive_GetDefWriter", err,
                                 errlen);
            continue;
        }
        rc |= write_clock_offsets(w, dw, err, errlen);
        rc |= hp__otf2_check(w, OTF2_Archive_CloseDefWriter(w->archive, dw),
                             "OTF2_Archive_CloseDefWriter", err, errlen);
    }
    rc |= hp__otf2_check(w, OTF2_Archive_CloseDefFiles(w->archive), "OTF2_Archive_CloseDefFiles",
                         err, errlen);
    return rc;
}

int hp_trace_writer_close(hp_trace_writer *w, char *err, size_t errlen)
{
    hp__otf2_clear(err, errlen);
    if (w == NULL)
        return 0;
    /* Every step runs even after a failure: they are collective. check_otf2 also fails
     * when OTF2 reported an error earlier that its return codes swallowed. */
    int rc = hp__otf2_check(w, OTF2_Archive_CloseEvtFiles(w->archive),
                            "OTF2_Archive_CloseEvtFiles", err, errlen);
    rc |= write_local_defs(w, err, errlen);
    rc |= hp__otf2_check(w, OTF2_Archive_Close(w->archive), "OTF2_Archive_Close", err, errlen);
    free_writer(w);
    return rc != 0 ? -1 : 0;
}
