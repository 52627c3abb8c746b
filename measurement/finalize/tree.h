/*
 * The one binomial tree of the end of a run (tree.c): every rank's data, packed as
 * bytes, travels to rank 0 in log2(size) rounds, each rank sending exactly once.
 * Profiles (finalize.c) and the trace's communicator definitions (adapters/mpi/
 * mpi_comms.c) are both reduced along it.
 */
#ifndef HP_MEASUREMENT_FINALIZE_TREE_H
#define HP_MEASUREMENT_FINALIZE_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "transport.h"

typedef struct hp_tree_ops {
    /* What this rank sends to its parent, called once when it drops out: a buffer of
     * *length bytes (length 0 = nothing); *owned says whether the tree frees it. */
    const char *(*pack)(void *state, uint64_t *length, bool *owned);
    /* Adds what a child sent: data is NULL when the child sent nothing or memory ran out
     * (length > 0 then); the tree frees data afterwards. */
    void (*absorb)(void *state, const char *data, uint64_t length);
} hp_tree_ops;

/* Collective over t: in round k, ranks with bit k set send what they hold to
 * rank - 2^k and drop out; the others absorb what rank + 2^k sends. Rank 0 ends with
 * everything in state. */
void hp_tree_reduce(const hp_transport *t, const hp_tree_ops *ops, void *state);

/* The bytes this rank has sent and received in all reductions so far (finalize's timing
 * report takes the difference over its phases). */
void hp_tree_bytes_moved(uint64_t *sent, uint64_t *received);

#endif
