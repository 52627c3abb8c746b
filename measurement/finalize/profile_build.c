/*
 * Merging per-location call trees into the unified profile. Runs once at finalize,
 * after measurement stopped, so it uses the system heap freely.
 *
 * Pass 1 merges every location's tree into a "union" tree (one node per distinct call
 * path, found through a hash of (parent, region)); the union tree is then numbered in
 * depth-first pre-order; pass 2 walks every location's tree again and stores its values
 * at the numbered positions. Both walks use explicit stacks: call trees can be deeper
 * than the C stack allows recursion (recursive programs).
 */
#include "profile_build.h"

#include "profile/union_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct walk_item {
    const hp_cct_node *node;
    uint32_t uid;
} walk_item;

typedef struct walk_stack {
    walk_item *items;
    size_t count;
    size_t capacity;
} walk_stack;

static int stack_push(walk_stack *s, const hp_cct_node *node, uint32_t uid)
{
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? 2 * s->capacity : 256;
        walk_item *items = realloc(s->items, capacity * sizeof(walk_item));
        if (items == NULL)
            return -1;
        s->items = items;
        s->capacity = capacity;
    }
    s->items[s->count++] = (walk_item){ node, uid };
    return 0;
}

/* Calls visit(node, uid, ctx) for every node of loc's tree with its union id, merging
 * new call paths into u. Children are merged in creation order (the tree lists them
 * newest first), so union children appear in order of first appearance. */
static int walk_location(hp_union_tree *u, const hp_location *loc,
                         void (*visit)(const hp_cct_node *, uint32_t, void *), void *ctx)
{
    walk_stack s = { 0 };
    int rc = stack_push(&s, loc->cct.root, 0);
    while (rc == 0 && s.count > 0) {
        walk_item it = s.items[--s.count];
        if (visit != NULL)
            visit(it.node, it.uid, ctx);
        size_t first = s.count;
        for (const hp_cct_node *c = it.node->first_child; c != NULL && rc == 0;
             c = c->next_sibling)
            if (c->region->id != UINT32_MAX) /* a sampled function never named (budget) */
                rc = stack_push(&s, c, HP_UNION_NONE);
        for (size_t i = s.count; i-- > first && rc == 0;) { /* oldest child is last */
            s.items[i].uid = hp_union_child(u, it.uid, s.items[i].node->region->id);
            if (s.items[i].uid == HP_UNION_NONE)
                rc = -1;
        }
    }
    free(s.items);
    return rc;
}

typedef struct fill_ctx {
    hp_profile_data *d;
    const hp_union_tree *u;
    size_t location;
    size_t nlocations;
    const hp_metrics *metrics; /* the location's counters, NULL = none */
    double ticks_per_second;
} fill_ctx;

static void fill_values(const hp_cct_node *n, uint32_t uid, void *arg)
{
    fill_ctx *c = arg;
    size_t i = (size_t)c->u->nodes[uid].position * c->nlocations + c->location;
    c->d->visits[i] = n->visits;
    c->d->time[i] = (double)n->incl_ticks / c->ticks_per_second;
    if (c->d->message_values[0] != NULL) {
        c->d->message_values[0][i] = n->bytes_sent;
        c->d->message_values[1][i] = n->bytes_received;
        c->d->message_values[2][i] = n->messages_sent;
        c->d->message_values[3][i] = n->messages_received;
    }
    for (unsigned k = 0; c->metrics != NULL && k < c->metrics->n; k++)
        c->d->counter_values[k][i] = hp_metrics_value(c->metrics, n->counters, k);
    if (c->d->recursion_depth != NULL)
        c->d->recursion_depth[i] = n->recursion_depth;
    if (c->d->wait_values[0] != NULL) {
        double v[HP_WSM_COUNT];
        hp_ws_node_values(n, c->ticks_per_second, v);
        for (unsigned k = 0; k < HP_WSM_COUNT; k++)
            c->d->wait_values[k][i] = v[k];
    }
    if (n->min_ticks != UINT64_MAX) {
        c->d->min_time[i] = (double)n->min_ticks / c->ticks_per_second;
        c->d->max_time[i] = (double)n->max_ticks / c->ticks_per_second;
    }
}

static int fill_regions(hp_profile_data *d)
{
    uint32_t n = hp_region_count();
    d->regions = calloc(n, sizeof(hp_profile_region));
    if (d->regions == NULL)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const hp_region *r = hp_region_at(i);
        d->regions[i] = (hp_profile_region){ r->name, r->mangled, r->file, r->line, -1,
                                             hp_paradigm_name(r->paradigm),
                                             r->role, r->demoted };
    }
    d->profile.regions = d->regions;
    d->profile.nregions = n;
    return 0;
}

