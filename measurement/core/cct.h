/*
 * The calling-context tree of one location: a node per (parent, region) path with the
 * metrics of that call path. A node's children form a list (for writing); finding a
 * child on the hot path is constant-cost on average: first the child entered last
 * from this node (loops re-enter the same child), then a per-tree hash table keyed by
 * (parent, region), never a scan over siblings.
 *
 * Everything comes from the location's arena; the tree is only touched by its thread
 * (and by finalize, after measurement stopped).
 */
#ifndef HP_MEASUREMENT_CCT_H
#define HP_MEASUREMENT_CCT_H

#include <stdint.h>

#include "memory.h"
#include "region.h"
#include "util/compiler.h"

typedef struct hp_cct_node {
    hp_region *region;
    struct hp_cct_node *parent;
    struct hp_cct_node *first_child;
    struct hp_cct_node *next_sibling;
    struct hp_cct_node *last_entered; /* child entered most recently from here */
    uint64_t visits;
    uint64_t incl_ticks;     /* inclusive time, sum over visits */
    uint64_t min_ticks;      /* per-visit inclusive extremes (UINT64_MAX until a visit ends) */
    uint64_t max_ticks;
    /* HP_PROFILING_RECURSION=collapse: recursive calls folded into this node's visits
       that are open now, and the most that were open at once (its recursion depth) */
    uint32_t folded_open;
    uint32_t recursion_depth;
    /* point-to-point and collective message metrics (MPI adapter) */
    uint64_t bytes_sent;
    uint64_t bytes_received;
    uint64_t messages_sent;
    uint64_t messages_received;
    /* the configured counters (metrics.h), inclusive; ncounters of hp_cct */
    uint64_t counters[];
} hp_cct_node;

typedef struct hp_cct_slot {
    hp_cct_node *node;
} hp_cct_slot;

typedef struct hp_cct {
    hp_cct_node *root;
    hp_cct_slot *slots; /* hash of non-root nodes by (parent, region) */
    uint32_t mask;
    uint32_t used;
    uint64_t nodes;
    uint64_t lost_nodes; /* nodes not created because the budget was used up */
    uint32_t ncounters;  /* length of every node's counters[] */
    hp_arena *arena;
} hp_cct;

/* Creates the tree with a root node for root_region; every node carries ncounters
 * counters. Returns 0 or -1 (budget). */
int hp_cct_init(hp_cct *t, hp_arena *arena, hp_region *root_region, uint32_t ncounters);

/* The child of parent for region r, created on first sight; NULL when the budget is
 * used up (the caller then drops the visit and counts it). */
hp_cct_node *hp__cct_child_slow(hp_cct *t, hp_cct_node *parent, hp_region *r);

static inline hp_cct_node *hp_cct_child(hp_cct *t, hp_cct_node *parent, hp_region *r)
{
    hp_cct_node *c = parent->last_entered;
    if (likely(c != NULL && c->region == r))
        return c;
    c = hp__cct_child_slow(t, parent, r);
    parent->last_entered = c;
    return c;
}

/* Records one completed visit of node that lasted `ticks`. */
static inline void hp_cct_visit_end(hp_cct_node *node, uint64_t ticks)
{
    node->incl_ticks += ticks;
    if (ticks < node->min_ticks)
        node->min_ticks = ticks;
    if (ticks > node->max_ticks)
        node->max_ticks = ticks;
}

/* Adds ticks to the inclusive time of leaf and its ancestors below anchor: the duration
 * of an MPI call entered below a path unwound by sampling.c (hp_sampling_call_path). */
static inline void hp_cct_path_add(hp_cct_node *leaf, const hp_cct_node *anchor,
                                   uint64_t ticks)
{
    for (hp_cct_node *n = leaf; n != NULL && n != anchor; n = n->parent)
        n->incl_ticks += ticks;
}

/* Counters (metrics.h) of an MPI call below such a path: its enter subtracts the values
 * just read from the path's nodes (sign -1) and its exit adds them (sign +1), as for the
 * call's own node, so that the path's inclusive counters contain the call's. */
static inline void hp_cct_path_counters(hp_cct_node *leaf, const hp_cct_node *anchor,
                                        const uint64_t *last, unsigned n, int sign)
{
    for (hp_cct_node *c = leaf; c != NULL && c != anchor; c = c->parent)
        for (unsigned i = 0; i < n; i++)
            c->counters[i] += sign > 0 ? last[i] : -last[i];
}

#endif
