/* Unit tests of calling contexts for samples (measurement/finalize/trace_contexts.c): call-tree
 * nodes of a location resolved in a unified call tree, and unwind distances. */
#include "measurement/finalize/trace_contexts.h"

#include "test.h"

static hp_region regions[8];

/* The unified tree: 0 root (region 0), 1 = root/r1, 2 = root/r1/r2, 3 = root/r3,
 * 4 = root/r3/r1 (parents first, as in a profile). */
static const hp_profile_cnode unified[] = {
    { HP_PROFILE_NO_PARENT, 0 }, { 0, 1 }, { 1, 2 }, { 0, 3 }, { 3, 1 },
};

/* A location's tree with the same paths and some the unified tree lacks. */
typedef struct local_tree {
    hp_arena arena;
    hp_cct cct;
    hp_cct_node *r1, *r1r2, *r3, *r3r1, *r5, *r5r1;
} local_tree;

static int build(local_tree *t)
{
    for (uint32_t i = 0; i < 8; i++)
        regions[i].id = i;
    t->arena = (hp_arena){ 0 };
    if (hp_memory_init(1 << 20) < 0 || hp_cct_init(&t->cct, &t->arena, &regions[0], 0) < 0)
        return -1;
    hp_cct *c = &t->cct;
    t->r1 = hp_cct_child(c, c->root, &regions[1]);
    t->r1r2 = hp_cct_child(c, t->r1, &regions[2]);
    t->r3 = hp_cct_child(c, c->root, &regions[3]);
    t->r3r1 = hp_cct_child(c, t->r3, &regions[1]);
    t->r5 = hp_cct_child(c, c->root, &regions[5]);
    t->r5r1 = hp_cct_child(c, t->r5, &regions[1]);
    return t->r5r1 != NULL ? 0 : -1;
}

TEST(nodes_resolve_to_the_unified_node_of_their_path)
{
    local_tree t;
    ASSERT_INT_EQ(build(&t), 0);
    hp_trace_contexts *c = hp_trace_contexts_new(unified, 5, NULL);
    ASSERT(c != NULL);
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.cct.root), 0);
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r1r2), 2); /* ancestors resolved on the way */
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r1), 1);
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r3r1), 4); /* same region, other parent */
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r3), 3);
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r1r2), 2); /* again, from the memo */
    hp_trace_contexts_free(c);
    return 0;
}

TEST(paths_the_unified_tree_lacks_take_the_deepest_known_ancestor)
{
    local_tree t;
    ASSERT_INT_EQ(build(&t), 0);
    hp_trace_contexts *c = hp_trace_contexts_new(unified, 5, NULL);
    ASSERT(c != NULL);
    /* root/r5 is unknown: it and everything below it are the root, never root/r1 */
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r5r1), 0);
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r5), 0);
    hp_trace_contexts_free(c);
    return 0;
}

TEST(many_nodes_grow_the_memo)
{
    local_tree t;
    ASSERT_INT_EQ(build(&t), 0);
    hp_trace_contexts *c = hp_trace_contexts_new(unified, 5, NULL);
    ASSERT(c != NULL);
    hp_cct_node *n = t.r1r2; /* a chain of 3000 nodes below root/r1/r2: all unknown */
    for (int i = 0; i < 3000 && n != NULL; i++)
        n = hp_cct_child(&t.cct, n, &regions[4 + i % 2]);
    ASSERT(n != NULL);
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, n), 2);
    ASSERT_UINT_EQ(hp_trace_contexts_of(c, t.r3r1), 4);
    hp_trace_contexts_free(c);
    return 0;
}