static int fill_system(hp_profile_data *d, size_t nlocations, const char *host_name,
                       int rank)
{
    d->node.name = host_name;
    d->process = (hp_profile_process){ rank, 0 };
    d->locations = calloc(nlocations, sizeof(hp_profile_location));
    d->location_names = calloc(nlocations, sizeof(*d->location_names));
    if (d->locations == NULL || d->location_names == NULL)
        return -1;
    for (size_t i = 0; i < nlocations; i++) {
        if (i == 0)
            strcpy(d->location_names[i], "Master thread");
        else
            snprintf(d->location_names[i], sizeof(d->location_names[i]), "Pthread %zu", i);
        d->locations[i] = (hp_profile_location){ d->location_names[i], (int)i, 0 };
    }
    d->profile.nodes = &d->node;
    d->profile.nnodes = 1;
    d->profile.processes = &d->process;
    d->profile.nprocesses = 1;
    d->profile.locations = d->locations;
    d->profile.nlocations = nlocations;
    return 0;
}

/* The counters (metrics.h): inclusive integer metrics, the only ones of that kind. */
static void add_counters(hp_profile_data *d)
{
    for (unsigned k = 0; k < hp_metrics_count() && d->counter_values[k] != NULL; k++) {
        const hp_metric_info *m = hp_metrics_info(k);
        d->metrics[d->profile.nmetrics++] = (hp_profile_metric){
            m->uniq_name, m->name, m->unit, m->descr, HP_DTYPE_UINT64, HP_METRIC_INCLUSIVE,
            d->counter_values[k], NULL
        };
    }
}

static void fill_metrics(hp_profile_data *d)
{
    d->metrics[0] = (hp_profile_metric){ "visits", "Visits", "occ", "Number of visits",
                                         HP_DTYPE_UINT64, HP_METRIC_EXCLUSIVE, d->visits, NULL };
    d->metrics[1] = (hp_profile_metric){ "time", "Time", "sec", "Total time",
                                         HP_DTYPE_DOUBLE, HP_METRIC_INCLUSIVE, d->time, NULL };
    d->metrics[2] = (hp_profile_metric){ "min_time", "Minimum Inclusive Time", "sec",
                                         "Minimum inclusive time of one visit",
                                         HP_DTYPE_MINDOUBLE, HP_METRIC_EXCLUSIVE,
                                         d->min_time, NULL };
    d->metrics[3] = (hp_profile_metric){ "max_time", "Maximum Inclusive Time", "sec",
                                         "Maximum inclusive time of one visit",
                                         HP_DTYPE_MAXDOUBLE, HP_METRIC_EXCLUSIVE,
                                         d->max_time, NULL };
    d->profile.metrics = d->metrics;
    d->profile.nmetrics = 4;
    static const char *const names[4][3] = {
        { "bytes_sent", "Bytes sent", "Bytes sent by MPI calls" },
        { "bytes_received", "Bytes received", "Bytes received by MPI calls" },
        { "messages_sent", "Messages sent", "Point-to-point messages sent" },
        { "messages_received", "Messages received", "Point-to-point messages received" },
    };
    for (int m = 0; m < 4 && d->message_values[0] != NULL; m++)
        d->metrics[d->profile.nmetrics++] = (hp_profile_metric){
            names[m][0], names[m][1], m < 2 ? "bytes" : "occ", names[m][2],
            HP_DTYPE_UINT64, HP_METRIC_EXCLUSIVE, d->message_values[m], NULL
        };
    /* A maximum, like max_time: Cube and the summary take the largest over threads and
       ranks, and merging profiles keeps every location's own value. */
    if (d->recursion_depth != NULL)
        d->metrics[d->profile.nmetrics++] = (hp_profile_metric){
            "recursion_depth", "Recursion Depth", "occ",
            "Most recursive calls open at once below one call of this call path "
            "(HP_PROFILING_RECURSION=collapse; 0 = it did not recurse)",
            HP_DTYPE_MAXDOUBLE, HP_METRIC_EXCLUSIVE, d->recursion_depth, NULL
        };
    add_counters(d);
    for (unsigned k = 0; k < HP_WSM_COUNT && d->wait_values[0] != NULL; k++) {
        const hp_ws_metric_info *m = hp_ws_metric(k);
        d->metrics[d->profile.nmetrics++] = (hp_profile_metric){
            m->uniq_name, m->disp_name, "sec", m->descr, HP_DTYPE_DOUBLE, HP_METRIC_INCLUSIVE,
            d->wait_values[k], m->parent
        };
    }
}

/* The wait-state values were filled per call path alone: add each path's to its
 * parent's, children (higher positions) first, so they are inclusive like time. */
