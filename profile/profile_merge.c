/*
 * Serializing and merging profiles (profile_merge.h). Runs at finalize on the system
 * heap. The buffer format is private to one build: native byte order, u32/u64 numbers,
 * strings as u32 length + bytes, every metric value 8 bytes (all our dtypes are).
 */
#include "profile_merge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "union_tree.h"
#include "util/hash.h"

static const char MAGIC[8] = "HPPROF1";

typedef struct storage {
    hp_profile_region *regions;
    hp_profile_cnode *cnodes;
    hp_profile_node *nodes;
    hp_profile_process *processes;
    hp_profile_location *locations;
    hp_profile_metric *metrics;
    hp_profile_call_count *unmeasured;
    void **values; /* one array per metric */
    char **strings;
    size_t nstrings;
    size_t string_capacity;
} storage;

/* ---- owned strings and arrays ------------------------------------------------------ */

static const char *own_string(storage *st, const char *s, size_t n)
{
    if (st->nstrings == st->string_capacity) {
        size_t cap = st->string_capacity ? 2 * st->string_capacity : 64;
        char **grown = realloc(st->strings, cap * sizeof(char *));
        if (grown == NULL)
            return NULL;
        st->strings = grown;
        st->string_capacity = cap;
    }
    char *copy = malloc(n + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    st->strings[st->nstrings++] = copy;
    return copy;
}

static void storage_free(storage *st, size_t nmetrics)
{
    if (st == NULL)
        return;
    for (size_t i = 0; i < st->nstrings; i++)
        free(st->strings[i]);
    for (size_t m = 0; st->values != NULL && m < nmetrics; m++)
        free(st->values[m]);
    free(st->strings);
    free(st->values);
    free(st->regions);
    free(st->cnodes);
    free(st->nodes);
    free(st->processes);
    free(st->locations);
    free(st->metrics);
    free(st->unmeasured);
    free(st);
}

void hp_owned_profile_release(hp_owned_profile *p)
{
    storage_free(p->storage, p->profile.nmetrics);
    memset(p, 0, sizeof(*p));
}

/* Allocates the arrays of a profile with the given sizes. */
static storage *storage_new(hp_profile *p, size_t nregions, size_t ncnodes, size_t nnodes,
                            size_t nprocesses, size_t nlocations, size_t nmetrics,
                            size_t nunmeasured)
{
    storage *st = calloc(1, sizeof(*st));
    if (st == NULL)
        return NULL;
    st->regions = calloc(nregions ? nregions : 1, sizeof(hp_profile_region));
    st->cnodes = calloc(ncnodes ? ncnodes : 1, sizeof(hp_profile_cnode));
    st->nodes = calloc(nnodes ? nnodes : 1, sizeof(hp_profile_node));
    st->processes = calloc(nprocesses ? nprocesses : 1, sizeof(hp_profile_process));
    st->locations = calloc(nlocations ? nlocations : 1, sizeof(hp_profile_location));
    st->metrics = calloc(nmetrics ? nmetrics : 1, sizeof(hp_profile_metric));
    st->values = calloc(nmetrics ? nmetrics : 1, sizeof(void *));
    st->unmeasured = calloc(nunmeasured ? nunmeasured : 1, sizeof(hp_profile_call_count));
    int ok = st->regions && st->cnodes && st->nodes && st->processes && st->locations &&
             st->metrics && st->values && st->unmeasured;
    size_t cells = ncnodes * nlocations > 0 ? ncnodes * nlocations : 1;
    for (size_t m = 0; ok && m < nmetrics; m++)
        ok = (st->values[m] = calloc(cells, 8)) != NULL;
    if (!ok) {
        storage_free(st, nmetrics);
        return NULL;
    }
    for (size_t m = 0; m < nmetrics; m++)
        st->metrics[m].values = st->values[m];
    *p = (hp_profile){ NULL, NULL, st->regions, nregions, st->cnodes, ncnodes,
                       st->nodes, nnodes, st->processes, nprocesses,
                       st->locations, nlocations, st->metrics, nmetrics,
                       st->unmeasured, nunmeasured, { 0 }, { 0 }, NULL, NULL, NULL };
    return st;
}

enum { SAMPLING_FIELDS = sizeof(hp_profile_sampling) / sizeof(uint64_t) };

/* Sums of two processes' sampling statistics; the frequency is the larger one. */
static void merge_sampling(hp_profile_sampling *out, const hp_profile_sampling *a,
                           const hp_profile_sampling *b)
{
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    uint64_t *sum = (uint64_t *)out;
    for (size_t i = 0; i < SAMPLING_FIELDS; i++)
        sum[i] = x[i] + y[i];
    out->frequency = a->frequency > b->frequency ? a->frequency : b->frequency;
}

enum { INSTRUMENTATION_FIELDS = sizeof(hp_profile_instrumentation) / sizeof(uint64_t) };

/* Two processes' instrumentation notes: counts of functions and the probe cost are the
 * larger (processes usually run one program), visits and time add up. */
static void merge_instrumentation(hp_profile_instrumentation *out,
                                  const hp_profile_instrumentation *a,
                                  const hp_profile_instrumentation *b)
{
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    uint64_t *m = (uint64_t *)out;
    for (size_t i = 0; i < INSTRUMENTATION_FIELDS; i++)
        m[i] = x[i] > y[i] ? x[i] : y[i];
    out->probe_visits = a->probe_visits + b->probe_visits;
    out->measured_ns = a->measured_ns + b->measured_ns;
}

/* ---- serialization ------------------------------------------------------------------ */

typedef struct writer {
    char *data;
    size_t length;
    size_t capacity;
    int failed;
} writer;

static void put(writer *w, const void *bytes, size_t n)
{
    if (w->failed)
        return;
    if (w->length + n > w->capacity) {
        size_t cap = w->capacity ? w->capacity : 4096;
        while (cap < w->length + n)
            cap *= 2;
        char *grown = realloc(w->data, cap);
        if (grown == NULL) {
            w->failed = 1;
            return;
        }
        w->data = grown;
        w->capacity = cap;
    }
    memcpy(w->data + w->length, bytes, n);
    w->length += n;
}

static void put_u32(writer *w, uint32_t v) { put(w, &v, sizeof(v)); }
static void put_u64(writer *w, uint64_t v) { put(w, &v, sizeof(v)); }

static void put_str(writer *w, const char *s)
{
    uint32_t n = (uint32_t)strlen(s != NULL ? s : "");
    put_u32(w, n);
    put(w, s != NULL ? s : "", n);
}

int hp_profile_serialize(const hp_profile *p, void **buffer, size_t *length)
{
    writer w = { 0 };
    put(&w, MAGIC, sizeof(MAGIC));
    put_str(&w, p->creator);
    put_str(&w, p->machine_name);
    put_u64(&w, p->nregions);
    put_u64(&w, p->ncnodes);
    put_u64(&w, p->nnodes);
    put_u64(&w, p->nprocesses);
    put_u64(&w, p->nlocations);
    put_u64(&w, p->nmetrics);
    put_u64(&w, p->nunmeasured);
    for (size_t i = 0; i < p->nregions; i++) {
        const hp_profile_region *r = &p->regions[i];
        put_str(&w, r->name);
        put_str(&w, r->mangled_name);
        put_str(&w, r->file);
        put_u32(&w, (uint32_t)r->begin_line);
        put_u32(&w, (uint32_t)r->end_line);
        put_str(&w, r->paradigm);
        put_str(&w, r->role);
        put_u32(&w, r->demoted);
    }
    for (size_t i = 0; i < p->ncnodes; i++) {
        put_u32(&w, p->cnodes[i].parent);
        put_u32(&w, p->cnodes[i].region);
    }
    for (size_t i = 0; i < p->nnodes; i++)
        put_str(&w, p->nodes[i].name);
    for (size_t i = 0; i < p->nprocesses; i++) {
        put_u32(&w, (uint32_t)p->processes[i].rank);
        put_u32(&w, p->processes[i].node);
    }
    for (size_t i = 0; i < p->nlocations; i++) {
        put_str(&w, p->locations[i].name);
        put_u32(&w, (uint32_t)p->locations[i].thread);
        put_u32(&w, p->locations[i].process);
    }
    for (size_t m = 0; m < p->nmetrics; m++) {
        const hp_profile_metric *mt = &p->metrics[m];
        put_str(&w, mt->uniq_name);
        put_str(&w, mt->disp_name);
        put_str(&w, mt->uom);
        put_str(&w, mt->descr);
        put_str(&w, mt->parent != NULL ? mt->parent : "");
        put_u32(&w, (uint32_t)mt->dtype);
        put_u32(&w, (uint32_t)mt->kind);
        put(&w, mt->values, p->ncnodes * p->nlocations * 8);
    }
    for (size_t i = 0; i < p->nunmeasured; i++) {
        put_str(&w, p->unmeasured[i].name);
        put_u32(&w, p->unmeasured[i].process);
        put_u64(&w, p->unmeasured[i].calls);
    }
    const uint64_t *sampling = (const uint64_t *)&p->sampling;
    for (size_t i = 0; i < SAMPLING_FIELDS; i++)
        put_u64(&w, sampling[i]);
    const uint64_t *instrumentation = (const uint64_t *)&p->instrumentation;
    for (size_t i = 0; i < INSTRUMENTATION_FIELDS; i++)
        put_u64(&w, instrumentation[i]);
    if (w.failed) {
        free(w.data);
        return -1;
    }
    *buffer = w.data;
    *length = w.length;
    return 0;
}

typedef struct reader {
    const char *data;
    size_t length;
    size_t pos;
    int failed;
} reader;

static const void *take(reader *r, size_t n)
{
    if (r->failed || n > r->length - r->pos) {
        r->failed = 1;
        return NULL;
    }
    const void *p = r->data + r->pos;
    r->pos += n;
    return p;
}

static uint32_t get_u32(reader *r)
{
    uint32_t v = 0;
    const void *p = take(r, sizeof(v));
    if (p != NULL)
        memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t get_u64(reader *r)
{
    uint64_t v = 0;
    const void *p = take(r, sizeof(v));
    if (p != NULL)
        memcpy(&v, p, sizeof(v));
    return v;
}

static const char *get_str(reader *r, storage *st)
{
    uint32_t n = get_u32(r);
    const char *s = take(r, n);
    const char *owned = s != NULL ? own_string(st, s, n) : NULL;
    if (owned == NULL)
        r->failed = 1;
    return owned != NULL ? owned : "";
}

/* Checks the invariants the writers rely on (profile.h), after reading. */
static int check_indices(const hp_profile *p)
{
    for (size_t i = 0; i < p->ncnodes; i++) {
        const hp_profile_cnode *c = &p->cnodes[i];
        if (c->region >= p->nregions ||
            (i == 0 ? c->parent != HP_PROFILE_NO_PARENT : c->parent >= i))
            return -1;
    }
    for (size_t i = 0; i < p->nprocesses; i++)
        if (p->processes[i].node >= p->nnodes)
            return -1;
    for (size_t i = 0; i < p->nlocations; i++)
        if (p->locations[i].process >= p->nprocesses)
            return -1;
    return p->ncnodes > 0 ? 0 : -1;
}

int hp_profile_deserialize(const void *buffer, size_t length, hp_owned_profile *out)
{
    reader r = { buffer, length, 0, 0 };
    const void *magic = take(&r, sizeof(MAGIC));
    if (magic == NULL || memcmp(magic, MAGIC, sizeof(MAGIC)) != 0)
        return -1;
    storage tmp = { 0 };
    const char *creator = get_str(&r, &tmp), *machine = get_str(&r, &tmp);
    uint64_t n[7];
    for (int i = 0; i < 7; i++)
        n[i] = get_u64(&r);
    if (r.failed || n[1] * n[4] > length || n[0] > length || n[6] > length) {
        /* sizes the buffer cannot hold */
        for (size_t i = 0; i < tmp.nstrings; i++)
            free(tmp.strings[i]);
        free(tmp.strings);
        return -1;
    }
    hp_profile *p = &out->profile;
    storage *st = storage_new(p, n[0], n[1], n[2], n[3], n[4], n[5], n[6]);
    if (st == NULL)
        return -1;
    st->strings = tmp.strings; /* adopt creator and machine name */
    st->nstrings = tmp.nstrings;
    st->string_capacity = tmp.string_capacity;
    out->storage = st;
    p->creator = creator;
    p->machine_name = machine;
    for (size_t i = 0; i < p->nregions; i++) {
        hp_profile_region *g = &st->regions[i];
        g->name = get_str(&r, st);
        g->mangled_name = get_str(&r, st);
        g->file = get_str(&r, st);
        g->begin_line = (int)get_u32(&r);
        g->end_line = (int)get_u32(&r);
        g->paradigm = get_str(&r, st);
        g->role = get_str(&r, st);
        g->demoted = get_u32(&r) != 0;
    }
    for (size_t i = 0; i < p->ncnodes; i++) {
        st->cnodes[i].parent = get_u32(&r);
        st->cnodes[i].region = get_u32(&r);
    }
    for (size_t i = 0; i < p->nnodes; i++)
        st->nodes[i].name = get_str(&r, st);
    for (size_t i = 0; i < p->nprocesses; i++) {
        st->processes[i].rank = (int)get_u32(&r);
        st->processes[i].node = get_u32(&r);
    }
    for (size_t i = 0; i < p->nlocations; i++) {
        st->locations[i].name = get_str(&r, st);
        st->locations[i].thread = (int)get_u32(&r);
        st->locations[i].process = get_u32(&r);
    }
    for (size_t m = 0; m < p->nmetrics; m++) {
        hp_profile_metric *mt = &st->metrics[m];
        mt->uniq_name = get_str(&r, st);
        mt->disp_name = get_str(&r, st);
        mt->uom = get_str(&r, st);
        mt->descr = get_str(&r, st);
        mt->parent = get_str(&r, st);
        if (mt->parent != NULL && mt->parent[0] == '\0')
            mt->parent = NULL;
        mt->dtype = (hp_metric_dtype)get_u32(&r);
        mt->kind = (hp_metric_kind)get_u32(&r);
        const void *v = take(&r, p->ncnodes * p->nlocations * 8);
        if (v != NULL)
            memcpy(st->values[m], v, p->ncnodes * p->nlocations * 8);
    }
    for (size_t i = 0; i < p->nunmeasured; i++) {
        st->unmeasured[i].name = get_str(&r, st);
        st->unmeasured[i].process = get_u32(&r);
        st->unmeasured[i].calls = get_u64(&r);
        if (st->unmeasured[i].process >= p->nprocesses)
            r.failed = 1;
    }
    uint64_t *sampling = (uint64_t *)&p->sampling;
    for (size_t i = 0; i < SAMPLING_FIELDS; i++)
        sampling[i] = get_u64(&r);
    uint64_t *instrumentation = (uint64_t *)&p->instrumentation;
    for (size_t i = 0; i < INSTRUMENTATION_FIELDS; i++)
        instrumentation[i] = get_u64(&r);
    if (r.failed || r.pos != length || check_indices(p) < 0) {
        hp_owned_profile_release(out);
        return -1;
    }
    return 0;
}

/* ---- merging ------------------------------------------------------------------------- */

/* Region identity: all descriptive fields. The merged regions are found through an
 * index (util/hash.h) of their identity, sized for every region of both profiles. */
static uint64_t region_hash(const hp_profile_region *r)
{
    uint64_t h = HP_HASH_SEED;
    h = hp_hash_str(h, r->name);
    h = hp_hash_str(h, r->mangled_name);
    h = hp_hash_str(h, r->file);
    h = hp_hash_str(h, r->paradigm);
    h = hp_hash_str(h, r->role);
    return hp_hash_u64(h, (uint32_t)r->begin_line);
}

static int region_equal(const hp_profile_region *a, const hp_profile_region *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->mangled_name, b->mangled_name) == 0 &&
           strcmp(a->file, b->file) == 0 && a->begin_line == b->begin_line &&
           a->end_line == b->end_line && strcmp(a->paradigm, b->paradigm) == 0 &&
           strcmp(a->role, b->role) == 0;
}

static uint64_t merged_hash(const void *merged, uint32_t id)
{
    return region_hash(&((const hp_profile_region *)merged)[id]);
}

static bool merged_is(const void *merged, uint32_t id, const void *r)
{
    return region_equal(&((const hp_profile_region *)merged)[id], r);
}

/* Index of r among the merged regions, appending it when new. Adding cannot fail: the
 * index was sized for all regions of both profiles, so it never grows. */
static uint32_t region_id(hp_hash_index *map, hp_profile_region *merged, size_t *count,
                          const hp_profile_region *r)
{
    uint64_t h = region_hash(r);
    uint32_t id = hp_hash_index_find(map, h, merged_is, merged, r);
    if (id != UINT32_MAX) {
        merged[id].demoted |= r->demoted; /* demoted in either process */
        return id;
    }
    id = (uint32_t)(*count)++;
    merged[id] = *r; /* strings stay those of a or b; copied below */
    (void)hp_hash_index_add(map, h, id, merged_hash, merged);
    return id;
}

static uint32_t node_id(hp_profile_node *merged, size_t *count, const char *name)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp(merged[i].name, name) == 0)
            return (uint32_t)i;
    merged[*count].name = name;
    return (uint32_t)(*count)++;
}

