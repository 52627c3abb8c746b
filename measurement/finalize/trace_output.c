/*
 * From trace buffers to the OTF2 archive (trace_output.h).
 */
#include "trace_output.h"

#include "measurement/trace/trace_bins.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/core/config.h"
#include "measurement/core/location.h"
#include "measurement/core/timer.h"
#include "measurement/finalize/trace_contexts.h"
#include "measurement/finalize/trace_cut.h"
#include "util/log.h"

static hp_trace_host_clock host_clock;
static bool host_clock_set;
static hp_trace_cut *job_cut; /* the job's consistent cut while it is written, NULL = none */

/* The unified call tree (on every process), whose nodes are the calling contexts of
 * samples (trace_contexts.h). */
typedef struct trace_tree {
    const hp_profile_cnode *cnodes;
    size_t ncnodes;
} trace_tree;

void hp_trace_output_set_host_clock(const hp_trace_host_clock *c)
{
    host_clock = *c;
    host_clock_set = true;
}

/* The process's own calibration, without offsets (serial programs). */
static hp_trace_host_clock own_clock(void)
{
    hp_trace_host_clock c = { .ticks_per_second = hp_timer_ticks_per_second() };
    hp_timer_reference(&c.ticks, &c.ns);
    return c;
}

/* ticks -> ns of the host's monotonic clock: ns(t) = (t - t0) * s + o. With offsets
 * measured at T_init and T_fin, global(t) = ns(t) - off(ns(t)) where off interpolates
 * linearly: off(x) = off_init + k (x - T_init), k = (off_fin - off_init) / (T_fin -
 * T_init); that is again linear in t: slope (1 - k) s, offset (1 - k) o + k T_init -
 * off_init. Every process of a host computes the same numbers from the same input. */
hp_trace_clock hp_trace_output_clock(void)
{
    hp_trace_host_clock c = host_clock_set ? host_clock : own_clock();
    double s = 1e9 / c.ticks_per_second, o = (double)c.ns;
    double k = c.t_fin > c.t_init ? (c.off_fin - c.off_init) / (double)(c.t_fin - c.t_init)
                                  : 0.0;
    return (hp_trace_clock){ c.ticks, (1 - k) * s,
                             (1 - k) * o + k * (double)c.t_init - c.off_init };
}

/* The uncertainty of the mapping at the two offset measurements, in global time, for
 * the ClockOffset definitions of every location (MPI runs only). */
static void set_clock_error(hp_trace_writer *w)
{
    if (!host_clock_set)
        return;
    const hp_trace_host_clock *c = &host_clock;
    double init = (double)c->t_init - c->off_init, fin = (double)c->t_fin - c->off_fin;
    hp_trace_writer_set_clock_error(w, init > 0 ? (uint64_t)init : 0, c->err_init,
                                    fin > 0 ? (uint64_t)fin : 0, c->err_fin);
}

/* Locations by id, as the profile orders them (ids have no gaps once published). */
static hp_location **locations_in_order(size_t *count)
{
    size_t n = hp_location_count();
    hp_location **v = calloc(n ? n : 1, sizeof(*v));
    if (v == NULL)
        return NULL;
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next)
        if (l->id < n)
            v[l->id] = l;
    *count = n;
    return v;
}

typedef struct mapped_reader {
    hp_trace_reader reader;
    hp_trace_cut_filter cut;
    const uint32_t *region_map;
    const uint32_t *comm_map;
    uint32_t ncomms;
    hp_trace_contexts *contexts; /* NULL: samples are left out */
    bool samples;                /* the location recorded samples */
    bool hybrid;                 /* regions become calling-context events */
    uint32_t prev_context;       /* of its previous calling-context event, UINT32_MAX =
                                    none yet (or at the top after leaving everything) */
    uint32_t *open;              /* hybrid: contexts entered and not left, innermost last */
    size_t nopen, open_capacity;
    uint64_t unknown;            /* hybrid: regions entered with no calling context */
    hp_trace_event *copy;
    size_t copy_capacity;
} mapped_reader;

/* Stack entries of regions without a calling context (left out of the trace, with
 * everything entered below them). */
enum { NO_CONTEXT = UINT32_MAX - 1 };

/* The global id of a local communicator id (WORLD and SELF are the same everywhere). */
static uint32_t comm_id(const mapped_reader *m, uint32_t local)
{
    if (m->comm_map == NULL)
        return local < 2 ? local : UINT32_MAX;
    return local < m->ncomms ? m->comm_map[local] : UINT32_MAX;
}

