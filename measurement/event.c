/*
 * The cold halves of region enters and exits. An enter is cold at the end of a stack chunk
 * and below the depth limit (HP_PROFILING_MAX_DEPTH). An exit is cold when it does not
 * match the innermost open frame. That happens for exits of enters that were dropped (budget used up), for
 * longjmp and thread cancellation (exits that never come for inner frames), and for
 * exits whose enter happened before measurement started. The frames above the
 * matching one are closed at the same time and counted as mismatched; an exit that
 * matches no open frame is counted and ignored.
 */
#include "event.h"

hp_frame *hp__event_enter_slow(hp_location *loc)
{
    /* Beyond HP_PROFILING_MAX_DEPTH: no call path of its own, its time stays in the
     * innermost recorded frame; exits are matched like those of dropped enters. */
    if (loc->depth >= loc->depth_limit) {
        loc->dropped_depth++;
        loc->deep_visits++;
        return NULL;
    }
    hp_frame *f = hp__location_stack_grow(loc);
    if (f == NULL) {
        loc->dropped_depth++;
        loc->dropped_visits++;
    }
    return f;
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
