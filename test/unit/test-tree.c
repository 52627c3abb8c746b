/* Unit tests of the binomial tree of the end of a run (measurement/finalize/tree.c),
 * over a fake transport: the ranks run one after another from the highest down, which
 * is an order the tree allows (a rank only receives from higher ranks), and messages
 * wait in a mailbox per (sender, receiver). */
#include "measurement/finalize/tree.h"

#include <stdlib.h>
#include <string.h>

#include "test.h"

enum { MAX_RANKS = 16 };

typedef struct mailbox {
    char *data[MAX_RANKS][MAX_RANKS]; /* [from][to] */
    uint64_t length[MAX_RANKS][MAX_RANKS];
    int sends[MAX_RANKS];
} mailbox;

static mailbox box;

static void fake_send(const hp_transport *t, const char *data, uint64_t length, int peer)
{
    box.data[t->rank][peer] = length > 0 ? malloc(length) : NULL;
    if (length > 0)
        memcpy(box.data[t->rank][peer], data, length);
    box.length[t->rank][peer] = length;
    box.sends[t->rank]++;
}

static char *fake_receive(const hp_transport *t, int peer, uint64_t *length)
{
    *length = box.length[peer][t->rank];
    char *data = box.data[peer][t->rank];
    box.data[peer][t->rank] = NULL;
    return data;
}

/* The state of a rank: the set of ranks it holds, as a bit mask. */
static const char *pack_mask(void *state, uint64_t *length, bool *owned)
{
    *length = sizeof(unsigned);
    *owned = false;
    return state;
}

static void absorb_mask(void *state, const char *data, uint64_t length)
{
    unsigned theirs = 0;
    if (data != NULL && length == sizeof(theirs))
        memcpy(&theirs, data, sizeof(theirs));
    *(unsigned *)state |= theirs;
}

static const hp_tree_ops mask_tree = { pack_mask, absorb_mask };

static int reduce_over(int size)
{
    memset(&box, 0, sizeof(box));
    unsigned root = 0;
    for (int r = size - 1; r >= 0; r--) {
        hp_transport t = { r, size, fake_send, fake_receive, NULL };
        unsigned mask = 1U << r;
        hp_tree_reduce(&t, &mask_tree, &mask);
        ASSERT_INT_EQ(box.sends[r], r == 0 ? 0 : 1); /* each rank sends once */
        if (r == 0)
            root = mask;
    }
    ASSERT_UINT_EQ(root, (1U << size) - 1); /* rank 0 holds every rank */
    return 0;
}

TEST(rank_0_gathers_every_rank_once)
{
    for (int size = 1; size <= MAX_RANKS; size++)
        if (reduce_over(size) != 0)
            return 1;
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(rank_0_gathers_every_rank_once));
