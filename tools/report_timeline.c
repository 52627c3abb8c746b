/*
 * hp-report timeline: an experiment's OTF2 trace as a timeline that needs no Vampir.
 * This file reads the archive with libotf2's reader (global definitions, then all
 * locations' events merged in time order by the global event reader) into the model of
 * report_timeline.h, and runs the subcommand; report_timeline_write.c writes the model
 * as Chrome/Perfetto trace-event JSON or as the HTML timeline.
 *
 * Region visits (Enter/Leave, or CallingContextEnter/Leave in traces written with
 * sampling on) become slices with their call path; CallingContextSample events become
 * samples; MPI sends and receives are matched into messages by MPI's non-overtaking
 * rule (the k-th send from process a to b with one tag and communicator meets the k-th
 * receive), whichever threads of a and b sent and received.
 * Large traces are thinned so that the JSON loads in a browser: on each track, the run
 * is cut into HP_TIMELINE_BINS bins, and a slice that is neither an MPI call nor longer
 * than one bin is kept only while fewer than max_per_bin slices starting in its bin were
 * kept; samples count against the same bins. MPI calls and messages are always kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "report.h"
#include "report_timeline.h"

enum { EXIT_WORK_FAILED = 1, EXIT_BAD_INPUT = 2 };
enum { DEFAULT_MAX_PER_BIN = 10 };

/* ---------------------------------------------------------------- growable arrays */

/* Makes room for index i in *arr (elements of size elem, *cap of them), zero-filling
 * the new part. Returns 0, or -1 when out of memory. */
static int grow(void **arr, size_t *cap, size_t i, size_t elem)
{
    if (i < *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n <= i)
        n *= 2;
    void *p = realloc(*arr, n * elem);
    if (p == NULL)
        return -1;
    memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
    *arr = p;
    *cap = n;
    return 0;
}

#define GROW(arr, cap, i) grow((void **)&(arr), &(cap), (i), sizeof(*(arr)))

/* ---------------------------------------------------------------- reader state */

typedef struct {
    uint32_t name;
    bool mpi;
} region_def;

typedef struct {
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint64_t *members;
    uint32_t nmembers;
} group_def;

typedef struct {
    uint32_t region, parent;
} cc_def;

typedef struct {
    uint32_t path;
    uint64_t start;  /* ticks */
} open_visit;

typedef struct {
    open_visit *stack;
    size_t depth, cap;
    uint16_t *bins;  /* kept slices and samples per bin, when thinning */
} track_state;

/* A FIFO of unmatched sends (or receives) for one (communicator, sending process,
 * receiving process, tag): whichever side comes first waits here for the other, with
 * the track (thread) it happened on. Processes, not locations: the communicator names a
 * rank by its process, while any of the process's threads may send or receive. */
typedef struct {
    uint32_t comm, from, to, tag;
    bool used;
    bool waiting_sends;  /* the queue holds sends (else receives) */
    struct pending { uint64_t ts, bytes; size_t track; } *items;
    size_t head, n, cap;
} msg_queue;

typedef struct {
    uint64_t key_parent_region;  /* parent << 32 | region, + 1 so that 0 is empty */
    uint32_t path;
} path_slot;

typedef struct {
    hp_timeline *tl;
    char **strings;
    size_t cap_strings;
    region_def *regions;
    size_t cap_regions;
    char **group_names;  /* location groups */
    size_t cap_group_names;
    group_def *groups;
    size_t cap_groups;
    uint32_t *comm_group;
    size_t cap_comm_group;
    cc_def *ccs;
    size_t cap_ccs;
    uint32_t *cc_path;  /* memo: calling context -> path + 1 */
    size_t cap_cc_path;
    uint32_t *track_group; /* location group ref per track, until names are known */
    size_t cap_track_group;
    size_t cap_tracks, cap_paths, cap_messages;
    track_state *state;
    path_slot *path_table;
    size_t path_table_size;
    msg_queue *queues;
    size_t queue_table_size, nqueues;
    uint64_t timer_resolution, global_offset, trace_length;
    uint64_t last_ts;  /* the latest event's timestamp, for a trace without ClockProperties */
    bool oom;
} reader;

static const char *string_of(const reader *r, uint32_t ref)
{
    return ref < r->cap_strings && r->strings[ref] ? r->strings[ref] : "";
}

