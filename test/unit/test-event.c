/*
 * Unit tests of the hot path's enter and exit (measurement/core/event.c and event.h) on a
 * real location (measurement/core/location.c, linked into this test): recursion folding,
 * exits that do not match the innermost frame, subtree selection and exclusion, the
 * depth limit, and a stack deeper than one chunk. Regions are plain structs; their code
 * address is ADDR(i).
 */
#include "measurement/core/event.h"

#include "test.h"

enum { ROOT, A, B, C, D, S, X, NREGIONS };
#define ADDR(i) ((uintptr_t)0x1000 + 16u * (uintptr_t)(i))

static hp_region regions[NREGIONS];
static const char *const names[NREGIONS] = { "root", "a", "b", "c", "d", "s", "x" };

/* A bound location for this thread, with the depth limit (0 = none) and recursion
 * folding given; subtree selection is on when `selecting`. */
static hp_location *start(uint64_t depth_limit, bool collapse, bool selecting)
{
    for (int i = 0; i < NREGIONS; i++)
        regions[i] = (hp_region){ .id = (uint32_t)i, .addr = ADDR(i), .name = names[i] };
    if (hp_memory_init(16u << 20) < 0)
        return NULL;
    hp__subtree_selecting = selecting;
    hp_location_set_root_region(&regions[ROOT]);
    hp_location_set_depth_limit(depth_limit);
    hp_location_set_collapse(collapse);
    hp_location *loc = hp_location_acquire();
    if (loc != NULL) {
        hp_location_bind(loc);
        hp_location_open(loc);
    }
    return loc;
}

static void enter(hp_location *loc, int i)
{
    hp_event_enter(loc, &regions[i], ADDR(i));
}

static void leave(hp_location *loc, int i)
{
    hp_event_exit(loc, ADDR(i));
}

/* Runs a sequence of events: "+a +b -b -a" enters a, enters b, leaves b, leaves a
 * (regions by the first letter of their names). */
static void run(hp_location *loc, const char *events)
{
    for (const char *p = events; *p != '\0'; p++) {
        if (*p != '+' && *p != '-')
            continue;
        int i = ROOT + 1;
        while (i < NREGIONS && names[i][0] != p[1])
            i++;
        if (*p == '+')
            enter(loc, i);
        else
            leave(loc, i);
    }
}

/* Every frame closed, back at the root, and no exit that did not match. */
#define ASSERT_BALANCED(loc)                                                           \
    do {                                                                               \
        ASSERT_UINT_EQ((loc)->depth, 0);                                               \
        ASSERT((loc)->current == (loc)->cct.root);                                     \
        ASSERT_UINT_EQ((loc)->mismatched_exits + (loc)->unmatched_exits, 0);           \
    } while (0)

/* The child of parent for region i, or NULL: a look-up that creates nothing. */
static hp_cct_node *child(const hp_cct_node *parent, int i)
{
    for (hp_cct_node *n = parent != NULL ? parent->first_child : NULL; n; n = n->next_sibling)
        if (n->region == &regions[i])
            return n;
    return NULL;
}

static uint64_t children(const hp_cct_node *parent)
{
    uint64_t n = 0;
    for (const hp_cct_node *c = parent->first_child; c != NULL; c = c->next_sibling)
        n++;
    return n;
}

TEST(recursion_is_a_new_path_without_folding)
{
    hp_location *loc = start(0, false, false);
    ASSERT(loc != NULL);
    run(loc, "+a +b +a +c -c -a -b -a");
    hp_cct_node *a = child(loc->cct.root, A), *ab = child(a, B), *aba = child(ab, A);
    ASSERT(a != NULL && ab != NULL && aba != NULL && child(aba, C) != NULL);
    ASSERT_UINT_EQ(a->visits, 1);
    ASSERT_UINT_EQ(loc->folded_calls, 0);
    ASSERT_BALANCED(loc);
    return 0;
}

/* HP_PROFILING_RECURSION=collapse: a -> b -> a -> c folds the inner a into the outer
 * one's node (a second visit, recursion depth 1); c hangs below b, the innermost call
 * that was not folded. */
TEST(recursion_folds_into_the_outer_call)
{
    hp_location *loc = start(0, true, false);
    ASSERT(loc != NULL);
    run(loc, "+a +b +a +c");
    ASSERT_UINT_EQ(loc->depth, 4);
    ASSERT_UINT_EQ(loc->folded_open, 1);
    run(loc, "-c -a -b -a");
    hp_cct_node *a = child(loc->cct.root, A), *ab = child(a, B);
    ASSERT(a != NULL && ab != NULL);
    ASSERT(child(ab, A) == NULL);
    ASSERT(child(ab, C) != NULL);
    ASSERT_UINT_EQ(a->visits, 2);
    ASSERT_UINT_EQ(a->recursion_depth, 1);
    ASSERT_UINT_EQ(a->folded_open, 0);
    ASSERT_UINT_EQ(ab->visits, 1);
    ASSERT_UINT_EQ(loc->folded_calls, 1);
    ASSERT_UINT_EQ(loc->folded_max, 1);
    ASSERT(loc->folded_deepest == &regions[A]);
    ASSERT_BALANCED(loc);
    return 0;
}

/* A longjmp from c to a's caller: the exit of a closes b and c too (2 mismatched), an
 * exit of a function that is not open changes nothing, and the tree goes on at the root. */
