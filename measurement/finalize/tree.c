/*
 * The binomial-tree reduction to rank 0 (see tree.h): log-depth, each rank sends once,
 * so it scales with the number of ranks. What travels is opaque bytes; the caller's
 * pack and absorb give them meaning.
 */
#include "tree.h"

#include <stdlib.h>

static uint64_t bytes_sent, bytes_received; /* by this rank, over all reductions */

void hp_tree_bytes_moved(uint64_t *sent, uint64_t *received)
{
    *sent = bytes_sent;
    *received = bytes_received;
}

void hp_tree_reduce(const hp_transport *t, const hp_tree_ops *ops, void *state)
{
    for (int step = 1; step < t->size; step <<= 1) {
        if (t->rank & step) {
            uint64_t length = 0;
            bool owned = false;
            const char *out = ops->pack(state, &length, &owned);
            t->send(t, out, length, t->rank - step);
            bytes_sent += length;
            if (owned)
                free((void *)out);
            return;
        }
        if (t->rank + step < t->size) {
            uint64_t length = 0;
            char *in = t->receive(t, t->rank + step, &length);
            bytes_received += length;
            ops->absorb(state, in, length);
            free(in);
        }
    }
}
