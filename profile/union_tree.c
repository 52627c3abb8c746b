/*
 * The merge tree of union_tree.h. Everything runs at finalize, on the system heap.
 */
#include "union_tree.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(uint32_t parent, uint32_t region)
{
    return hp_hash_mix((uint64_t)parent << 32 | region);
}

static uint64_t node_hash(const void *ctx, uint32_t index)
{
    const hp_union_node *n = &((const hp_union_tree *)ctx)->nodes[index];
    return key_hash(n->parent, n->region);
}

/* key: the node sought, as { parent, region } */
static bool node_is(const void *ctx, uint32_t index, const void *key)
{
    const hp_union_node *n = &((const hp_union_tree *)ctx)->nodes[index];
    const uint32_t *k = key;
    return n->parent == k[0] && n->region == k[1];
}

int hp_union_init(hp_union_tree *u, uint32_t root_region)
{
    memset(u, 0, sizeof(*u));
    u->capacity = 1024;
    u->nodes = malloc(u->capacity * sizeof(hp_union_node));
    if (u->nodes == NULL || hp_hash_index_init(&u->index, 2048) != 0)
        return -1;
    u->nodes[0] = (hp_union_node){ root_region, HP_UNION_NONE, HP_UNION_NONE,
                                   HP_UNION_NONE, HP_UNION_NONE, 0 };
    u->count = 1;
    return 0;
}

void hp_union_release(hp_union_tree *u)
{
    free(u->nodes);
    hp_hash_index_release(&u->index);
}

static int union_grow(hp_union_tree *u)
{
    if (u->count < u->capacity)
        return 0;
    hp_union_node *nodes = realloc(u->nodes, 2 * u->capacity * sizeof(hp_union_node));
    if (nodes == NULL)
        return -1;
    u->nodes = nodes;
    u->capacity *= 2;
    return 0;
}

/* The union child of parent for region, created (appended last) when new. */
uint32_t hp_union_child(hp_union_tree *u, uint32_t parent, uint32_t region)
{
    const uint32_t key[2] = { parent, region };
    uint32_t found = hp_hash_index_find(&u->index, key_hash(parent, region), node_is, u, key);
    if (found != UINT32_MAX)
        return found;
    if (union_grow(u) < 0)
        return HP_UNION_NONE;
    uint32_t id = u->count;
    u->nodes[id] = (hp_union_node){ region, parent, HP_UNION_NONE, HP_UNION_NONE, HP_UNION_NONE, 0 };
    if (hp_hash_index_add(&u->index, key_hash(parent, region), id, node_hash, u) != 0)
        return HP_UNION_NONE;
    u->count++;
    hp_union_node *p = &u->nodes[parent];
    if (p->last_child == HP_UNION_NONE)
        p->first_child = id;
    else
        u->nodes[p->last_child].next_sibling = id;
    p->last_child = id;
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