static uint64_t ticks_to_ns(const reader *r, uint64_t t)
{
    uint64_t rel = t > r->global_offset ? t - r->global_offset : 0;
    if (r->timer_resolution == 0 || r->timer_resolution == 1000000000)
        return rel;
    return (uint64_t)((unsigned __int128)rel * 1000000000u / r->timer_resolution);
}

/* ---------------------------------------------------------------- call-path tree */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int path_table_grow(reader *r)
{
    size_t size = r->path_table_size ? r->path_table_size * 2 : 1024;
    path_slot *t = calloc(size, sizeof(*t));
    if (t == NULL)
        return -1;
    for (size_t i = 0; i < r->path_table_size; i++) {
        path_slot s = r->path_table[i];
        if (s.key_parent_region == 0)
            continue;
        size_t j = mix(s.key_parent_region) & (size - 1);
        while (t[j].key_parent_region != 0)
            j = (j + 1) & (size - 1);
        t[j] = s;
    }
    free(r->path_table);
    r->path_table = t;
    r->path_table_size = size;
    return 0;
}

/* The node (parent, region) of the call-path tree, made on first sight; NO_PATH when
 * out of memory. */
static uint32_t path_of(reader *r, uint32_t parent, uint32_t region)
{
    hp_timeline *tl = r->tl;
    /* A region the definitions did not define (a calling context or an event naming a
     * bad reference): no path, so that no writer looks its name up. */
    if (region >= r->cap_regions || region >= tl->nregions)
        return HP_TIMELINE_NO_PATH;
    if (tl->npaths * 2 >= r->path_table_size && path_table_grow(r) != 0)
        goto oom;
    uint64_t key = (((uint64_t)parent << 32) | region) + 1;
    size_t j = mix(key) & (r->path_table_size - 1);
    while (r->path_table[j].key_parent_region != 0) {
        if (r->path_table[j].key_parent_region == key)
            return r->path_table[j].path;
        j = (j + 1) & (r->path_table_size - 1);
    }
    if (GROW(tl->paths, r->cap_paths, tl->npaths) != 0)
        goto oom;
    uint32_t id = (uint32_t)tl->npaths++;
    tl->paths[id] = (hp_timeline_path){
        .parent = parent, .region = region,
        .depth = parent == HP_TIMELINE_NO_PATH ? 0 : tl->paths[parent].depth + 1,
    };
    r->path_table[j] = (path_slot){ key, id };
    return id;
oom:
    r->oom = true;
    return HP_TIMELINE_NO_PATH;
}

/* A calling context's node in the call-path tree (its regions from the root down). */
static uint32_t path_of_cc(reader *r, uint32_t cc)
{
    if (cc >= r->cap_ccs)
        return HP_TIMELINE_NO_PATH;
    if (cc < r->cap_cc_path && r->cc_path[cc] != 0)
        return r->cc_path[cc] - 1;
    /* Up the parents without recursion (calling-context trees can be deep) to the first
     * context already known. A path deeper than 4096 keeps its innermost 4096 levels
     * (and a malformed, cyclic parent chain ends there too). */
    uint32_t chain[4096];
    size_t n = 0;
    uint32_t c = cc;
    while (c < r->cap_ccs && n < 4096 && !(c < r->cap_cc_path && r->cc_path[c] != 0)) {
        chain[n++] = c;
        c = r->ccs[c].parent;
    }
    uint32_t parent = c < r->cap_cc_path && c < r->cap_ccs && r->cc_path[c] != 0
                          ? r->cc_path[c] - 1 : HP_TIMELINE_NO_PATH;
    while (n > 0) {
        c = chain[--n];
        parent = path_of(r, parent, r->ccs[c].region);
        if (parent == HP_TIMELINE_NO_PATH || GROW(r->cc_path, r->cap_cc_path, c) != 0)
            return HP_TIMELINE_NO_PATH;
        r->cc_path[c] = parent + 1;
    }
    return parent;
}

