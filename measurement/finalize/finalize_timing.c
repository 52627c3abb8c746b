/*
 * The finalize split (finalize_timing.h): one running clock charged to the current
 * phase, and a reduction of the per-phase maxima along the binomial tree for the report.
 */
#include "finalize_timing.h"

#include <stdbool.h>
#include <string.h>

#include "measurement/core/timer.h"
#include "tree.h"
#include "util/log.h"

static hp_finalize_phase current = HP_PHASE_NONE;
static uint64_t since;                    /* monotonic ns of the last switch */
static uint64_t spent[HP_PHASE_COUNT];    /* ns per phase on this rank */
static uint64_t bytes_sent, bytes_received; /* along the tree, this finalize */

void hp_finalize_timing_start(void)
{
    memset(spent, 0, sizeof(spent));
    since = 0;
    bytes_sent = bytes_received = 0;
    hp_finalize_phase_enter(HP_PHASE_UNIFY);
}

hp_finalize_phase hp_finalize_phase_enter(hp_finalize_phase phase)
{
    uint64_t now = hp_timer_monotonic_ns();
    hp_finalize_phase previous = current;
    if (since != 0)
        spent[current] += now - since;
    since = now;
    current = phase;
    return previous;
}

void hp_finalize_phase_leave(hp_finalize_phase previous)
{
    hp_finalize_phase_enter(previous);
}

void hp_finalize_timing_bytes(uint64_t sent, uint64_t received)
{
    bytes_sent += sent;
    bytes_received += received;
}

/* The tree's state: the largest ns per phase over the ranks seen so far, and the most
 * bytes any of them sent. */
typedef struct phase_max {
    uint64_t ns[HP_PHASE_COUNT];
    uint64_t sent;
} phase_max;

static const char *pack_max(void *state, uint64_t *length, bool *owned)
{
    *length = sizeof(phase_max);
    *owned = false;
    return state;
}

static void absorb_max(void *state, const char *data, uint64_t length)
{
    phase_max *m = state, other;
    if (data == NULL || length != sizeof(other))
        return;
    memcpy(&other, data, sizeof(other));
    for (int i = 0; i < HP_PHASE_COUNT; i++)
        if (other.ns[i] > m->ns[i])
            m->ns[i] = other.ns[i];
    if (other.sent > m->sent)
        m->sent = other.sent;
}

static const hp_tree_ops max_tree = { pack_max, absorb_max };

void hp_finalize_timing_report(const hp_transport *t)
{
    if (!hp_log_enabled(HP_LOG_DEBUG))
        return;
    hp_finalize_phase_enter(HP_PHASE_NONE);
    phase_max m;
    memcpy(m.ns, spent, sizeof(m.ns));
    m.sent = bytes_sent;
    uint64_t received = bytes_received; /* before the report's own bytes */
    uint64_t total = 0;
    for (int i = HP_PHASE_UNIFY; i < HP_PHASE_COUNT; i++)
        total += spent[i];
    m.ns[HP_PHASE_NONE] = total; /* the slot carries the largest total */
    hp_tree_reduce(t, &max_tree, &m);
    if (t->rank != 0)
        return;
    const double s = 1e-9;
    hp_log(HP_LOG_DEBUG, "finalize split: ranks=%d total=%.3f unify=%.3f merge=%.3f "
           "cube=%.3f trace=%.3f wait=%.3f max: total=%.3f unify=%.3f merge=%.3f "
           "cube=%.3f trace=%.3f wait=%.3f sent=%llu received=%llu (seconds: rank 0, then the "
           "largest of any rank; bytes: the most one rank sent, what rank 0 received)",
           t->size, (double)total * s, (double)spent[HP_PHASE_UNIFY] * s,
           (double)spent[HP_PHASE_MERGE] * s, (double)spent[HP_PHASE_CUBE] * s,
           (double)spent[HP_PHASE_TRACE] * s, (double)spent[HP_PHASE_WAIT] * s,
           (double)m.ns[HP_PHASE_NONE] * s, (double)m.ns[HP_PHASE_UNIFY] * s,
           (double)m.ns[HP_PHASE_MERGE] * s, (double)m.ns[HP_PHASE_CUBE] * s,
           (double)m.ns[HP_PHASE_TRACE] * s, (double)m.ns[HP_PHASE_WAIT] * s,
           (unsigned long long)m.sent, (unsigned long long)received);
}
