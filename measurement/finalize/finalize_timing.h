/*
 * Where the end of a run spends its time (finalize_timing.c): the finalize driver, the
 * transport, the wait-state replay and the trace step charge their time to one of six
 * phases, so that a slow finalize at many ranks says whether it unified, merged, wrote,
 * replayed or waited. Each moment is charged to exactly one phase: entering a phase ends
 * the one before, and leaving it resumes that one, so a wait inside the trace step or
 * the replay counts as waiting, not as writing or replaying.
 *
 * The split is reported with HP_VERBOSE=2, in two debug lines per job from rank 0:
 *   hpmeasure: finalize split: ranks=64 total=0.412000 unify=0.010000 merge=0.004000
 *   cube=0.012000 trace=0.150000 replay=0.003000 wait=0.236000 max: total=... (the
 *   same, largest of any rank) sent=... received=...
 *   hpmeasure: finalize cpu: ranks=64 total=... (the same phases in CPU time)
 * in seconds (wall time, then this thread's CPU time: with more ranks than cores the
 * wall time of a phase is mostly other ranks' turns), then the bytes the tree moved:
 * the largest any rank sent, and what rank 0 received.
 * bench/run-scale-bench.sh reads both lines. Not thread-safe: finalize runs on one thread.
 */
#ifndef HP_MEASUREMENT_FINALIZE_FINALIZE_TIMING_H
#define HP_MEASUREMENT_FINALIZE_FINALIZE_TIMING_H

#include <stdint.h>

#include "transport.h"

typedef enum hp_finalize_phase {
    HP_PHASE_NONE,   /* outside finalize, or between the phases below */
    HP_PHASE_UNIFY,  /* building, packing and unpacking profiles and definitions */
    HP_PHASE_MERGE,  /* merging two profiles */
    HP_PHASE_CUBE,   /* writing profile.cubex, summary.txt and the rest (rank 0) */
    HP_PHASE_TRACE,  /* writing this rank's OTF2 files and rank 0's global definitions */
    HP_PHASE_REPLAY, /* the wait-state replay (its collectives' waits are HP_PHASE_WAIT) */
    HP_PHASE_WAIT,   /* blocked on another rank: receives and collectives */
    HP_PHASE_COUNT
} hp_finalize_phase;

/* Starts the split of this finalize: every phase at 0, the current one HP_PHASE_UNIFY
 * (waits before it, at MPI_Init, are not finalize's). */
void hp_finalize_timing_start(void);

/* Charges the time since the last switch to the current phase and makes phase the
 * current one. Returns the phase that was current, for hp_finalize_phase_leave. */
hp_finalize_phase hp_finalize_phase_enter(hp_finalize_phase phase);

/* Returns to previous (what hp_finalize_phase_enter returned). */
void hp_finalize_phase_leave(hp_finalize_phase previous);


/* Collective over t, on every rank (HP_VERBOSE may differ between ranks): ends the
 * current phase and, when rank 0 has HP_VERBOSE >= 2, has it print the split, its own
 * and the largest of any rank per phase. */
void hp_finalize_timing_report(const hp_transport *t);

#endif