/* ---------------------------------------------------------------- definitions */

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    reader *r = ud;
    if (GROW(r->strings, r->cap_strings, self) != 0 || (r->strings[self] = strdup(s)) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef description,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file,
                                    uint32_t begin, uint32_t end)
{
    (void)canonical, (void)description, (void)role, (void)flags, (void)file, (void)begin,
        (void)end;
    reader *r = ud;
    if (GROW(r->regions, r->cap_regions, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    r->regions[self].name = name;
    r->regions[self].mpi = paradigm == OTF2_PARADIGM_MPI ||
                           strncmp(string_of(r, name), "MPI_", 4) == 0;
    if (self >= r->tl->nregions)
        r->tl->nregions = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location_group(void *ud, OTF2_LocationGroupRef self,
                                            OTF2_StringRef name, OTF2_LocationGroupType type,
                                            OTF2_SystemTreeNodeRef parent,
                                            OTF2_LocationGroupRef creator)
{
    (void)type, (void)parent, (void)creator;
    reader *r = ud;
    if (GROW(r->group_names, r->cap_group_names, self) != 0 ||
        (r->group_names[self] = strdup(string_of(r, name))) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    (void)type, (void)nevents;
    reader *r = ud;
    hp_timeline *tl = r->tl;
    if (GROW(tl->tracks, r->cap_tracks, tl->ntracks) != 0 ||
        GROW(r->track_group, r->cap_track_group, tl->ntracks) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    hp_timeline_track *t = &tl->tracks[tl->ntracks];
    t->location = self;
    t->pid = group;
    if ((t->thread = strdup(string_of(r, name))) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    r->track_group[tl->ntracks++] = group;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name, (void)flags;
    reader *r = ud;
    if (GROW(r->groups, r->cap_groups, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    group_def *g = &r->groups[self];
    g->type = type;
    g->paradigm = paradigm;
    g->nmembers = n;
    g->members = malloc((n ? n : 1) * sizeof(*members));
    if (g->members == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    memcpy(g->members, members, n * sizeof(*members));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)name, (void)parent, (void)flags;
    reader *r = ud;
    if (GROW(r->comm_group, r->cap_comm_group, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    r->comm_group[self] = group + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_cc(void *ud, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
    (void)scl;
    reader *r = ud;
    if (GROW(r->ccs, r->cap_ccs, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    r->ccs[self] = (cc_def){ region, parent };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t resolution, uint64_t offset,
                                   uint64_t length, uint64_t realtime)
{
    (void)realtime;
    reader *r = ud;
    r->timer_resolution = resolution;
    r->global_offset = offset;
    r->trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------------------------------------------------------------- tracks and ranks */

/* The track of an OTF2 location id; SIZE_MAX when the location is not defined. Tracks
 * are few (ranks x threads), and the last answer is the next question most of the time. */
static size_t track_of(const reader *r, uint64_t location)
{
    static size_t last;
    const hp_timeline *tl = r->tl;
    if (last < tl->ntracks && tl->tracks[last].location == location)
        return last;
    for (size_t i = 0; i < tl->ntracks; i++)
        if (tl->tracks[i].location == location)
            return last = i;
    return SIZE_MAX;
}

/* The location of rank `rank` of a communicator: COMM_SELF is the acting location; a
 * COMM_GROUP's members index the COMM_LOCATIONS group, whose members are locations. */
static size_t track_of_rank(const reader *r, uint32_t comm, uint32_t rank, size_t acting)
{
    if (comm >= r->cap_comm_group || r->comm_group[comm] == 0)
        return SIZE_MAX;
    uint32_t g = r->comm_group[comm] - 1;
    if (g >= r->cap_groups)
        return SIZE_MAX;
    const group_def *grp = &r->groups[g];
    if (grp->type == OTF2_GROUP_TYPE_COMM_SELF)
        return rank == 0 ? acting : SIZE_MAX;
    if (rank >= grp->nmembers)
        return SIZE_MAX;
    uint64_t member = grp->members[rank];
    if (grp->type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        return track_of(r, member);
    for (size_t i = 0; i < r->cap_groups; i++) {
        const group_def *locs = &r->groups[i];
        /* The ranks' locations: threads' paradigms have COMM_LOCATIONS groups too. */
        if (locs->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && locs->paradigm == OTF2_PARADIGM_MPI &&
            member < locs->nmembers)
            return track_of(r, locs->members[member]);
    }
    return SIZE_MAX;
}

/* ---------------------------------------------------------------- messages */

static msg_queue *queue_for(reader *r, uint32_t comm, uint32_t from, uint32_t to, uint32_t tag)
{
    if (r->nqueues * 2 >= r->queue_table_size) {
        size_t size = r->queue_table_size ? r->queue_table_size * 2 : 256;
        msg_queue *t = calloc(size, sizeof(*t));
        if (t == NULL)
            return NULL;
        for (size_t i = 0; i < r->queue_table_size; i++) {
            if (!r->queues[i].used)
                continue;
            const msg_queue *q = &r->queues[i];
            size_t j = mix(((uint64_t)q->comm << 48) ^ ((uint64_t)q->from << 32) ^
                           ((uint64_t)q->to << 16) ^ q->tag) & (size - 1);
            while (t[j].used)
                j = (j + 1) & (size - 1);
            t[j] = *q;
        }
        free(r->queues);
        r->queues = t;
        r->queue_table_size = size;
    }
    size_t size = r->queue_table_size;
    size_t j = mix(((uint64_t)comm << 48) ^ ((uint64_t)from << 32) ^ ((uint64_t)to << 16) ^ tag) &
               (size - 1);
    while (r->queues[j].used) {
        msg_queue *q = &r->queues[j];
        if (q->comm == comm && q->from == from && q->to == to && q->tag == tag)
            return q;
        j = (j + 1) & (size - 1);
    }
    r->nqueues++;
    r->queues[j] = (msg_queue){ .comm = comm, .from = from, .to = to, .tag = tag, .used = true };
    return &r->queues[j];
}

/* One side of a message: a send (is_send) or a receive on track self, at ts ticks, with
 * the processes from and to. Matches the oldest waiting other side of the same queue, or
 * waits in it. */
static void message_side(reader *r, bool is_send, size_t self, uint32_t comm, uint32_t from,
                         uint32_t to, uint32_t tag, uint64_t ts, uint64_t bytes)
{
    msg_queue *q = queue_for(r, comm, from, to, tag);
    if (q == NULL) {
        r->oom = true;
        return;
    }
    if (q->head < q->n && q->waiting_sends != is_send) {
        hp_timeline *tl = r->tl;
        struct pending other = q->items[q->head++];
        if (GROW(tl->messages, r->cap_messages, tl->nmessages) != 0) {
            r->oom = true;
            return;
        }
        tl->messages[tl->nmessages++] = (hp_timeline_message){
            .from_track = (uint32_t)(is_send ? self : other.track),
            .to_track = (uint32_t)(is_send ? other.track : self),
            .send_ns = ticks_to_ns(r, is_send ? ts : other.ts),
            .recv_ns = ticks_to_ns(r, is_send ? other.ts : ts),
            .bytes = is_send ? bytes : other.bytes, .tag = tag,
        };
        return;
    }
    if (q->head == q->n)
        q->head = q->n = 0;
    q->waiting_sends = is_send;
    if (GROW(q->items, q->cap, q->n) != 0) {
        r->oom = true;
        return;
    }
    q->items[q->n++] = (struct pending){ ts, bytes, self };
}

/* A send (to rank peer) or a receive (from rank peer) on location loc. */
static void message_event(reader *r, bool is_send, OTF2_LocationRef loc, uint64_t ts,
                          uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes)
{
    if (ts > r->last_ts)
        r->last_ts = ts;
    size_t self = track_of(r, loc);
    size_t other = self == SIZE_MAX ? SIZE_MAX : track_of_rank(r, comm, peer, self);
    if (other == SIZE_MAX)
        return;
    uint32_t me = r->tl->tracks[self].pid, peer_process = r->tl->tracks[other].pid;
    message_side(r, is_send, self, comm, is_send ? me : peer_process,
                 is_send ? peer_process : me, tag, ts, bytes);
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                 OTF2_AttributeList *a, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)a;
    message_event(ud, true, loc, ts, receiver, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                  OTF2_AttributeList *a, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t request)
{
    (void)request;
    return ev_send(loc, ts, ud, a, receiver, comm, tag, len);
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                 OTF2_AttributeList *a, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)a;
    message_event(ud, false, loc, ts, sender, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                  OTF2_AttributeList *a, uint32_t sender, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t request)
{
    (void)request;
    return ev_recv(loc, ts, ud, a, sender, comm, tag, len);
}

/* ---------------------------------------------------------------- visits and samples */

/* Whether the thinning rule keeps an event starting at ns on track t (and counts it). */
static bool thin_keeps(reader *r, size_t t, uint64_t start_ns, uint64_t dur_ns, bool mpi)
{
    const hp_timeline *tl = r->tl;
    if (tl->max_per_bin == 0 || mpi)
        return true;
    uint64_t bin_ns = tl->length_ns / HP_TIMELINE_BINS + 1;
    if (dur_ns >= bin_ns)
        return true;
    track_state *s = &r->state[t];
    if (s->bins == NULL && (s->bins = calloc(HP_TIMELINE_BINS, sizeof(*s->bins))) == NULL) {
        r->oom = true;
        return false;
    }
    size_t bin = start_ns / bin_ns;
    if (bin >= HP_TIMELINE_BINS)
        bin = HP_TIMELINE_BINS - 1;
    if (s->bins[bin] >= tl->max_per_bin)
        return false;
    s->bins[bin]++;
    return true;
}

static void visit_begin(reader *r, OTF2_LocationRef loc, uint64_t ts, uint32_t path)
{
    if (ts > r->last_ts)
        r->last_ts = ts;
    size_t t = track_of(r, loc);
    if (t == SIZE_MAX || path == HP_TIMELINE_NO_PATH)
        return;
    track_state *s = &r->state[t];
    if (GROW(s->stack, s->cap, s->depth) != 0) {
        r->oom = true;
        return;
    }
    s->stack[s->depth++] = (open_visit){ path, ts };
    r->tl->tracks[t].enters++;
}

static void visit_end(reader *r, OTF2_LocationRef loc, uint64_t ts)
{
    if (ts > r->last_ts)
        r->last_ts = ts;
    size_t t = track_of(r, loc);
    if (t == SIZE_MAX || r->state[t].depth == 0)
        return;
    track_state *s = &r->state[t];
    open_visit v = s->stack[--s->depth];
    hp_timeline_track *tr = &r->tl->tracks[t];
    uint64_t start = ticks_to_ns(r, v.start), end = ticks_to_ns(r, ts);
    if (end < start)  /* ended at the trace's end before it began: a broken clock */
        end = start;
    bool mpi = r->regions[r->tl->paths[v.path].region].mpi;
    if (!thin_keeps(r, t, start, end - start, mpi)) {
        tr->dropped++;
        return;
    }
    if (GROW(tr->slices, tr->cap_slices, tr->nslices) != 0) {
        r->oom = true;
        return;
    }
    tr->slices[tr->nslices++] = (hp_timeline_slice){ start, end - start, v.path };
}

/* The path of a region entered on a track: below the innermost open visit. */
static uint32_t path_below_top(reader *r, OTF2_LocationRef loc, uint32_t region)
{
    size_t t = track_of(r, loc);
    if (t == SIZE_MAX || region >= r->cap_regions)
        return HP_TIMELINE_NO_PATH;
    const track_state *s = &r->state[t];
    return path_of(r, s->depth ? s->stack[s->depth - 1].path : HP_TIMELINE_NO_PATH, region);
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)a;
    reader *r = ud;
    visit_begin(r, loc, ts, path_below_top(r, loc, region));
    return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)a, (void)region;
    reader *r = ud;
    visit_end(r, loc, ts);
    return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cc_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                     OTF2_AttributeList *a, OTF2_CallingContextRef cc,
                                     uint32_t unwind_distance)
{
    (void)a, (void)unwind_distance;
    reader *r = ud;
    visit_begin(r, loc, ts, path_of_cc(r, cc));
    return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cc_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                     OTF2_AttributeList *a, OTF2_CallingContextRef cc)
{
    (void)a, (void)cc;
    reader *r = ud;
    visit_end(r, loc, ts);
    return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_sample(OTF2_LocationRef loc, OTF2_TimeStamp ts, void *ud,
                                   OTF2_AttributeList *a, OTF2_CallingContextRef cc,
                                   uint32_t unwind_distance, OTF2_InterruptGeneratorRef gen)
{
    (void)a, (void)unwind_distance, (void)gen;
    reader *r = ud;
    r->tl->samples++;
    if (ts > r->last_ts)
        r->last_ts = ts;
    size_t t = track_of(r, loc);
    uint32_t path = path_of_cc(r, cc);
    if (t == SIZE_MAX || path == HP_TIMELINE_NO_PATH)
        return OTF2_CALLBACK_SUCCESS;
    hp_timeline_track *tr = &r->tl->tracks[t];
    uint64_t ns = ticks_to_ns(r, ts);
    if (!thin_keeps(r, t, ns, 0, false)) {
        tr->dropped++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (GROW(tr->samples, tr->cap_samples, tr->nsamples) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    tr->samples[tr->nsamples++] = (hp_timeline_sample){ ns, path };
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------------------------------------------------------------- reading */

static int read_definitions(OTF2_Reader *rd, reader *r)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (gdr == NULL || cb == NULL)
        return -1;
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_location_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, def_cc);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, r);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    if (OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n) != OTF2_SUCCESS)
        return -1;
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    return 0;
}

/* Whether location loc's event file is there, in OTF2's file layout: next to the anchor
 * file path (X.otf2), as X/<location>.evt. libotf2 fails the whole global event reader
 * for one missing file, so the reader selects only the locations that have theirs. */
static bool has_event_file(const char *path, uint64_t loc)
{
    size_t n = strlen(path);
    if (n > 5 && strcmp(path + n - 5, ".otf2") == 0)
        n -= 5;
    char file[4096];
    int len = snprintf(file, sizeof(file), "%.*s/%" PRIu64 ".evt", (int)n, path, loc);
    struct stat st;
    return len < 0 || (size_t)len >= sizeof(file) || stat(file, &st) == 0;
}

/* Reads the local definitions (id mappings) and the events of the selected locations
 * (present), checking each step. */
static int read_selected_events(OTF2_Reader *rd, reader *r, const bool *present)
{
    hp_timeline *tl = r->tl;
    bool have_defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS)
        return -1;
    for (size_t i = 0; i < tl->ntracks; i++) {
        if (!present[i])
            continue;
        if (have_defs) {
            /* Local definitions carry the id mappings of this location, if any. */
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, tl->tracks[i].location);
            uint64_t n;
            if (dr != NULL) {
                OTF2_ErrorCode err = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
                if (err != OTF2_SUCCESS)
                    return -1;
            }
        }
        if (OTF2_Reader_GetEvtReader(rd, tl->tracks[i].location) == NULL)
            return -1;
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(rd);
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    if (ger == NULL || cb == NULL)
        return -1;
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_GlobalEvtReaderCallbacks_SetCallingContextEnterCallback(cb, ev_cc_enter);
    OTF2_GlobalEvtReaderCallbacks_SetCallingContextLeaveCallback(cb, ev_cc_leave);
    OTF2_GlobalEvtReaderCallbacks_SetCallingContextSampleCallback(cb, ev_sample);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, r);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    uint64_t n;
    OTF2_ErrorCode err = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
    tl->events = n;
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_Reader_CloseEvtFiles(rd);
    return err == OTF2_SUCCESS && !r->oom ? 0 : -1;
}

/* Reads the local definitions and events of every location that has an event file; one
 * without (a rank killed before it wrote one) keeps an empty track, with a note. */
static int read_events(OTF2_Reader *rd, reader *r, const char *path)
{
    hp_timeline *tl = r->tl;
    bool *present = calloc(tl->ntracks ? tl->ntracks : 1, sizeof(bool));
    if (present == NULL)
        return -1;
    size_t npresent = 0;
    for (size_t i = 0; i < tl->ntracks; i++) {
        present[i] = has_event_file(path, tl->tracks[i].location);
        if (!present[i])
            fprintf(stderr, "hp-report timeline: %s: note: location %" PRIu64 " has no event "
                            "file (a rank killed before writing?): its track stays empty\n",
                    path, tl->tracks[i].location);
        else if (OTF2_Reader_SelectLocation(rd, tl->tracks[i].location) == OTF2_SUCCESS)
            npresent++;
    }
    int rc = npresent > 0 ? read_selected_events(rd, r, present) : 0;
    free(present);
    return rc;
}

/* Visits still open at the end of the trace (a run ended by a signal, a thread that never
 * left its function) end with the trace, so that they are drawn; counted in unclosed. */
static void close_open_visits(reader *r)
{
    hp_timeline *tl = r->tl;
    for (size_t t = 0; t < tl->ntracks; t++) {
        tl->unclosed += r->state[t].depth;
        while (r->state[t].depth > 0)
            visit_end(r, tl->tracks[t].location, r->global_offset + r->trace_length);
    }
}

/* Names the tracks' processes after their location groups, counts what was left open
 * or unmatched, and frees the reader's own tables. */
static void finish_reading(reader *r)
{
    hp_timeline *tl = r->tl;
    for (size_t i = 0; i < tl->ntracks; i++) {
        uint32_t g = r->track_group[i];
        tl->tracks[i].process = strdup(g < r->cap_group_names && r->group_names[g]
                                           ? r->group_names[g] : "process");
        if (r->state) {  /* NULL when the definitions could not be read */
            free(r->state[i].stack);
            free(r->state[i].bins);
        }
    }
    for (size_t i = 0; i < r->queue_table_size; i++) {
        msg_queue *q = &r->queues[i];
        if (q->used && q->head < q->n)
            *(q->waiting_sends ? &tl->unmatched_sends : &tl->unmatched_recvs) += q->n - q->head;
        free(q->items);
    }
    tl->region_names = calloc(tl->nregions ? tl->nregions : 1, sizeof(char *));
    tl->region_is_mpi = calloc(tl->nregions ? tl->nregions : 1, sizeof(bool));
    for (size_t i = 0; tl->region_names && tl->region_is_mpi && i < tl->nregions; i++) {
        tl->region_names[i] = strdup(i < r->cap_regions ? string_of(r, r->regions[i].name) : "");
        tl->region_is_mpi[i] = i < r->cap_regions && r->regions[i].mpi;
    }
    for (size_t i = 0; i < r->cap_strings; i++)
        free(r->strings[i]);
    for (size_t i = 0; i < r->cap_group_names; i++)
        free(r->group_names[i]);
    for (size_t i = 0; i < r->cap_groups; i++)
        free(r->groups[i].members);
    free(r->strings), free(r->regions), free(r->group_names), free(r->groups);
    free(r->comm_group), free(r->ccs), free(r->cc_path), free(r->track_group);
    free(r->state), free(r->path_table), free(r->queues);
}

static int by_start(const void *a, const void *b)
{
    const hp_timeline_slice *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->dur_ns > y->dur_ns ? -1 : x->dur_ns < y->dur_ns;  /* callers first */
}

/* Reads the archive at path into tl (tl->max_per_bin set by the caller). Returns 0, or
 * -1 after a message on stderr. */
static int timeline_read(const char *path, hp_timeline *tl)
{
    OTF2_Reader *rd = OTF2_Reader_Open(path);
    if (rd == NULL) {
        fprintf(stderr, "hp-report timeline: %s: not an OTF2 archive libotf2 can open\n", path);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    reader r = { .tl = tl };
    int rc = read_definitions(rd, &r);
    tl->length_ns = ticks_to_ns(&r, r.global_offset + r.trace_length);
    if (rc == 0 && tl->ntracks > 0 &&
        (r.state = calloc(tl->ntracks, sizeof(*r.state))) == NULL)
        rc = -1;
    if (rc == 0)
        rc = read_events(rd, &r, path);
    if (rc == 0 && r.trace_length == 0 && r.last_ts > r.global_offset) {
        /* No ClockProperties (or a zero length): the trace ends at its last event. */
        r.trace_length = r.last_ts - r.global_offset;
        tl->length_ns = ticks_to_ns(&r, r.global_offset + r.trace_length);
    }
    if (rc == 0)
        close_open_visits(&r);
    if (rc != 0)
        fprintf(stderr, "hp-report timeline: %s: %s\n", path,
                r.oom ? "out of memory reading the trace" : "libotf2 could not read the trace "
                                   "(damaged or truncated?)");
    finish_reading(&r);
    OTF2_Reader_Close(rd);
    for (size_t i = 0; i < tl->ntracks; i++)
        if (tl->tracks[i].nslices > 0)  /* qsort(NULL, 0, ...) is undefined */
            qsort(tl->tracks[i].slices, tl->tracks[i].nslices, sizeof(hp_timeline_slice),
                  by_start);
    return rc;
}

static void timeline_release(hp_timeline *tl)
{
    for (size_t i = 0; i < tl->ntracks; i++) {
        free(tl->tracks[i].process), free(tl->tracks[i].thread);
        free(tl->tracks[i].slices), free(tl->tracks[i].samples);
    }
    for (size_t i = 0; tl->region_names && i < tl->nregions; i++)
        free(tl->region_names[i]);
    free(tl->region_names), free(tl->region_is_mpi), free(tl->paths), free(tl->tracks);
    free(tl->messages);
}

/* ---------------------------------------------------------------- the subcommand */

/* The archive of arg: an experiment directory's traces.otf2, or a .otf2 file. */
static char *archive_of(const char *arg)
{
    struct stat st;
    if (stat(arg, &st) != 0) {
        fprintf(stderr, "hp-report timeline: %s: %s\n", arg, strerror(errno));
        return NULL;
    }
    if (!S_ISDIR(st.st_mode))
        return strdup(arg);
    size_t n = strlen(arg) + sizeof("/traces.otf2");
    char *p = malloc(n);
    if (p == NULL)
        return NULL;
    snprintf(p, n, "%s/traces.otf2", arg);
    if (stat(p, &st) != 0) {
        fprintf(stderr, "hp-report timeline: %s has no traces.otf2 (run with "
                        "HP_ENABLE_TRACING=true to write a trace)\n", arg);
        free(p);
        return NULL;
    }
    return p;
}

const char hp_report_timeline_options[] =
    "options of timeline:\n"
    "  -o, --output FILE        the file to write (required)\n"
    "  --format json|html       Chrome/Perfetto trace-event JSON (default) or a\n"
    "                           self-contained HTML timeline\n"
    "  --max-per-bin N          thinning: at most N short region visits or samples per\n"
    "                           track in each 1/2000 of the run (1 to 60000; default 10\n"
    "                           for json, none for html); MPI calls and messages are kept\n"
    "  --no-thinning            keep every event\n";

static void timeline_usage(FILE *out)
{
    fprintf(out, "usage: hp-report timeline DIR|traces.otf2 [--format json|html] -o FILE "
                 "[--max-per-bin N | --no-thinning]\n%s", out == stdout ? hp_report_timeline_options : "");
}

int hp_report_timeline(int argc, char **argv)
{
    const char *input = NULL, *output = NULL, *format = "json";
    long max_per_bin = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && has_value)
            output = argv[++i];
        else if (strcmp(a, "--format") == 0 && has_value)
            format = argv[++i];
        else if (strcmp(a, "--no-thinning") == 0)
            max_per_bin = 0;
        else if (strcmp(a, "--max-per-bin") == 0 && has_value) {
            char *end;
            max_per_bin = strtol(argv[++i], &end, 10);
            if (*end != '\0' || max_per_bin < 1 || max_per_bin > 60000) {
                fprintf(stderr, "hp-report timeline: --max-per-bin '%s': expected a number "
                                "from 1 to 60000 (or --no-thinning)\n", argv[i]);
                return EXIT_BAD_INPUT;
            }
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            timeline_usage(stdout);
            return 0;
        } else if (a[0] != '-' && input == NULL)
            input = a;
        else {
            fprintf(stderr, "hp-report timeline: unknown or incomplete option '%s'\n", a);
            timeline_usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    bool html = strcmp(format, "html") == 0;
    if (!html && strcmp(format, "json") != 0) {
        fprintf(stderr, "hp-report timeline: --format '%s': expected json or html\n", format);
        return EXIT_BAD_INPUT;
    }
    if (input == NULL || output == NULL) {
        timeline_usage(stderr);
        return EXIT_BAD_INPUT;
    }
    char *archive = archive_of(input);
    if (archive == NULL)
        return EXIT_BAD_INPUT;
    /* The HTML page renders down-sampled, so it keeps everything unless told. */
    hp_timeline tl = { .max_per_bin = max_per_bin >= 0 ? (unsigned)max_per_bin
                                      : html ? 0 : DEFAULT_MAX_PER_BIN };
    int status = EXIT_BAD_INPUT;
    if (timeline_read(archive, &tl) != 0)
        goto out;
    FILE *out = fopen(output, "w");
    if (out == NULL) {  /* a bad -o, as for hp-report html: status 2 */
        fprintf(stderr, "hp-report timeline: %s: cannot write: %s\n", output, strerror(errno));
        goto out;
    }
    status = EXIT_WORK_FAILED;
    int rc = html ? hp__timeline_write_html(&tl, out) : hp__timeline_write_json(&tl, out);
    if (fclose(out) != 0 || rc != 0)
        fprintf(stderr, "hp-report timeline: writing %s failed\n", output);
    else
        status = 0;
out:
    timeline_release(&tl);
    free(archive);
    return status;
}
