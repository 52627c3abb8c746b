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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct union_node {
    uint32_t region;
    uint32_t parent;
    uint32_t first_child;
    uint32_t last_child;
    uint32_t next_sibling;
    uint32_t position; /* depth-first pre-order index */
} union_node;

typedef struct union_tree {
    union_node *nodes;
    uint32_t count;
    uint32_t capacity;
    uint32_t *slots; /* node index + 1, 0 = empty */
    uint32_t mask;
} union_tree;

typedef struct walk_item {
    const hp_cct_node *node;
    uint32_t uid;
} walk_item;

typedef struct walk_stack {
    walk_item *items;
    size_t count;
    size_t capacity;
} walk_stack;

static uint32_t slot_hash(uint32_t parent, uint32_t region)
{
    uint64_t k = ((uint64_t)parent << 32 | region) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32);
}

static int union_init(union_tree *u, uint32_t root_region)
{
    memset(u, 0, sizeof(*u));
    u->capacity = 1024;
    u->mask = 4096 - 1;
    u->nodes = malloc(u->capacity * sizeof(union_node));
    u->slots = calloc(u->mask + 1, sizeof(uint32_t));
    if (u->nodes == NULL || u->slots == NULL)
        return -1;
    u->nodes[0] = (union_node){ root_region, NONE, NONE, NONE, NONE, 0 };
    u->count = 1;
    return 0;
}

static void union_release(union_tree *u)
{
    free(u->nodes);
    free(u->slots);
}

static uint32_t *union_slot(union_tree *u, uint32_t parent, uint32_t region)
{
    uint32_t i = slot_hash(parent, region) & u->mask;
    for (;; i = (i + 1) & u->mask) {
        uint32_t s = u->slots[i];
        if (s == 0)
            return &u->slots[i];
        const union_node *n = &u->nodes[s - 1];
        if (n->parent == parent && n->region == region)
            return &u->slots[i];
    }
}

static int union_grow(union_tree *u)
{
    if (u->count == u->capacity) {
        union_node *nodes = realloc(u->nodes, 2 * u->capacity * sizeof(union_node));
        if (nodes == NULL)
            return -1;
        u->nodes = nodes;
        u->capacity *= 2;
    }
    if ((u->count + 1) * 2 > u->mask + 1) {
        uint32_t *old = u->slots, old_mask = u->mask;
        u->mask = (u->mask + 1) * 2 - 1;
        u->slots = calloc(u->mask + 1, sizeof(uint32_t));
        if (u->slots == NULL) {
            u->slots = old;
            u->mask = old_mask;
            return -1;
        }
        for (uint32_t i = 0; i <= old_mask; i++)
            if (old[i] != 0) {
                const union_node *n = &u->nodes[old[i] - 1];
                *union_slot(u, n->parent, n->region) = old[i];
            }
        free(old);
    }
    return 0;
}

/* The union child of parent for region, created (appended last) when new. */
static uint32_t union_child(union_tree *u, uint32_t parent, uint32_t region)
{
    uint32_t *slot = union_slot(u, parent, region);
    if (*slot != 0)
        return *slot - 1;
    if (union_grow(u) < 0)
        return NONE;
    slot = union_slot(u, parent, region); /* the table may have moved */
    uint32_t id = u->count++;
    u->nodes[id] = (union_node){ region, parent, NONE, NONE, NONE, 0 };
    union_node *p = &u->nodes[parent];
    if (p->last_child == NONE)
        p->first_child = id;
    else
        u->nodes[p->last_child].next_sibling = id;
    p->last_child = id;
    *slot = id + 1;
    return id;
}

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
static int walk_location(union_tree *u, const hp_location *loc,
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
            rc = stack_push(&s, c, NONE);
        for (size_t i = s.count; i-- > first && rc == 0;) { /* oldest child is last */
            s.items[i].uid = union_child(u, it.uid, s.items[i].node->region->id);
            if (s.items[i].uid == NONE)
                rc = -1;
        }
    }
    free(s.items);
    return rc;
}