TEST(unwind_distance_designates_a_node_of_both_paths)
{
    hp_trace_contexts *c = hp_trace_contexts_new(unified, 5, NULL);
    ASSERT(c != NULL);
    /* first sample of a location: its whole path (3 nodes) is new, plus one */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, UINT32_MAX, 2, 1, UINT32_MAX), 4);
    /* same context: what the handler saw (1 = progress in the leaf, 3 = re-entered) */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 2, 1, UINT32_MAX), 1);
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 2, 3, UINT32_MAX), 3);
    /* never beyond the whole path plus one */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 2, 9, UINT32_MAX), 4);
    /* root/r1/r2 -> root/r3: common node is the root, 2 up from root/r3 */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 3, 1, UINT32_MAX), 2);
    /* root/r1 -> root/r1/r2: the common node root/r1 is the parent */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 1, 2, 1, UINT32_MAX), 2);
    /* root/r1/r2 -> root/r1: the leaf itself is common */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 1, 1, UINT32_MAX), 1);
    /* root/r3/r1 -> root/r1/r2: only the root in common */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 4, 2, 1, UINT32_MAX), 3);
    hp_trace_contexts_free(c);
    return 0;
}

/* Hybrid traces: regions entered in the trace find their context below the innermost
 * open one; the marker regions (6, 7 here) get their own below every node and at the top
 * (ids 5 + k * 6 + parent, 5 + k * 6 + 5 at the top). */
TEST(entered_regions_and_markers_have_contexts)
{
    hp_trace_contexts *c = hp_trace_contexts_new(unified, 5, NULL);
    ASSERT(c != NULL);
    const uint32_t markers[] = { 6, 7 };
    hp_trace_contexts_set_markers(c, markers, 2);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, UINT32_MAX, 0), 0);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, 0, 3), 3);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, 3, 1), 4);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, 3, 2), UINT32_MAX); /* root/r3/r2: no path */
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, UINT32_MAX, 1), 1); /* a thread's outermost */
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, UINT32_MAX, 2), UINT32_MAX);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, 2, 6), 5 + 2);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, 4, 7), 5 + 6 + 4);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, UINT32_MAX, 7), 5 + 6 + 5);
    ASSERT_UINT_EQ(hp_trace_contexts_enter(c, 5 + 2, 1), UINT32_MAX); /* below a marker */
    ASSERT_UINT_EQ(hp_trace_contexts_parent(c, 5 + 2), 2);
    ASSERT_UINT_EQ(hp_trace_contexts_parent(c, 5 + 6 + 5), UINT32_MAX);
    ASSERT_UINT_EQ(hp_trace_contexts_parent(c, 4), 3);
    ASSERT_UINT_EQ(hp_trace_contexts_parent(c, 0), UINT32_MAX);
    /* entering the marker below root/r1/r2 right after it: 2 (itself new, r2 progressed) */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 5 + 2, 2, 2), 2);
    /* a marker at the top after root/r3: nothing in common, its whole path plus one */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 3, 5 + 6 + 5, 2, UINT32_MAX), 2);
    hp_trace_contexts_free(c);
    return 0;
}

/* OTF2: the distance never designates a node above the innermost region entered by a
 * CallingContextEnter, however far the handler saw new frames, unless the previous
 * path does not reach that region. */
TEST(unwind_distance_stops_at_the_innermost_entered_region)
{
    hp_trace_contexts *c = hp_trace_contexts_new(unified, 5, NULL);
    ASSERT(c != NULL);
    /* sample at root/r1/r2 after one there, handler says 3; root/r1 is open: at most 2 */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 2, 3, 1), 2);
    /* root/r1/r2 open itself: 1 */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 2, 3, 2), 1);
    /* open root/r3 is not on the sample's path: no cap */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 2, 2, 3, 3), 3);
    /* previous at root/r3/r1, open root/r1: the common node (root) wins over the cap */
    ASSERT_UINT_EQ(hp_trace_contexts_distance(c, 4, 2, 1, 1), 3);
    hp_trace_contexts_free(c);
    return 0;
}

TEST(no_unified_tree_no_contexts)
{
    ASSERT(hp_trace_contexts_new(unified, 0, NULL) == NULL);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(nodes_resolve_to_the_unified_node_of_their_path),
             TEST_ENTRY(paths_the_unified_tree_lacks_take_the_deepest_known_ancestor),
             TEST_ENTRY(many_nodes_grow_the_memo),
             TEST_ENTRY(unwind_distance_designates_a_node_of_both_paths),
             TEST_ENTRY(entered_regions_and_markers_have_contexts),
             TEST_ENTRY(unwind_distance_stops_at_the_innermost_entered_region),
             TEST_ENTRY(no_unified_tree_no_contexts));
