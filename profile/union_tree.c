/*
 * The merge tree of union_tree.h. Everything runs at finalize, on the system heap.
 */
#include "union_tree.h"

#include <stdlib.h>
#include <string.h>

static uint32_t slot_hash(uint32_t parent, uint32_t region)
{
    uint64_t k = ((uint64_t)parent << 32 | region) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32);
}

int hp_union_init(hp_union_tree *u, uint32_t root_region)
{
    memset(u, 0, sizeof(*u));
    u->capacity = 1024;
    u->mask = 4096 - 1;
    u->nodes = malloc(u->capacity * sizeof(hp_union_node));
    u->slots = calloc(u->mask + 1, sizeof(uint32_t));
    if (u->nodes == NULL || u->slots == NULL)
        return -1;
    u->nodes[0] = (hp_union_node){ root_region, HP_UNION_NONE, HP_UNION_NONE,
                                   HP_UNION_NONE, HP_UNION_NONE, 0 };
    u->count = 1;
    return 0;
}

void hp_union_release(hp_union_tree *u)
{
    free(u->nodes);
    free(u->slots);
}

static uint32_t *union_slot(hp_union_tree *u, uint32_t parent, uint32_t region)
{
    uint32_t i = slot_hash(parent, region) & u->mask;
    for (;; i = (i + 1) & u->mask) {
        uint32_t s = u->slots[i];
        if (s == 0)
            return &u->slots[i];
        const hp_union_node *n = &u->nodes[s - 1];
        if (n->parent == parent && n->region == region)
            return &u->slots[i];
    }
}

static int union_grow(hp_union_tree *u)
{
    if (u->count == u->capacity) {
        hp_union_node *nodes = realloc(u->nodes, 2 * u->capacity * sizeof(hp_union_node));
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
                const hp_union_node *n = &u->nodes[old[i] - 1];
                *union_slot(u, n->parent, n->region) = old[i];
            }
        free(old);
    }
    return 0;
}

/* The union child of parent for region, created (appended last) when new. */
uint32_t hp_union_child(hp_union_tree *u, uint32_t parent, uint32_t region)
{
    uint32_t *slot = union_slot(u, parent, region);
    if (*slot != 0)
        return *slot - 1;
    if (union_grow(u) < 0)
        return HP_UNION_NONE;
    slot = union_slot(u, parent, region); /* the table may have moved */
    uint32_t id = u->count++;
    u->nodes[id] = (hp_union_node){ region, parent, HP_UNION_NONE, HP_UNION_NONE, HP_UNION_NONE, 0 };
    hp_union_node *p = &u->nodes[parent];
    if (p->last_child == HP_UNION_NONE)
        p->first_child = id;
    else
        u->nodes[p->last_child].next_sibling = id;
    p->last_child = id;
    *slot = id + 1;
    return id;
}


/* Numbers the union tree in depth-first pre-order and fills cnodes. */
int hp_union_number(hp_union_tree *u, hp_profile_cnode *cnodes)
{
    uint32_t *stack = malloc(u->count * sizeof(uint32_t));
    if (stack == NULL)
        return -1;
    size_t top = 0;
    uint32_t next = 0;
    stack[top++] = 0;
    while (top > 0) {
        hp_union_node *n = &u->nodes[stack[--top]];
        n->position = next++;
        cnodes[n->position].region = n->region;
        cnodes[n->position].parent =
            n->parent == HP_UNION_NONE ? HP_PROFILE_NO_PARENT : u->nodes[n->parent].position;
        size_t first = top;
        for (uint32_t c = n->first_child; c != HP_UNION_NONE; c = u->nodes[c].next_sibling)
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

