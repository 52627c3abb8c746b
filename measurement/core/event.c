/*
 * The cold halves of region enters and exits. An enter is cold at the end of a stack
 * chunk, below the depth limit (HP_PROFILING_MAX_DEPTH), where subtree selection
 * switches measurement on or off (subtree.h), and for every call when recursion is folded
 * (HP_PROFILING_RECURSION=collapse). An exit is cold when it does not match the innermost
 * open frame. That happens for exits of enters that were dropped (budget used up), for
 * longjmp and thread cancellation (exits that never come for inner frames), and for
 * exits whose enter happened before measurement started. The frames above the
 * matching one are closed at the same time and counted as mismatched; an exit that
 * matches no open frame is counted and ignored.
 */
#include "event.h"

#include "subtree.h"

static hp_frame *switched_off(hp_location *loc)
{
    loc->dropped_depth++;
    loc->off_visits++;
    return NULL;
}

/* With HP_PROFILING_RECURSION=collapse: the node of r's open call, or NULL when r has
 * none. Recursive calls are folded, so the path from the root to the current node is
 * the open calls that were not folded, one node each, and it never changes for a node:
 * when the current node has a child for r, r is not on that path. */
static hp_cct_node *recursion_target(const hp_location *loc, const hp_region *r)
{
    const hp_cct_node *last = loc->current->last_entered;
    if (last != NULL && last->region == r)
        return NULL;
    for (hp_cct_node *n = loc->current; n != NULL; n = n->parent)
        if (n->region == r)
            return n;
    return NULL;
}

/* Pushes frame f of a recursive call folded into outer's: a visit of outer; the current
 * node stays, so the call's callees hang below the innermost call that was not folded,
 * and the frame adds no time (outer's own includes it). The frame keeps outer, whose
 * open folded calls it ends (hp__location_unfold). */
static void fold(hp_location *loc, hp_frame *f, hp_cct_node *outer, uintptr_t addr)
{
    *f = (hp_frame){ .addr = addr, .node = NULL, .parent = outer, .start = HP_FRAME_FOLDED };
    loc->sp = f + 1;
    if (++loc->depth > loc->max_depth)
        loc->max_depth = loc->depth;
    outer->visits++;
    if (outer->folded_open < UINT32_MAX && ++outer->folded_open > outer->recursion_depth)
        outer->recursion_depth = outer->folded_open;
    loc->folded_calls++;
    if (++loc->folded_open > loc->folded_max) {
        loc->folded_max = loc->folded_open;
        loc->folded_deepest = outer->region;
    }
}

/* The subtree rules (subtree.h) come first, then the depth limit, then recursion
 * folding. Outside the selected subtrees the limit is 0, so every enter comes here: a
 * selected region starts measuring, the enters outside it, counted in dropped_depth, are
 * set aside (outer_dropped) until it returns (hp__location_stack_bottom). Below an
 * excluded region at depth d the limit is d - 1, so the first enter after the excluded
 * call returned (depth d - 1) comes here too and ends the exclusion: no check is needed
 * on the exit path. */
hp_frame *hp__event_enter_slow(hp_location *loc, hp_region *r, uintptr_t addr)
{
    if (loc->excluded_depth != 0) {
        if (loc->depth >= loc->excluded_depth)
            return switched_off(loc);
        loc->excluded_depth = 0;
        hp__location_update_limit(loc);
    }
    if (loc->outside_selected) {
        if (!(r->subtree & HP_SUBTREE_SELECT))
            return switched_off(loc);
        loc->outside_selected = false;
        loc->outer_dropped = loc->dropped_depth;
        loc->dropped_depth = 0;
        hp__location_update_limit(loc);
    }
    /* Beyond HP_PROFILING_MAX_DEPTH: no call path of its own, its time stays in the
     * innermost recorded frame; exits are matched like those of dropped enters. */
    if (loc->depth >= loc->depth_cap) {
        loc->dropped_depth++;
        loc->deep_visits++;
        return NULL;
    }
    hp_frame *f = loc->sp;
    if (f == loc->stack_limit && (f = hp__location_stack_grow(loc)) == NULL) {
        loc->dropped_depth++;
        loc->dropped_visits++;
        return NULL;
    }
    hp_cct_node *outer = loc->collapse && loc->current != NULL ? recursion_target(loc, r)
                                                                : NULL;
    if (outer != NULL) {
        fold(loc, f, outer, addr);
        return NULL;
    }
    if (r->subtree & HP_SUBTREE_EXCLUDE) { /* its frame is at depth + 1 */
        loc->excluded_depth = loc->depth + 1;
        hp__location_update_limit(loc);
    }
    return f;
}

bool hp_event_push_path(hp_location *loc, hp_cct_node *leaf, uintptr_t addr)
{
    if (loc->depth >= loc->depth_cap)
        return false;
    hp_frame *f = loc->sp;
    if (f == loc->stack_limit && (f = hp__location_stack_grow(loc)) == NULL)
        return false;
    *f = (hp_frame){ .addr = addr, .node = NULL, .parent = loc->current };
    loc->sp = f + 1;
    if (++loc->depth > loc->max_depth)
        loc->max_depth = loc->depth;
    loc->current = leaf;
    f->start = hp_timer_now(); /* never HP_FRAME_FOLDED (0): the clock started long ago */
    return true;
}

void hp_event_pop_path(hp_location *loc, uint64_t now)
{
    const hp_frame *f = &loc->sp[-1];
    hp_cct_path_add(loc->current, f->parent, now - f->start);
    hp_event_pop(loc, now); /* no node: back to the node before */
}

/* Number of frames from the top down to and including the innermost frame of addr,
 * or 0 when addr is not on the stack. */
static uint64_t frames_down_to(const hp_location *loc, uintptr_t addr)
{
    const hp_stack_chunk *c = loc->chunk;
    const hp_frame *f = loc->sp;
    for (uint64_t n = 1; n <= loc->depth; n++) {
        if (f == c->base) {
            c = c->prev;
            f = c->limit;
        }
        --f;
        if (f->addr == addr)
            return n;
    }
    return 0;
}

void hp__event_exit_mismatch(hp_location *loc, uintptr_t addr, uint64_t now)
{
    if (loc->dropped_depth > 0) {
        loc->dropped_depth--;
        return;
    }
    uint64_t n = frames_down_to(loc, addr);
    if (n == 0) {
        loc->unmatched_exits++;
        return;
    }
    loc->mismatched_exits += n - 1;
    while (n-- > 0)
        hp_event_pop(loc, now);
}