static void include_wait_values(hp_profile_data *d, size_t nlocations)
{
    for (size_t c = d->profile.ncnodes; d->wait_values[0] != NULL && c-- > 1;) {
        size_t parent = d->cnodes[c].parent;
        for (unsigned k = 0; k < HP_WSM_COUNT; k++)
            for (size_t l = 0; l < nlocations; l++)
                d->wait_values[k][parent * nlocations + l] +=
                    d->wait_values[k][c * nlocations + l];
    }
}

/* Locations in order of their ids. An id can be missing from the list (a thread that
 * took its id while the run was ending and was not published yet); it is skipped, since
 * Cube wants location numbers without gaps. */
static hp_location **locations_by_id(hp_location *list, size_t *count)
{
    size_t n = 0;
    for (hp_location *l = list; l != NULL; l = l->next)
        if (l->id + 1 > n)
            n = l->id + 1;
    hp_location **by_id = calloc(n ? n : 1, sizeof(hp_location *));
    if (by_id == NULL)
        return NULL;
    for (hp_location *l = list; l != NULL; l = l->next)
        by_id[l->id] = l;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (by_id[i] != NULL)
            by_id[used++] = by_id[i];
    *count = used;
    return by_id;
}

static int alloc_values(hp_profile_data *d, size_t cells, bool with_messages,
                        bool with_recursion, bool with_wait_states)
{
    for (unsigned k = 0; with_wait_states && k < HP_WSM_COUNT; k++)
        if ((d->wait_values[k] = calloc(cells, sizeof(double))) == NULL)
            return -1;
    if (with_recursion && (d->recursion_depth = calloc(cells, sizeof(double))) == NULL)
        return -1;
    for (int m = 0; with_messages && m < 4; m++)
        if ((d->message_values[m] = calloc(cells, sizeof(uint64_t))) == NULL)
            return -1;
    for (unsigned k = 0; k < hp_metrics_count(); k++)
        if ((d->counter_values[k] = calloc(cells, sizeof(uint64_t))) == NULL)
            return -1;
    d->visits = calloc(cells, sizeof(uint64_t));
    d->time = calloc(cells, sizeof(double));
    d->min_time = calloc(cells, sizeof(double));
    d->max_time = calloc(cells, sizeof(double));
    return d->visits && d->time && d->min_time && d->max_time ? 0 : -1;
}

int hp_profile_build(hp_profile_data *d, hp_location *list, double ticks_per_second,
                     const char *host_name, const char *creator,
                     const hp_profile_options *options)
{
    memset(d, 0, sizeof(*d));
    d->profile.creator = creator;
    d->profile.machine_name = "Linux";
    size_t L;
    hp_location **locs = locations_by_id(list, &L);
    hp_union_tree u;
    int rc = -1;
    if (locs == NULL || L == 0 || hp_union_init(&u, locs[0]->cct.root->region->id) < 0)
        goto out;
    for (size_t l = 0; l < L; l++)
        if (walk_location(&u, locs[l], NULL, NULL) < 0)
            goto out_union;
    d->cnodes = calloc(u.count, sizeof(hp_profile_cnode));
    if (d->cnodes == NULL || hp_union_number(&u, d->cnodes) < 0 ||
        alloc_values(d, (size_t)u.count * L, options->with_messages,
                     options->with_recursion, options->with_wait_states) < 0)
        goto out_union;
    d->profile.cnodes = d->cnodes;
    d->profile.ncnodes = u.count;
    for (size_t l = 0; l < L; l++) {
        fill_ctx ctx = { d, &u, l, L, locs[l]->metrics, ticks_per_second };
        walk_location(&u, locs[l], fill_values, &ctx);
    }
    include_wait_values(d, L);
    if (fill_regions(d) < 0 || fill_system(d, L, host_name, options->rank) < 0)
        goto out_union;
    fill_metrics(d);
    rc = 0;
out_union:
    hp_union_release(&u);
out:
    free(locs);
    return rc;
}

void hp_profile_data_release(hp_profile_data *d)
{
    free(d->regions);
    free(d->cnodes);
    free(d->locations);
    free(d->location_names);
    free(d->visits);
    free(d->time);
    free(d->min_time);
    free(d->max_time);
    free(d->recursion_depth);
    for (int m = 0; m < 4; m++)
        free(d->message_values[m]);
    for (int k = 0; k < HP_METRICS_MAX; k++)
        free(d->counter_values[k]);
    for (int k = 0; k < HP_WSM_COUNT; k++)
        free(d->wait_values[k]);
    free(d->unmeasured);
    memset(d, 0, sizeof(*d));
}
