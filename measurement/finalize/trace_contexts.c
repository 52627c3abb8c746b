/*
 * Call-tree nodes to calling context ids (trace_contexts.h): the unified tree's edges
 * sorted by (parent, region) for lookup, and a memo from node address to id (indexed
 * through util/hash.h) so that every node is resolved once, however many samples name
 * it.
 */
#include "trace_contexts.h"

#include <stdbool.h>
#include <stdlib.h>

#include "otf2-writer/trace_writer.h"
#include "util/hash.h"

typedef struct edge {
    uint64_t key; /* parent << 32 | region */
    uint32_t child;
} edge;

typedef struct memo_entry {
    const hp_cct_node *node;
    uint32_t id;
    uint32_t exact; /* the unified tree has this very path (else id is an ancestor's) */
} memo_entry;

struct hp_trace_contexts {
    const hp_profile_cnode *cnodes;
    size_t ncnodes;
    uint32_t *depth; /* of each unified node, the root's is 0 */
    edge *edges;
    size_t nedges;
    const uint32_t *region_map;
    uint32_t nregions; /* local region ids below this are mapped */
    memo_entry *memo; /* the nodes resolved so far, found through index */
    uint32_t nmemo, memo_cap;
    hp_hash_index index;
    const hp_cct_node **chain; /* scratch: the unresolved ancestors of a node */
    size_t chain_cap;
    uint32_t markers[HP_TRACE_MARKERS]; /* global ids (hp_trace_contexts_set_markers) */
    unsigned nmarkers;
};

static int compare_edges(const void *a, const void *b)
{
    uint64_t x = ((const edge *)a)->key, y = ((const edge *)b)->key;
    return x < y ? -1 : x > y;
}

hp_trace_contexts *hp_trace_contexts_new(const hp_profile_cnode *cnodes, size_t ncnodes,
                                         const uint32_t *region_map)
{
    if (ncnodes == 0)
        return NULL;
    hp_trace_contexts *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->edges = malloc(ncnodes * sizeof(edge));
    c->depth = malloc(ncnodes * sizeof(uint32_t));
    if (c->edges == NULL || c->depth == NULL || hp_hash_index_init(&c->index, 512) != 0) {
        hp_trace_contexts_free(c);
        return NULL;
    }
    c->cnodes = cnodes;
    c->ncnodes = ncnodes;
    c->depth[0] = 0;
    for (size_t i = 1; i < ncnodes; i++) { /* node 0 is the root: no edge leads to it */
        c->edges[c->nedges++] = (edge){ (uint64_t)cnodes[i].parent << 32 | cnodes[i].region,
                                        (uint32_t)i };
        c->depth[i] = c->depth[cnodes[i].parent] + 1; /* parents come first (profile.h) */
    }
    qsort(c->edges, c->nedges, sizeof(edge), compare_edges);
    c->region_map = region_map;
    c->nregions = hp_region_count();
    return c;
}

void hp_trace_contexts_free(hp_trace_contexts *c)
{
    if (c == NULL)
        return;
    free(c->edges);
    free(c->depth);
    free(c->memo);
    hp_hash_index_release(&c->index);
    free(c->chain);
    free(c);
}

static uint64_t node_hash(const hp_cct_node *node)
{
    return hp_hash_mix((uintptr_t)node >> 4);
}

static uint64_t memo_hash(const void *ctx, uint32_t i)
{
    return node_hash(((const hp_trace_contexts *)ctx)->memo[i].node);
}

static bool memo_is(const void *ctx, uint32_t i, const void *node)
{
    return ((const hp_trace_contexts *)ctx)->memo[i].node == node;
}

/* What node was resolved to, or NULL when it was not yet. */
static const memo_entry *resolved(const hp_trace_contexts *c, const hp_cct_node *node)
{
    uint32_t i = hp_hash_index_find(&c->index, node_hash(node), memo_is, c, node);
    return i != UINT32_MAX ? &c->memo[i] : NULL;
}

/* Remembers a node not resolved before. */
static int remember(hp_trace_contexts *c, const hp_cct_node *node, uint32_t id, bool exact)
{
    if (c->nmemo == c->memo_cap) {
        uint32_t cap = c->memo_cap ? 2 * c->memo_cap : 512;
        memo_entry *grown = cap > c->memo_cap ? realloc(c->memo, cap * sizeof(*grown)) : NULL;
        if (grown == NULL)
            return -1;
        c->memo = grown;
        c->memo_cap = cap;
    }
    c->memo[c->nmemo] = (memo_entry){ node, id, exact };
    if (hp_hash_index_add(&c->index, node_hash(node), c->nmemo, memo_hash, c) != 0)
        return -1;
    c->nmemo++;
    return 0;
}

/* The child of parent for node's region in the unified tree, or UINT32_MAX. */
static uint32_t unified_child(const hp_trace_contexts *c, uint32_t parent,
                              const hp_cct_node *node)
{
    uint32_t local = node->region->id;
    if (local == UINT32_MAX || (c->region_map != NULL && local >= c->nregions))
        return UINT32_MAX;
    uint32_t region = c->region_map != NULL ? c->region_map[local] : local;
    edge want = { (uint64_t)parent << 32 | region, 0 };
    const edge *hit = bsearch(&want, c->edges, c->nedges, sizeof(edge), compare_edges);
    return hit != NULL ? hit->child : UINT32_MAX;
}

