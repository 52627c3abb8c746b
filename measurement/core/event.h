/*
 * Entering and leaving regions: the hot path shared by every adapter.
 *
 * Enter pushes a frame and counts a visit; exit pops it and adds the elapsed ticks.
 * The timestamp is read last on enter and first on exit, so the core's own work falls
 * outside the measured interval as far as possible. No locks, no allocation except
 * budget pages on the rare first entry of a new call path, no system calls except, when
 * counters are configured (HP_METRIC_*), one read of them per enter and exit.
 */
#ifndef HP_MEASUREMENT_EVENT_H
#define HP_MEASUREMENT_EVENT_H

#include "location.h"
#include "subtree.h"
#include "timer.h"

/* Exit handling that does not match the innermost frame (cold). */
void hp__event_exit_mismatch(hp_location *loc, uintptr_t addr, uint64_t now);

/* An enter at the end of a stack chunk, at the depth limit, of a region that starts or
 * ends a measured subtree, or with recursion folding (cold): the frame to use, or NULL
 * when the enter is done (folded recursion) or not recorded (counted; its exit is
 * matched by dropped_depth). */
hp_frame *hp__event_enter_slow(hp_location *loc, hp_region *r, uintptr_t addr);

static inline void hp_event_enter(hp_location *loc, hp_region *r, uintptr_t addr)
{
    hp_frame *f = loc->sp;
    if (unlikely(f == loc->stack_limit || loc->depth >= loc->depth_limit || r->subtree)) {
        f = hp__event_enter_slow(loc, r, addr);
        if (f == NULL)
            return;
    }
    hp_cct_node *parent = loc->current;
    hp_cct_node *node = parent != NULL ? hp_cct_child(&loc->cct, parent, r) : NULL;
    if (likely(node != NULL))
        node->visits++;
    else
        loc->dropped_visits++;
    f->addr = addr;
    f->node = node;
    f->parent = parent;
    loc->current = node;
    loc->sp = f + 1;
    if (unlikely(++loc->depth > loc->max_depth))
        loc->max_depth = loc->depth;
    if (unlikely(loc->metrics != NULL) && node != NULL) /* one read(), see metrics.h */
        hp__metrics_enter(loc->metrics, node->counters);
    f->start = hp_timer_now();
    if (unlikely(loc->tracing) && node != NULL) {
        /* after a flush the visit starts when the trace says: the flush is not in it */
        f->start = hp_trace_add(&loc->trace, HP_TRACE_ENTER, r->id, f->start);
        if (loc->metrics != NULL)
            f->start = hp_metrics_trace(loc->metrics, &loc->trace, f->start);
    }
}

/* Pops the innermost frame, which the caller has checked exists. */
static inline void hp_event_pop(hp_location *loc, uint64_t now)
{
    hp_frame *f = --loc->sp;
    loc->depth--;
    if (likely(f->node != NULL)) {
        hp_cct_visit_end(f->node, now - f->start);
        if (unlikely(loc->metrics != NULL))
            hp__metrics_exit(loc->metrics, f->node->counters);
        if (unlikely(loc->tracing)) {
            uint64_t t = now; /* the Leave follows its metric events, also after a flush */
            if (loc->metrics != NULL)
                t = hp_metrics_trace(loc->metrics, &loc->trace, now);
            hp_trace_add(&loc->trace, HP_TRACE_LEAVE, f->node->region->id, t);
        }
        loc->current = f->parent;
    } else if (f->start == HP_FRAME_FOLDED) {
        hp__location_unfold(loc, f); /* the current node stays, as at the fold */
    } else {
        loc->current = f->parent;
    }
    /* Below the chunk's base, or the outermost frame popped while selecting subtrees. */
    if (unlikely(loc->sp == loc->stack_base) && (loc->depth > 0 || hp_subtree_selecting()))
        hp__location_stack_bottom(loc);
}

/* A call path that sampling unwound above a runtime call (an OpenMP fork) and that
 * stays open while the call runs: pushes a frame without a node and makes leaf the
 * current node. The frame's addr is the innermost unwound function's start, so that a
 * sample taken meanwhile stops there instead of unwinding the path again below leaf.
 * False (nothing changed) beyond HP_PROFILING_MAX_DEPTH or the budget (cold). */
bool hp_event_push_path(hp_location *loc, hp_cct_node *leaf, uintptr_t addr);

/* Pops that frame, now the innermost, with loc->current its leaf again: the call's time
 * goes to the inclusive time of the path's nodes, as an MPI call's does (cold). */
void hp_event_pop_path(hp_location *loc, uint64_t now);

/* True when addr is the innermost open frame, so that the exit is a plain pop. */
static inline bool hp_event_exit_matches(const hp_location *loc, uintptr_t addr)
{
    return loc->depth > 0 && loc->sp[-1].addr == addr && loc->dropped_depth == 0;
}

/* Consumes the exit of an enter that was not recorded (switched off, too deep, no
 * budget), which needs no timestamp: this keeps a switched-off call (HP_SELECT_SUBTREES,
 * HP_EXCLUDE_SUBTREES) close to a filtered one. False for any other exit. */
static inline bool hp_event_exit_unrecorded(hp_location *loc)
{
    if (likely(loc->dropped_depth == 0))
        return false;
    loc->dropped_depth--;
    return true;
}

static inline void hp_event_exit(hp_location *loc, uintptr_t addr)
{
    if (hp_event_exit_unrecorded(loc))
        return;
    uint64_t now = hp_timer_now();
    if (likely(hp_event_exit_matches(loc, addr)))
        hp_event_pop(loc, now);
    else
        hp__event_exit_mismatch(loc, addr, now);
}

#endif