static uint32_t innermost_open(const mapped_reader *m)
{
    return m->nopen > 0 ? m->open[m->nopen - 1] : UINT32_MAX;
}

/* A sample's calling context (UINT32_MAX: none, the writer leaves it out) into the
 * copy's payload, and its unwind distance against the location's previous
 * calling-context event. */
static void map_sample(mapped_reader *m, const hp_trace_event *e, hp_trace_event *copy)
{
    uint32_t cc = UINT32_MAX;
    if (m->contexts != NULL)
        cc = hp_trace_contexts_of(m->contexts, (const hp_cct_node *)(uintptr_t)e[1].time);
    copy[1].time = cc;
    if (cc == UINT32_MAX)
        return;
    uint32_t top = m->hybrid ? innermost_open(m) : UINT32_MAX;
    copy[0].region = hp_trace_contexts_distance(m->contexts, m->prev_context, cc, e[0].region,
                                                top);
    m->prev_context = cc;
}

/* Hybrid traces: an Enter (region: global id) as CallingContextEnter of the context
 * below the innermost open one, 2 slots (the distance, then the context). */
static size_t map_enter(mapped_reader *m, uint32_t region, uint64_t time, hp_trace_event *out)
{
    uint32_t parent = innermost_open(m), cc = NO_CONTEXT;
    if (parent != NO_CONTEXT)
        cc = hp_trace_contexts_enter(m->contexts, parent, region);
    if (cc == UINT32_MAX) {
        cc = NO_CONTEXT;
        m->unknown++;
    }
    if (m->nopen == m->open_capacity) {
        size_t cap = m->open_capacity ? 2 * m->open_capacity : 64;
        uint32_t *grown = realloc(m->open, cap * sizeof(*grown));
        if (grown == NULL)
            return 0;
        m->open = grown;
        m->open_capacity = cap;
    }
    m->open[m->nopen++] = cc;
    uint32_t distance = 0;
    if (cc != NO_CONTEXT) {
        distance = hp_trace_contexts_distance(m->contexts, m->prev_context, cc, 2, parent);
        m->prev_context = cc;
    }
    out[0] = (hp_trace_event){ time, HP_TRACE_CC_ENTER, distance };
    out[1] = (hp_trace_event){ cc, 0, 0 }; /* payload a = the context */
    return 2;
}

/* Hybrid traces: a Leave as CallingContextLeave of the innermost open context; the next
 * event continues from its parent (OTF2's rule). */
static size_t map_leave(mapped_reader *m, uint64_t time, hp_trace_event *out)
{
    uint32_t cc = m->nopen > 0 ? m->open[--m->nopen] : NO_CONTEXT;
    if (cc != NO_CONTEXT)
        m->prev_context = hp_trace_contexts_parent(m->contexts, cc);
    out[0] = (hp_trace_event){ time, HP_TRACE_CC_LEAVE, cc };
    return 1;
}

/* One event (slots slots at e) translated into out; returns the slots written, 0 when
 * out of memory. Region ids become global, communicator ids the trace's, call-tree nodes
 * of samples calling context ids, and in hybrid traces Enter/Leave calling-context
 * events. */
static size_t map_event(mapped_reader *m, const hp_trace_event *e, size_t slots,
                        hp_trace_event *out)
{
    uint32_t kind = e->kind, id = e->region;
    if ((kind == HP_TRACE_ENTER || kind == HP_TRACE_LEAVE) && m->region_map != NULL)
        id = m->region_map[id];
    if (kind == HP_TRACE_ENTER && m->hybrid)
        return map_enter(m, id, e->time, out);
    if (kind == HP_TRACE_LEAVE && m->hybrid)
        return map_leave(m, e->time, out);
    memcpy(out, e, slots * sizeof(*e));
    if (kind == HP_TRACE_ENTER || kind == HP_TRACE_LEAVE)
        out->region = id;
    else if (hp_trace_has_comm(kind))
        out->region = comm_id(m, id);
    else if (kind == HP_TRACE_SAMPLE)
        map_sample(m, e, out);
    return slots;
}

/* Chunks of the location's events, translated by map_event (into a copy that may be
 * longer: a CallingContextEnter takes two slots). */
