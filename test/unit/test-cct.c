/* Unit tests of the calling-context tree (measurement/core/cct.c) on budget memory. */
#include "measurement/core/cct.h"

#include "test.h"

static hp_region regions[2000];

static int setup(hp_arena *arena, hp_cct *t, uint64_t budget)
{
    for (uint32_t i = 0; i < 2000; i++)
        regions[i].id = i;
    *arena = (hp_arena){ 0 };
    if (hp_memory_init(budget) < 0 || hp_cct_init(t, arena, &regions[0], 0) < 0)
        return -1;
    return 0;
}

TEST(same_path_same_node)
{
    hp_arena a;
    hp_cct t;
    ASSERT_INT_EQ(setup(&a, &t, 1 << 20), 0);
    hp_cct_node *x = hp_cct_child(&t, t.root, &regions[1]);
    hp_cct_node *y = hp_cct_child(&t, t.root, &regions[2]);
    ASSERT(x != NULL && y != NULL && x != y);
    ASSERT(hp_cct_child(&t, t.root, &regions[1]) == x);
    ASSERT(hp_cct_child(&t, t.root, &regions[2]) == y);
    hp_cct_node *xx = hp_cct_child(&t, x, &regions[1]); /* recursion: a new path */
    ASSERT(xx != x && xx->parent == x);
    ASSERT(hp_cct_child(&t, x, &regions[1]) == xx);
    ASSERT_UINT_EQ(t.nodes, 4);
    /* children listed newest first */
    ASSERT(t.root->first_child == y && y->next_sibling == x && x->next_sibling == NULL);
    return 0;
}

TEST(wide_node_keeps_every_child)
{
    hp_arena a;
    hp_cct t;
    ASSERT_INT_EQ(setup(&a, &t, 4 << 20), 0);
    hp_cct_node *kids[1999];
    for (int i = 1; i < 2000; i++)
        kids[i - 1] = hp_cct_child(&t, t.root, &regions[i]);
    for (int i = 1999; i >= 1; i--) /* the hash table grew several times meanwhile */
        ASSERT(hp_cct_child(&t, t.root, &regions[i]) == kids[i - 1]);
    ASSERT_UINT_EQ(t.nodes, 2000);
    ASSERT_UINT_EQ(t.lost_nodes, 0);
    return 0;
}

TEST(visit_statistics)
{
    hp_arena a;
    hp_cct t;
    ASSERT_INT_EQ(setup(&a, &t, 1 << 20), 0);
    hp_cct_node *n = hp_cct_child(&t, t.root, &regions[1]);
    hp_cct_visit_end(n, 30);
    hp_cct_visit_end(n, 10);
    hp_cct_visit_end(n, 20);
    ASSERT_UINT_EQ(n->incl_ticks, 60);
    ASSERT_UINT_EQ(n->min_ticks, 10);
    ASSERT_UINT_EQ(n->max_ticks, 30);
    return 0;
}

TEST(budget_exhaustion_degrades)
{
    hp_arena a;
    hp_cct t;
    ASSERT_INT_EQ(setup(&a, &t, 64 * 1024), 0); /* two pages: slots + first nodes */
    int created = 0, lost = 0;
    for (int i = 1; i < 2000; i++) {
        if (hp_cct_child(&t, t.root, &regions[i]) != NULL)
            created++;
        else
            lost++;
    }
    ASSERT(created > 0 && lost > 0);
    ASSERT_UINT_EQ(t.lost_nodes, (uint64_t)lost);
    ASSERT(hp_memory_exhausted());
    /* what was created is still found */
    ASSERT(hp_cct_child(&t, t.root, &regions[1]) != NULL);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(same_path_same_node), TEST_ENTRY(wide_node_keeps_every_child),
             TEST_ENTRY(visit_statistics), TEST_ENTRY(budget_exhaustion_degrades));
