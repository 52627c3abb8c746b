/*
 * The finalize split (finalize_timing.h): one running clock charged to the current
 * phase, wall time and this thread's CPU time, and a reduction of the per-phase maxima
 * along the binomial tree for the report.
 */
#include "finalize_timing.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "measurement/core/timer.h"
#include "tree.h"
#include "util/log.h"

/* Wall and CPU ns per phase: their own slots of one array, so that one reduction
 * carries both. */
enum { WALL = 0, CPU = HP_PHASE_COUNT, SLOTS = 2 * HP_PHASE_COUNT };

static hp_finalize_phase current = HP_PHASE_NONE;
static uint64_t since_wall, since_cpu; /* at the last switch */
static uint64_t spent[SLOTS];          /* ns per phase on this rank */
static uint64_t sent_before, received_before; /* the tree's counts when finalize began */

/* This thread's CPU time: on a machine with more ranks than cores, the wall time of a
 * phase is mostly other ranks' turns; its CPU time is what it would take alone. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hp_finalize_timing_start(void)
{
    memset(spent, 0, sizeof(spent));
    since_wall = since_cpu = 0;
    hp_tree_bytes_moved(&sent_before, &received_before);
    hp_finalize_phase_enter(HP_PHASE_UNIFY);
}

hp_finalize_phase hp_finalize_phase_enter(hp_finalize_phase phase)
{
    uint64_t wall = hp_timer_monotonic_ns(), cpu = cpu_ns();
    hp_finalize_phase previous = current;
    if (since_wall != 0) {
        spent[WALL + current] += wall - since_wall;
        spent[CPU + current] += cpu - since_cpu;
    }
    since_wall = wall;
    since_cpu = cpu;
    current = phase;
    return previous;
}

void hp_finalize_phase_leave(hp_finalize_phase previous)
{
    hp_finalize_phase_enter(previous);
}

/* The tree's state: the largest ns per slot over the ranks seen so far, and the most
 * bytes any of them sent. */
typedef struct phase_max {
    uint64_t ns[SLOTS];
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
    for (int i = 0; i < SLOTS; i++)
        if (other.ns[i] > m->ns[i])
            m->ns[i] = other.ns[i];
    if (other.sent > m->sent)
        m->sent = other.sent;
}

static const hp_tree_ops max_tree = { pack_max, absorb_max };

/* The slot HP_PHASE_NONE of each half carries the total of the phases. */
static void put_totals(uint64_t *ns)
{
    for (int base = WALL; base <= CPU; base += HP_PHASE_COUNT) {
        ns[base + HP_PHASE_NONE] = 0;
        for (int i = HP_PHASE_UNIFY; i < HP_PHASE_COUNT; i++)
            ns[base + HP_PHASE_NONE] += ns[base + i];
    }
}

/* One line: rank 0's figures of one half, then the largest of any rank. */
static void say(const char *what, int ranks, const uint64_t *mine, const uint64_t *max,
                const char *tail)
{
    const double s = 1e-9;
    hp_log(HP_LOG_DEBUG, "finalize %s: ranks=%d total=%.6f unify=%.6f merge=%.6f cube=%.6f "
           "trace=%.6f replay=%.6f wait=%.6f max: total=%.6f unify=%.6f merge=%.6f cube=%.6f "
           "trace=%.6f replay=%.6f wait=%.6f%s", what, ranks, (double)mine[HP_PHASE_NONE] * s,
           (double)mine[HP_PHASE_UNIFY] * s, (double)mine[HP_PHASE_MERGE] * s,
           (double)mine[HP_PHASE_CUBE] * s, (double)mine[HP_PHASE_TRACE] * s,
           (double)mine[HP_PHASE_REPLAY] * s, (double)mine[HP_PHASE_WAIT] * s,
           (double)max[HP_PHASE_NONE] * s, (double)max[HP_PHASE_UNIFY] * s,
           (double)max[HP_PHASE_MERGE] * s, (double)max[HP_PHASE_CUBE] * s,
           (double)max[HP_PHASE_TRACE] * s, (double)max[HP_PHASE_REPLAY] * s,
           (double)max[HP_PHASE_WAIT] * s, tail);
}

/* Collective on every rank whatever its log level (HP_VERBOSE may differ between the
 * ranks of an MPMD launch): only rank 0's decides whether the lines are written. */
void hp_finalize_timing_report(const hp_transport *t)
{
    hp_finalize_phase_enter(HP_PHASE_NONE);
    put_totals(spent);
    uint64_t mine[SLOTS]; /* the reduction's own waits are not finalize's */
    memcpy(mine, spent, sizeof(mine));
    phase_max m;
    memcpy(m.ns, spent, sizeof(m.ns));
    uint64_t sent, received; /* before the report's own bytes */
    hp_tree_bytes_moved(&sent, &received);
    m.sent = sent - sent_before;
    received -= received_before;
    hp_tree_reduce(t, &max_tree, &m);
    if (t->rank != 0 || !hp_log_enabled(HP_LOG_DEBUG))
        return;
    char tail[160];
    snprintf(tail, sizeof(tail), " sent=%llu received=%llu", (unsigned long long)m.sent,
             (unsigned long long)received);
    say("split", t->size, mine + WALL, m.ns + WALL, tail);
    say("cpu", t->size, mine + CPU, m.ns + CPU, "");
}