/* Maps every cnode of p into the union tree; uid receives the union node of each. */
static int unite(hp_union_tree *u, const hp_profile *p, const uint32_t *region_of,
                 uint32_t *uid)
{
    uid[0] = 0;
    for (size_t i = 1; i < p->ncnodes; i++) {
        uid[i] = hp_union_child(u, uid[p->cnodes[i].parent], region_of[p->cnodes[i].region]);
        if (uid[i] == HP_UNION_NONE)
            return -1;
    }
    return 0;
}

static int same_metrics(const hp_profile *a, const hp_profile *b)
{
    if (a->nmetrics != b->nmetrics)
        return 0;
    for (size_t m = 0; m < a->nmetrics; m++)
        if (strcmp(a->metrics[m].uniq_name, b->metrics[m].uniq_name) != 0 ||
            a->metrics[m].dtype != b->metrics[m].dtype ||
            a->metrics[m].kind != b->metrics[m].kind)
            return 0;
    return 1;
}

/* Copies every string the merged profile points to into its own storage. */
static int own_all_strings(storage *st, hp_profile *p)
{
#define OWN(field)                                                                  \
    do {                                                                            \
        if (((field) = own_string(st, (field), strlen(field))) == NULL)             \
            return -1;                                                              \
    } while (0)
    OWN(p->creator);
    OWN(p->machine_name);
    for (size_t i = 0; i < p->nregions; i++) {
        hp_profile_region *r = &st->regions[i];
        OWN(r->name);
        OWN(r->mangled_name);
        OWN(r->file);
        OWN(r->paradigm);
        OWN(r->role);
    }
    for (size_t i = 0; i < p->nnodes; i++)
        OWN(st->nodes[i].name);
    for (size_t i = 0; i < p->nlocations; i++)
        OWN(st->locations[i].name);
    for (size_t i = 0; i < p->nunmeasured; i++)
        OWN(st->unmeasured[i].name);
    for (size_t m = 0; m < p->nmetrics; m++) {
        OWN(st->metrics[m].uniq_name);
        OWN(st->metrics[m].disp_name);
        OWN(st->metrics[m].uom);
        OWN(st->metrics[m].descr);
        if (st->metrics[m].parent != NULL)
            OWN(st->metrics[m].parent);
    }
#undef OWN
    return 0;
}