static int next_mapped(void *ctx, const hp_trace_event **events, size_t *n)
{
    mapped_reader *m = ctx;
    int rc = hp_trace_cut_filter_next(&m->cut, events, n);
    if (rc != 1 || (m->region_map == NULL && m->comm_map == NULL && !m->samples && !m->hybrid))
        return rc; /* serial without samples: as they are */
    if (2 * *n > m->copy_capacity) {
        free(m->copy);
        m->copy = malloc(2 * *n * sizeof(hp_trace_event));
        m->copy_capacity = m->copy != NULL ? 2 * *n : 0;
        if (m->copy == NULL)
            return -1;
    }
    size_t out = 0;
    for (size_t i = 0; i < *n; i += hp_trace_slots((*events)[i].kind)) {
        size_t slots = hp_trace_slots((*events)[i].kind);
        if (i + slots > *n) { /* cut off: passed on as it is, the writer says so */
            memcpy(&m->copy[out], &(*events)[i], (*n - i) * sizeof(hp_trace_event));
            out += *n - i;
            break;
        }
        size_t written = map_event(m, &(*events)[i], slots, &m->copy[out]);
        if (written == 0)
            return -1;
        out += written;
    }
    *events = m->copy;
    *n = out;
    return 1;
}

/* Calling contexts for this process's locations: for their samples, and in hybrid
 * traces for their regions. NULL when there is nothing to resolve, or out of memory
 * (said on stderr). */
static hp_trace_contexts *trace_contexts(hp_location **locs, size_t n,
                                         const trace_tree *tree, const uint32_t *region_map,
                                         bool hybrid)
{
    uint64_t samples = 0;
    for (size_t i = 0; i < n; i++)
        if (locs[i] != NULL)
            samples += locs[i]->trace.samples;
    if (samples == 0 && !hybrid)
        return NULL;
    hp_trace_contexts *c = tree != NULL && tree->ncnodes > 0
                               ? hp_trace_contexts_new(tree->cnodes, tree->ncnodes, region_map)
                               : NULL;
    if (c == NULL)
        hp_warn("trace: %llu samples left out%s (%s)", (unsigned long long)samples,
                hybrid ? ", regions written as Enter/Leave" : "",
                tree == NULL || tree->ncnodes == 0 ? "no unified call tree" : "out of memory");
    return c;
}

/* The global ids of the marker regions, for the writer's definitions and the contexts
 * (hp_trace_marker_context). */
static uint32_t marker_regions[HP_TRACE_MARKERS];

static void set_markers(hp_trace_writer *w, hp_trace_contexts *c, const uint32_t *region_map)
{
    hp_trace_marker_regions(marker_regions);
    for (unsigned k = 0; k < HP_TRACE_MARKERS; k++)
        if (region_map != NULL && marker_regions[k] != UINT32_MAX)
            marker_regions[k] = region_map[marker_regions[k]];
    hp_trace_writer_set_markers(w, marker_regions, HP_TRACE_MARKERS);
    hp_trace_contexts_set_markers(c, marker_regions, HP_TRACE_MARKERS);
}

/* Levels an adaptive buffer closed: its kept samples are the multiples of 2^k. */
static unsigned sample_halvings(const hp_trace_bins *bins)
{
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(bins, &st);
    return st.halvings;
}

/* Writes every location of this process into w (applying the job's consistent cut while
 * hp_trace_output_write writes), with region ids translated by region_map (local id ->
 * global id; NULL = the same) and the communicator ids of MPI events by comm_map (ncomms
 * local ids -> global id, UINT32_MAX = not defined: the event is left out; NULL = ids 0
 * and 1, MPI_COMM_WORLD and MPI_COMM_SELF, only), and samples get the calling contexts of
 * tree (NULL or empty: samples are left out). counts receives one event count per
 * location in location-id order (as many as hp_location_count()). Returns 0 or -1 after
 * a message on stderr. */