TEST(mismatched_exits_are_absorbed)
{
    hp_location *loc = start(0, false, false);
    ASSERT(loc != NULL);
    run(loc, "+a +b +c -a");
    ASSERT_UINT_EQ(loc->mismatched_exits, 2);
    ASSERT_UINT_EQ(loc->depth, 0);
    ASSERT(loc->current == loc->cct.root);
    hp_cct_node *a = child(loc->cct.root, A), *b = child(a, B), *c = child(b, C);
    ASSERT(a != NULL && b != NULL && c != NULL);
    /* every closed visit ended: its extremes are set, and c's time is inside b's */
    ASSERT(a->min_ticks != UINT64_MAX && b->min_ticks != UINT64_MAX);
    ASSERT(c->min_ticks != UINT64_MAX && c->incl_ticks <= b->incl_ticks);
    run(loc, "-d");
    ASSERT_UINT_EQ(loc->unmatched_exits, 1);
    ASSERT_UINT_EQ(loc->mismatched_exits, 2);
    run(loc, "+a");
    ASSERT(loc->current == a);
    ASSERT_UINT_EQ(a->visits, 2);
    run(loc, "-a");
    ASSERT_UINT_EQ(loc->depth, 0);
    ASSERT_UINT_EQ(children(loc->cct.root), 1);
    return 0;
}

/* HP_SELECT_SUBTREES=s: only s and what it calls is measured, as a child of the root;
 * the calls around it are switched off, and their exits consumed. */
TEST(select_measures_only_the_selected_subtree)
{
    hp_location *loc = start(0, false, true);
    ASSERT(loc != NULL);
    regions[S].subtree = HP_SUBTREE_SELECT;
    run(loc, "+a +s +b -b -s +c -c -a");
    ASSERT_UINT_EQ(children(loc->cct.root), 1);
    hp_cct_node *s = child(loc->cct.root, S);
    ASSERT(s != NULL && child(s, B) != NULL);
    ASSERT_UINT_EQ(s->visits, 1);
    ASSERT_UINT_EQ(loc->off_visits, 2); /* a and c */
    ASSERT_UINT_EQ(loc->dropped_depth, 0);
    ASSERT_BALANCED(loc);
    return 0;
}

/* HP_EXCLUDE_SUBTREES=x: x is measured, what it calls is not; after x returns,
 * measurement goes on (c). */
TEST(exclude_drops_what_the_excluded_call_calls)
{
    hp_location *loc = start(0, false, false);
    ASSERT(loc != NULL);
    regions[X].subtree = HP_SUBTREE_EXCLUDE;
    run(loc, "+a +x +b +c -c -b -x +c -c -a");
    hp_cct_node *a = child(loc->cct.root, A), *x = child(a, X);
    ASSERT(a != NULL && x != NULL && child(a, C) != NULL);
    ASSERT_UINT_EQ(children(x), 0);
    ASSERT_UINT_EQ(loc->off_visits, 2); /* b and the c inside x */
    ASSERT_UINT_EQ(loc->excluded_depth, 0);
    ASSERT_BALANCED(loc);
    return 0;
}

/* HP_PROFILING_MAX_DEPTH=2: calls below depth 2 get no path of their own; their exits
 * are matched without a mismatch. */
TEST(depth_limit_keeps_deeper_calls_in_the_last_frame)
{
    hp_location *loc = start(2, false, false);
    ASSERT(loc != NULL);
    run(loc, "+a +b +c +d");
    ASSERT_UINT_EQ(loc->depth, 2);
    run(loc, "-d -c -b -a");
    hp_cct_node *a = child(loc->cct.root, A), *b = child(a, B);
    ASSERT(a != NULL && b != NULL);
    ASSERT_UINT_EQ(children(b), 0);
    ASSERT_UINT_EQ(loc->deep_visits, 2);
    ASSERT_UINT_EQ(loc->max_depth, 2);
    ASSERT_BALANCED(loc);
    return 0;
}

/* d, then 20000 nested calls of a and b, cross several stack chunks; half return one
 * by one, then the exit of d (a longjmp) closes the rest, across chunks too. */
TEST(deep_stack_crosses_chunks)
{
    hp_location *loc = start(0, false, false);
    ASSERT(loc != NULL);
    enum { N = 20000 };
    run(loc, "+d");
    for (int i = 0; i < N; i++)
        enter(loc, A + i % 2);
    ASSERT_UINT_EQ(loc->depth, N + 1);
    for (int i = N - 1; i >= N / 2; i--)
        leave(loc, A + i % 2);
    ASSERT_UINT_EQ(loc->depth, N / 2 + 1);
    ASSERT_UINT_EQ(loc->mismatched_exits, 0);
    run(loc, "-d");
    ASSERT_UINT_EQ(loc->mismatched_exits, N / 2);
    ASSERT_UINT_EQ(loc->depth, 0);
    ASSERT(loc->sp == loc->stack_base);
    ASSERT_UINT_EQ(loc->cct.nodes, N + 2);
    ASSERT_UINT_EQ(child(loc->cct.root, D)->visits, 1);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(recursion_is_a_new_path_without_folding),
             TEST_ENTRY(recursion_folds_into_the_outer_call),
             TEST_ENTRY(mismatched_exits_are_absorbed),
             TEST_ENTRY(select_measures_only_the_selected_subtree),
             TEST_ENTRY(exclude_drops_what_the_excluded_call_calls),
             TEST_ENTRY(depth_limit_keeps_deeper_calls_in_the_last_frame),
             TEST_ENTRY(deep_stack_crosses_chunks));