/* Copies the values of src (locations shifted by offset) to their merged rows. */
static void copy_values(hp_profile *out, const hp_profile *src, const hp_union_tree *u,
                        const uint32_t *uid, size_t offset)
{
    size_t L = out->nlocations, SL = src->nlocations;
    for (size_t m = 0; m < out->nmetrics; m++) {
        uint64_t *dst = (uint64_t *)out->metrics[m].values;
        const uint64_t *from = src->metrics[m].values;
        for (size_t c = 0; c < src->ncnodes; c++) {
            size_t row = u->nodes[uid[c]].position;
            memcpy(&dst[row * L + offset], &from[c * SL], SL * sizeof(uint64_t));
        }
    }
}

typedef struct merge_work {
    hp_profile_region *regions;
    hp_profile_node *nodes;
    uint32_t *region_a, *region_b, *uid_a, *uid_b;
    hp_hash_index map;
    hp_union_tree u;
} merge_work;

static void work_free(merge_work *w)
{
    free(w->regions);
    free(w->nodes);
    free(w->region_a);
    free(w->region_b);
    free(w->uid_a);
    free(w->uid_b);
    hp_hash_index_release(&w->map);
    hp_union_release(&w->u);
}

static int work_alloc(merge_work *w, const hp_profile *a, const hp_profile *b)
{
    size_t nr = a->nregions + b->nregions;
    w->regions = calloc(nr, sizeof(hp_profile_region));
    w->nodes = calloc(a->nnodes + b->nnodes, sizeof(hp_profile_node));
    w->region_a = calloc(a->nregions, sizeof(uint32_t));
    w->region_b = calloc(b->nregions, sizeof(uint32_t));
    w->uid_a = calloc(a->ncnodes, sizeof(uint32_t));
    w->uid_b = calloc(b->ncnodes, sizeof(uint32_t));
    int map = hp_hash_index_init(&w->map, nr);
    return w->regions && w->nodes && w->region_a && w->region_b && w->uid_a && w->uid_b &&
                   map == 0
               ? 0
               : -1;
}