/* Numbers the union tree in depth-first pre-order and fills cnodes. */
static int number_union(union_tree *u, hp_profile_cnode *cnodes)
{
    uint32_t *stack = malloc(u->count * sizeof(uint32_t));
    if (stack == NULL)
        return -1;
    size_t top = 0;
    uint32_t next = 0;
    stack[top++] = 0;
    while (top > 0) {
        union_node *n = &u->nodes[stack[--top]];
        n->position = next++;
        cnodes[n->position].region = n->region;
        cnodes[n->position].parent =
            n->parent == NONE ? HP_PROFILE_NO_PARENT : u->nodes[n->parent].position;
        size_t first = top;
        for (uint32_t c = n->first_child; c != NONE; c = u->nodes[c].next_sibling)
            stack[top++] = c;
        for (size_t i = first, j = top; i + 1 < j; i++) { /* first child on top */
            j--;
            uint32_t t = stack[i];
            stack[i] = stack[j];
            stack[j] = t;
        }
    }
    free(stack);
    return 0;
}

typedef struct fill_ctx {
    hp_profile_data *d;
    const union_tree *u;
    size_t location;
    size_t nlocations;
    double ticks_per_second;
} fill_ctx;

static void fill_values(const hp_cct_node *n, uint32_t uid, void *arg)
{
    fill_ctx *c = arg;
    size_t i = (size_t)c->u->nodes[uid].position * c->nlocations + c->location;
    c->d->visits[i] = n->visits;
    c->d->time[i] = (double)n->incl_ticks / c->ticks_per_second;
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
                                             hp_role_name(r->role) };
    }
    d->profile.regions = d->regions;
    d->profile.nregions = n;
    return 0;
}

static int fill_system(hp_profile_data *d, size_t nlocations, const char *host_name)
{
    d->node.name = host_name;
    d->process = (hp_profile_process){ 0, 0 };
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

static void fill_metrics(hp_profile_data *d)
{
    d->metrics[0] = (hp_profile_metric){ "visits", "Visits", "occ", "Number of visits",
                                         HP_DTYPE_UINT64, HP_METRIC_EXCLUSIVE, d->visits };
    d->metrics[1] = (hp_profile_metric){ "time", "Time", "sec", "Total time",
                                         HP_DTYPE_DOUBLE, HP_METRIC_INCLUSIVE, d->time };
    d->metrics[2] = (hp_profile_metric){ "min_time", "Minimum Inclusive Time", "sec",
                                         "Minimum inclusive time of one visit",
                                         HP_DTYPE_MINDOUBLE, HP_METRIC_EXCLUSIVE,
                                         d->min_time };
    d->metrics[3] = (hp_profile_metric){ "max_time", "Maximum Inclusive Time", "sec",
                                         "Maximum inclusive time of one visit",
                                         HP_DTYPE_MAXDOUBLE, HP_METRIC_EXCLUSIVE,
                                         d->max_time };
    d->profile.metrics = d->metrics;
    d->profile.nmetrics = 4;
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

static int alloc_values(hp_profile_data *d, size_t cells)
{
    d->visits = calloc(cells, sizeof(uint64_t));
    d->time = calloc(cells, sizeof(double));
    d->min_time = calloc(cells, sizeof(double));
    d->max_time = calloc(cells, sizeof(double));
    return d->visits && d->time && d->min_time && d->max_time ? 0 : -1;
}

int hp_profile_build(hp_profile_data *d, hp_location *list, double ticks_per_second,
                     const char *host_name, const char *creator)
{
    memset(d, 0, sizeof(*d));
    d->profile.creator = creator;
    d->profile.machine_name = "Linux";
    size_t L;
    hp_location **locs = locations_by_id(list, &L);
    union_tree u;
    int rc = -1;
    if (locs == NULL || L == 0 || union_init(&u, locs[0]->cct.root->region->id) < 0)
        goto out;
    for (size_t l = 0; l < L; l++)
        if (walk_location(&u, locs[l], NULL, NULL) < 0)
            goto out_union;
    d->cnodes = calloc(u.count, sizeof(hp_profile_cnode));
    if (d->cnodes == NULL || number_union(&u, d->cnodes) < 0 ||
        alloc_values(d, (size_t)u.count * L) < 0)
        goto out_union;
    d->profile.cnodes = d->cnodes;
    d->profile.ncnodes = u.count;
    for (size_t l = 0; l < L; l++) {
        fill_ctx ctx = { d, &u, l, L, ticks_per_second };
        walk_location(&u, locs[l], fill_values, &ctx);
    }
    if (fill_regions(d) < 0 || fill_system(d, L, host_name) < 0)
        goto out_union;
    fill_metrics(d);
    rc = 0;
out_union:
    union_release(&u);
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
    memset(d, 0, sizeof(*d));
}
