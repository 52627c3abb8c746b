/*
 * A tree of distinct call paths built by merging other trees: one node per
 * (parent, region), found through a hash, children kept in order of first insertion,
 * numbered in depth-first pre-order at the end. Used to merge the call trees of a
 * process's threads (profile_build.c) and the profiles of ranks (profile_merge.c).
 */
#ifndef HP_PROFILE_UNION_TREE_H
#define HP_PROFILE_UNION_TREE_H

#include <stdint.h>

#include "profile.h"
#include "util/hash.h"

#define HP_UNION_NONE UINT32_MAX

typedef struct hp_union_node {
    uint32_t region;
    uint32_t parent;
    uint32_t first_child;
    uint32_t last_child;
    uint32_t next_sibling;
    uint32_t position; /* depth-first pre-order index, after hp_union_number */
} hp_union_node;

typedef struct hp_union_tree {
    hp_union_node *nodes;
    uint32_t count;
    uint32_t capacity;
    hp_hash_index index; /* nodes by (parent, region) */
} hp_union_tree;

/* A tree holding only its root (node 0) for root_region. Returns 0 or -1 (memory). */
int hp_union_init(hp_union_tree *u, uint32_t root_region);
void hp_union_release(hp_union_tree *u);

/* The child of parent for region, appended as the last child when new;
 * HP_UNION_NONE when memory ran out. */
uint32_t hp_union_child(hp_union_tree *u, uint32_t parent, uint32_t region);

/* Numbers the nodes in depth-first pre-order (children in insertion order) and fills
 * cnodes[u->count] with parent positions and regions. Returns 0 or -1 (memory). */
int hp_union_number(hp_union_tree *u, hp_profile_cnode *cnodes);

#endif