int hp_profile_merge(const hp_profile *a, const hp_profile *b, hp_owned_profile *out)
{
    if (!same_metrics(a, b) || a->ncnodes == 0 || b->ncnodes == 0)
        return -1;
    merge_work w = { 0 };
    int rc = -1;
    size_t nregions = 0, nnodes = 0;
    if (work_alloc(&w, a, b) < 0)
        goto out;
    for (size_t i = 0; i < a->nregions; i++)
        w.region_a[i] = region_id(&w.map, w.regions, &nregions, &a->regions[i]);
    for (size_t i = 0; i < b->nregions; i++)
        w.region_b[i] = region_id(&w.map, w.regions, &nregions, &b->regions[i]);
    /* Both trees hang below the first profile's root (the program). */
    w.region_b[b->cnodes[0].region] = w.region_a[a->cnodes[0].region];
    if (hp_union_init(&w.u, w.region_a[a->cnodes[0].region]) < 0 ||
        unite(&w.u, a, w.region_a, w.uid_a) < 0 || unite(&w.u, b, w.region_b, w.uid_b) < 0)
        goto out;
    for (size_t i = 0; i < a->nnodes; i++)
        node_id(w.nodes, &nnodes, a->nodes[i].name);
    for (size_t i = 0; i < b->nnodes; i++)
        node_id(w.nodes, &nnodes, b->nodes[i].name);

    hp_profile *p = &out->profile;
    storage *st = storage_new(p, nregions, w.u.count, nnodes, a->nprocesses + b->nprocesses,
                              a->nlocations + b->nlocations, a->nmetrics,
                              a->nunmeasured + b->nunmeasured);
    if (st == NULL)
        goto out;
    out->storage = st;
    memcpy(st->regions, w.regions, nregions * sizeof(hp_profile_region));
    memcpy(st->nodes, w.nodes, nnodes * sizeof(hp_profile_node));
    if (hp_union_number(&w.u, st->cnodes) < 0)
        goto fail;
    for (size_t i = 0; i < a->nprocesses; i++) {
        st->processes[i].rank = a->processes[i].rank;
        st->processes[i].node = node_id(w.nodes, &nnodes, a->nodes[a->processes[i].node].name);
    }
    for (size_t i = 0; i < b->nprocesses; i++) {
        st->processes[a->nprocesses + i].rank = b->processes[i].rank;
        st->processes[a->nprocesses + i].node = node_id(w.nodes, &nnodes,
                                                        b->nodes[b->processes[i].node].name);
    }
    for (size_t i = 0; i < a->nlocations; i++)
        st->locations[i] = a->locations[i];
    for (size_t i = 0; i < b->nlocations; i++) {
        st->locations[a->nlocations + i] = b->locations[i];
        st->locations[a->nlocations + i].process += (uint32_t)a->nprocesses;
    }
    for (size_t m = 0; m < a->nmetrics; m++) {
        void *values = st->values[m];
        st->metrics[m] = a->metrics[m];
        st->metrics[m].values = values;
    }
    for (size_t i = 0; i < a->nunmeasured; i++)
        st->unmeasured[i] = a->unmeasured[i];
    for (size_t i = 0; i < b->nunmeasured; i++) {
        st->unmeasured[a->nunmeasured + i] = b->unmeasured[i];
        st->unmeasured[a->nunmeasured + i].process += (uint32_t)a->nprocesses;
    }
    p->creator = a->creator;
    p->machine_name = a->machine_name;
    merge_sampling(&p->sampling, &a->sampling, &b->sampling);
    merge_instrumentation(&p->instrumentation, &a->instrumentation, &b->instrumentation);
    copy_values(p, a, &w.u, w.uid_a, 0);
    copy_values(p, b, &w.u, w.uid_b, a->nlocations);
    if (own_all_strings(st, p) < 0)
        goto fail;
    rc = 0;
    goto out;
fail:
    hp_owned_profile_release(out);
out:
    work_free(&w);
    return rc;
}
