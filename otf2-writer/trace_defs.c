/*
 * The global definitions of the OTF2 trace (trace_writer.h), written by rank 0 in
 * Score-P's layout (doc/formats/CUBE4-OTF2.md §5-6): clock properties, the MPI paradigm,
 * the system tree, location groups, locations, regions, the sampling's generators and
 * calling contexts, metrics and, for MPI runs, the MPI location group and communicator
 * definitions. Definitions of a class need ids 0, 1, 2, ... in write order; strings are
 * interned and each new one is written just before its first user.
 */
#include "otf2-writer/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

/* ------------------------------------------------------------------ strings */

/* Interned definition strings: id = index in names, found through an open-addressing
 * index (util/hash.h; tens of thousands of region names are common, so no linear
 * search). */
typedef struct string_table {
    char **names;
    uint32_t n, cap;
    hp_hash_index index;
} string_table;

static uint64_t name_hash(const void *ctx, uint32_t id)
{
    return hp_hash_str(HP_HASH_SEED, ((const string_table *)ctx)->names[id]);
}

static bool same_name(const void *ctx, uint32_t id, const void *key)
{
    return strcmp(((const string_table *)ctx)->names[id], key) == 0;
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
    if (t->index.slots == NULL && hp_hash_index_init(&t->index, 512) != 0)
        return OTF2_UNDEFINED_STRING;
    uint64_t hash = hp_hash_str(HP_HASH_SEED, s);
    uint32_t id = hp_hash_index_find(&t->index, hash, same_name, t, s);
    if (id != UINT32_MAX)
        return id;
    if (append_name(t, s) != 0)
        return OTF2_UNDEFINED_STRING;
    if (hp_hash_index_add(&t->index, hash, t->n - 1, name_hash, t) != 0) {
        free(t->names[--t->n]);
        return OTF2_UNDEFINED_STRING;
    }
    return t->n - 1;
}

static void free_strings(string_table *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    hp_hash_index_release(&t->index);
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
    if (!d->failed && hp__otf2_check(d->w, rc, what, d->err, d->errlen) != 0)
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
        hp__otf2_error(d->err, d->errlen, "%s: out of memory for definition strings",
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
        hp__otf2_error(d->err, d->errlen, "%s: out of memory", d->w->anchor_path);
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
        hp__otf2_error(d->err, d->errlen, "%s: %zu call paths are too many for the calling "
                       "contexts of %u marker regions", d->w->anchor_path, n, d->w->nmarkers);
        d->failed = 1;
        return;
    }
    for (unsigned k = 0; k < d->w->nmarkers; k++) {
        if (d->w->markers[k] >= d->p->nregions) {
            hp__otf2_error(d->err, d->errlen, "%s: marker region %u is not defined (%zu regions)",
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
    hp__otf2_error(d->err, d->errlen, "%s: profile: %s (index %zu)", d->w->anchor_path, what,
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
    if (hp__otf2_check(d->w, OTF2_Archive_SetMachineName(d->w->archive, machine),
                       "OTF2_Archive_SetMachineName", d->err, d->errlen) != 0)
        return -1;
    d->writer = OTF2_Archive_GetGlobalDefWriter(d->w->archive);
    if (d->writer == NULL)
        return hp__otf2_check(d->w, OTF2_ERROR_INVALID_CALL, "OTF2_Archive_GetGlobalDefWriter",
                              d->err, d->errlen);
    put_definitions(d, ticks_per_second, first, last);
    return d->failed ? -1 : 0;
}

int hp_trace_writer_global_defs(hp_trace_writer *w, const hp_profile *p,
                                const uint64_t *events, double ticks_per_second,
                                uint64_t first_time, uint64_t last_time,
                                char *err, size_t errlen)
{
    hp__otf2_clear(err, errlen);
    if (w->rank != 0) {
        hp__otf2_error(err, errlen, "%s: global definitions are written on rank 0 only, not %d",
                       w->anchor_path, w->rank);
        return -1;
    }
    if (!(ticks_per_second >= 1.0) || p->nprocesses == 0 || p->nprocesses > UINT32_MAX ||
        p->nregions >= UINT32_MAX || (p->nlocations > 0 && events == NULL)) {
        hp__otf2_error(err, errlen, "%s: global definitions: bad arguments (%g ticks/s, %zu "
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
        hp__otf2_error(err, errlen, "%s: out of memory", w->anchor_path);
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
