/*
 * Calling-context tree: node creation and the (parent, region) hash table behind the
 * "last entered child" shortcut of cct.h. The table grows by doubling at half load;
 * the old table's pages are not reused (the budget is never returned).
 */
#include "cct.h"

#include "util/hash.h"

/* 4 KiB from the location's arena: a thread that calls a few functions costs little of
 * the budget (the table grows from whole pages). */
enum { INITIAL_SLOTS = 512 };

static inline uint32_t child_hash(const hp_cct_node *parent, const hp_region *r)
{
    uint64_t k = hp_hash_mix((uint64_t)(uintptr_t)parent) ^ (uint64_t)r->id;
    return (uint32_t)((k * 0xC2B2AE3D27D4EB4Full) >> 32);
}

static hp_cct_node *node_new(hp_cct *t, hp_cct_node *parent, hp_region *r)
{
    hp_cct_node *n = hp_arena_alloc(t->arena, sizeof(*n) + t->ncounters * sizeof(uint64_t));
    if (n == NULL)
        return NULL;
    n->region = r;
    n->parent = parent;
    n->min_ticks = UINT64_MAX;
    t->nodes++;
    return n;
}

int hp_cct_init(hp_cct *t, hp_arena *arena, hp_region *root_region, uint32_t ncounters)
{
    t->arena = arena;
    t->ncounters = ncounters;
    t->slots = hp_arena_alloc(arena, INITIAL_SLOTS * sizeof(hp_cct_slot));
    t->mask = INITIAL_SLOTS - 1;
    t->root = node_new(t, NULL, root_region);
    return t->slots != NULL && t->root != NULL ? 0 : -1;
}

static void slot_put(hp_cct_slot *slots, uint32_t mask, hp_cct_node *n)
{
    uint32_t i = child_hash(n->parent, n->region) & mask;
    while (slots[i].node != NULL)
        i = (i + 1) & mask;
    slots[i].node = n;
}

static int slots_grow(hp_cct *t)
{
    uint32_t capacity = (t->mask + 1) * 2;
    hp_cct_slot *slots = hp_memory_pages(capacity * sizeof(hp_cct_slot));
    if (slots == NULL)
        return -1;
    for (uint32_t i = 0; i <= t->mask; i++)
        if (t->slots[i].node != NULL)
            slot_put(slots, capacity - 1, t->slots[i].node);
    t->slots = slots;
    t->mask = capacity - 1;
    return 0;
}

hp_cct_node *hp__cct_child_slow(hp_cct *t, hp_cct_node *parent, hp_region *r)
{
    for (uint32_t i = child_hash(parent, r) & t->mask;; i = (i + 1) & t->mask) {
        hp_cct_node *n = t->slots[i].node;
        if (n == NULL)
            break;
        if (n->parent == parent && n->region == r)
            return n;
    }
    if ((t->used + 1) * 2 > t->mask + 1 && slots_grow(t) < 0) {
        t->lost_nodes++;
        return NULL;
    }
    hp_cct_node *n = node_new(t, parent, r);
    if (n == NULL) {
        t->lost_nodes++;
        return NULL;
    }
    n->next_sibling = parent->first_child;
    parent->first_child = n;
    slot_put(t->slots, t->mask, n);
    t->used++;
    return n;
}