/* Collects node and its ancestors up to the first one already resolved. */
static int collect_chain(hp_trace_contexts *c, const hp_cct_node *node, size_t *n,
                         memo_entry *known)
{
    *n = 0;
    *known = (memo_entry){ NULL, 0, 1 }; /* a root: node 0 */
    for (const hp_cct_node *x = node; x != NULL && x->parent != NULL; x = x->parent) {
        const memo_entry *s = resolved(c, x);
        if (s != NULL) {
            *known = *s;
            break;
        }
        if (*n == c->chain_cap) {
            size_t cap = c->chain_cap ? 2 * c->chain_cap : 64;
            const hp_cct_node **grown = realloc(c->chain, cap * sizeof(*grown));
            if (grown == NULL)
                return -1;
            c->chain = grown;
            c->chain_cap = cap;
        }
        c->chain[(*n)++] = x;
    }
    return 0;
}

uint32_t hp_trace_contexts_of(hp_trace_contexts *c, const hp_cct_node *node)
{
    size_t n;
    memo_entry known;
    if (node == NULL || collect_chain(c, node, &n, &known) < 0)
        return UINT32_MAX;
    uint32_t id = known.id;
    bool exact = known.exact;
    while (n-- > 0) { /* outermost unresolved first */
        uint32_t child = exact ? unified_child(c, id, c->chain[n]) : UINT32_MAX;
        if (child != UINT32_MAX)
            id = child;
        else
            exact = false; /* this path and everything below it: the ancestor's id */
        if (remember(c, c->chain[n], id, exact) < 0)
            return UINT32_MAX;
    }
    return id;
}

void hp_trace_contexts_set_markers(hp_trace_contexts *c, const uint32_t *regions, unsigned n)
{
    c->nmarkers = 0;
    for (unsigned k = 0; k < n && k < HP_TRACE_MARKERS; k++)
        c->markers[c->nmarkers++] = regions[k];
}

uint32_t hp_trace_contexts_enter(const hp_trace_contexts *c, uint32_t parent, uint32_t region)
{
    if (parent == UINT32_MAX && region == c->cnodes[0].region)
        return 0;
    /* Threads other than a process's first never enter the root (the program): their
     * outermost regions are its children. */
    uint32_t below = parent == UINT32_MAX ? 0 : parent;
    if (below < c->ncnodes) {
        edge want = { (uint64_t)below << 32 | region, 0 };
        const edge *hit = bsearch(&want, c->edges, c->nedges, sizeof(edge), compare_edges);
        if (hit != NULL)
            return hit->child;
    }
    if (parent != UINT32_MAX && parent >= c->ncnodes)
        return UINT32_MAX; /* below a marker: nothing is entered there */
    for (unsigned k = 0; k < c->nmarkers; k++)
        if (c->markers[k] == region)
            return hp_trace_marker_context(c->ncnodes, k, parent);
    return UINT32_MAX;
}

uint32_t hp_trace_contexts_parent(const hp_trace_contexts *c, uint32_t context)
{
    if (context < c->ncnodes)
        return c->cnodes[context].parent; /* HP_PROFILE_NO_PARENT is UINT32_MAX */
    size_t below = (context - c->ncnodes) % (c->ncnodes + 1);
    return below < c->ncnodes ? (uint32_t)below : UINT32_MAX;
}

/* Nodes above the context: 0 at the top; -1 for UINT32_MAX (the virtual top). */
static int64_t depth_of(const hp_trace_contexts *c, uint32_t context)
{
    if (context == UINT32_MAX)
        return -1;
    if (context < c->ncnodes)
        return c->depth[context];
    return depth_of(c, hp_trace_contexts_parent(c, context)) + 1;
}

static bool is_context(const hp_trace_contexts *c, uint32_t context)
{
    return context < c->ncnodes + (size_t)c->nmarkers * (c->ncnodes + 1);
}

/* The deepest context on both paths, UINT32_MAX when they share none. */
static uint32_t common_context(const hp_trace_contexts *c, uint32_t a, uint32_t b)
{
    int64_t da = depth_of(c, a), db = depth_of(c, b);
    for (; da > db; da--)
        a = hp_trace_contexts_parent(c, a);
    for (; db > da; db--)
        b = hp_trace_contexts_parent(c, b);
    while (a != b) {
        a = hp_trace_contexts_parent(c, a);
        b = hp_trace_contexts_parent(c, b);
    }
    return a;
}

uint32_t hp_trace_contexts_distance(const hp_trace_contexts *c, uint32_t prev, uint32_t cur,
                                    uint32_t recorded, uint32_t top)
{
    int64_t depth = depth_of(c, cur);
    uint32_t whole = (uint32_t)depth + 2; /* every node of the path is new */
    if (!is_context(c, prev))
        return whole;
    uint32_t needed = (uint32_t)(depth - depth_of(c, common_context(c, prev, cur)) + 1);
    uint32_t d = recorded > needed ? recorded : needed;
    if (is_context(c, top) && common_context(c, top, cur) == top) {
        uint32_t cap = (uint32_t)(depth - depth_of(c, top) + 1);
        cap = cap > needed ? cap : needed;
        d = d < cap ? d : cap;
    }
    return d < whole ? d : whole;
}