static int write_locations(hp_trace_writer *w, int rank, const uint32_t *region_map,
                           const uint32_t *comm_map, uint32_t ncomms, const trace_tree *tree,
                           uint64_t *counts)
{
    size_t n;
    hp_location **locs = locations_in_order(&n);
    if (locs == NULL) {
        hp_error("trace: rank %d: out of memory listing the locations; none written", rank);
        return -1;
    }
    /* Hybrid (sampling on, the same on every process): regions as calling-context
     * events, never next to Enter/Leave (OTF2: mutually exclusive in a trace). */
    bool hybrid = hp_cfg.sampling_frequency != 0 && tree != NULL && tree->ncnodes > 0;
    hp_trace_contexts *contexts = trace_contexts(locs, n, tree, region_map, hybrid);
    hybrid = hybrid && contexts != NULL;
    if (hybrid)
        set_markers(w, contexts, region_map);
    if (hp_trace_adaptive() && hp_trace_writer_set_adaptive(w) < 0)
        hp_warn("trace: no OTF2 attribute list: samples are written without their numbers");
    hp_trace_clock clock = hp_trace_output_clock();
    set_clock_error(w);
    uint64_t clamped_before = hp_trace_writer_clamped(w);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        counts[i] = 0;
        mapped_reader m = { .region_map = region_map, .comm_map = comm_map, .ncomms = ncomms,
                            .contexts = contexts, .hybrid = hybrid,
                            .prev_context = UINT32_MAX };
        if (locs[i] == NULL)
            continue;
        m.samples = locs[i]->trace.samples > 0;
        if (hp_trace_reader_open(&m.reader, &locs[i]->trace) < 0) {
            /* still written (empty): every location in the definitions needs its files */
            hp_warn("trace: cannot read the spilled events of location "
                    "%u; writing it empty", locs[i]->id);
            free(m.reader.scratch);
            m.reader = (hp_trace_reader){ &locs[i]->trace, NULL, -1, NULL, NULL };
            rc = -1;
        }
        hp_trace_cut_filter_init(&m.cut, job_cut, &m.reader, hp_trace_dropped_region());
        char err[512];
        uint64_t id = (uint64_t)rank << 32 | locs[i]->id;
        if (locs[i]->trace.bins != NULL)
            hp_trace_writer_set_halvings(w, sample_halvings(locs[i]->trace.bins));
        int64_t written = hp_trace_writer_location(w, id, &clock, next_mapped, &m, err,
                                                   sizeof(err));
        if (written < 0) {
            hp_error("trace: location %u of rank %d not written: %s", locs[i]->id, rank,
                     err[0] != '\0' ? err : "the OTF2 writer gave no reason");
            rc = -1;
        } else {
            counts[i] = (uint64_t)written;
        }
        if (m.unknown > 0)
            hp_warn("trace: location %u: %llu region visits left out: their call paths are "
                    "not in the unified call tree", locs[i]->id,
                    (unsigned long long)m.unknown);
        hp_trace_reader_close(&m.reader);
        hp_trace_cut_filter_release(&m.cut);
        free(m.copy);
        free(m.open);
    }
    free(locs);
    hp_trace_contexts_free(contexts);
    uint64_t clamped = hp_trace_writer_clamped(w) - clamped_before;
    if (clamped > 0)
        hp_warn("trace: %llu timestamps of rank %d went backwards after "
                "clock correction and were raised to their predecessor",
                (unsigned long long)clamped, rank);
    return rc;
}

/* The global time span of the events this process wrote into w (UINT64_MAX, 0 when it
 * wrote none), to be reduced with min/max over the processes. */
static void own_span(const hp_trace_writer *w, uint64_t *first, uint64_t *last)
{
    if (!hp_trace_writer_time_range(w, first, last)) { /* no events: neutral for min/max */
        *first = UINT64_MAX;
        *last = 0;
    }
}

/* Opens the archive on every process of the job or on none. A failure is said once:
 * by the process that failed first, with its reason. */
static hp_trace_writer *open_archive(const char *directory, const hp_trace_job *job)
{
    char err[512];
    hp_trace_writer *w = hp_trace_writer_open(directory, job->rank, job->otf2, err,
                                              sizeof(err));
    if (w == NULL && job->otf2 == NULL)
        hp_error("trace: %s", err);
    else if (w == NULL && (job->says_why == NULL || job->says_why(job)))
        hp_error("rank %d: trace not written: %s", job->rank, err);
    return w;
}

static void reduce_span(const hp_trace_job *job, hp_trace_writer *w, uint64_t span[2])
{
    own_span(w, &span[0], &span[1]);
    if (job->reduce_span != NULL)
        job->reduce_span(job, span);
}

/* Rank 0's global definitions, which need one event count per location of merged: a
 * process that could not count (out of memory) sent none, and then they are not
 * written, said once, rather than read past the counts. */
static void write_global_defs(hp_trace_writer *w, const hp_profile *merged,
                              const uint64_t *all, size_t nall, const uint64_t span[2])
{
    char err[512];
    size_t need = merged != NULL ? merged->nlocations : 0;
    if (all == NULL || nall < need)
        hp_error("trace: global definitions not written: event counts of %zu of %zu "
                 "locations are missing (out of memory)", need - (all != NULL ? nall : 0),
                 need);
    else if (hp_trace_writer_global_defs(w, merged, all, 1e9, span[0], span[1], err,
                                         sizeof(err)) < 0)
        hp_error("trace: %s", err);
}

/* This process's locations, then rank 0's global definitions with every location's
 * event count, then the collective close. */
static void write_archive(hp_trace_writer *w, const hp_profile *merged,
                          const hp_trace_job *job, const hp_trace_unified *u)
{
    char err[512];
    uint64_t ncnodes = merged != NULL ? merged->ncnodes : 0;
    hp_profile_cnode *shared = job->call_tree != NULL ? job->call_tree(job, merged, &ncnodes)
                                                      : NULL;
    const hp_profile_cnode *cnodes = merged != NULL ? merged->cnodes : NULL;
    trace_tree tree = { job->call_tree != NULL ? shared : cnodes, (size_t)ncnodes };
    size_t nlocal = hp_location_count(), n = nlocal, nall = 0;
    if (merged != NULL && merged->nlocations > n)
        n = merged->nlocations;
    uint64_t *mine = calloc(n ? n : 1, sizeof(uint64_t));
    /* A location that failed was said; the definitions are written all the same, so the
     * others stay readable. */
    if (mine != NULL &&
        write_locations(w, job->rank, u->region_map, u->comm_map, u->ncomm_map, &tree,
                        mine) < 0)
        hp_warn("trace: rank %d: events are missing from the trace (see above)",
                job->rank);
    uint64_t *all = mine;
    if (job->gather_counts != NULL)
        all = job->gather_counts(job, mine, mine != NULL ? (int)nlocal : 0, &nall);
    else if (mine != NULL)
        nall = nlocal;
    uint64_t span[2];
    reduce_span(job, w, span);
    hp_trace_writer_set_comms(w, u->comms, u->ncomms);
    if (job->rank == 0)
        write_global_defs(w, merged, all, nall, span);
    if (hp_trace_writer_close(w, err, sizeof(err)) < 0) {
        if (job->otf2 != NULL)
            hp_error("rank %d: trace: %s", job->rank, err);
        else
            hp_error("trace: %s", err);
    }
    if (all != mine)
        free(all);
    free(mine);
    free(shared);
}

hp_trace_cut *hp_trace_output_write(const char *directory, const hp_profile *merged,
                                    const hp_trace_job *job, const hp_trace_unified *u)
{
    hp_trace_writer *w = open_archive(directory, job);
    if (w == NULL)
        return NULL;
    hp_trace_cut *cut = job->agree_cut != NULL ? job->agree_cut(job) : NULL;
    job_cut = cut;
    write_archive(w, merged, job, u);
    job_cut = NULL;
    return cut;
}

void hp_trace_output_serial(const char *directory, const hp_profile *p)
{
    hp_trace_job job = { 0 };
    hp_trace_unified none = { 0 };
    hp_trace_output_write(directory, p, &job, &none);
}

uint64_t hp_trace_output_flushes(void)
{
    uint64_t n = 0;
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next)
        n += l->trace.flushes;
    return n;
}

uint64_t hp_trace_output_lost_samples(void)
{
    uint64_t n = 0;
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next)
        n += l->trace.lost_samples;
    return n;
}

void hp_trace_output_adaptive_stats(hp_trace_output_adaptive *out)
{
    memset(out, 0, sizeof(*out));
    out->first_stop = -1;
    double tps = hp_timer_ticks_per_second();
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next) {
        if (l->trace.bins == NULL)
            continue;
        hp_trace_bins_stats st;
        hp_trace_bins_get_stats(l->trace.bins, &st);
        out->lost += st.events_lost;
        out->messages_lost += st.messages_lost;
        out->unclosed += st.unclosed;
        out->halvings += st.halvings;
        out->halved_locations += st.halvings != 0;
        if (st.stopped_at != 0) {
            out->stopped_locations++;
            double at = st.stopped_at > l->start_time
                            ? (double)(st.stopped_at - l->start_time) / tps : 0;
            if (out->first_stop < 0 || at < out->first_stop)
                out->first_stop = at;
            if (at > out->last_stop)
                out->last_stop = at;
        }
        uint64_t period = hp_trace_bins_period(l->trace.bins);
        if (st.halvings != 0 && period > out->longest_period)
            out->longest_period = period;
    }
}
