/*
 * The thunk stack of the paper "Reconciling Sampling and Direct Instrumentation"
 * (§II.A.4-5), opt-in with HP_UNWIND_THUNKS=true.
 *
 * While unwinding, the return address slot of each frame of user code on the stack is
 * overwritten with the address of hp__thunk, and the original return address is kept in
 * the thread's side stack. The next unwind stops at the first frame whose slot holds the
 * thunk: everything outward of it is known from the side stack. Returning through a thunk
 * pops the side stack, so a frame that is still thunked is known to be the same
 * activation as before, and one whose thunk is gone has returned: visit counts become
 * exact lower bounds.
 *
 * Entry k of a side stack holds the return address into the frame at path depth k (main
 * or a thread's start routine is depth 0), from the slot in the frame at depth k + 1;
 * entries are ordered outermost first, so their slot addresses decrease.
 *
 * Only the thread's own stack gets thunks: on another one (swapcontext, coroutines) an
 * unwind leaves the side stack as it is, since the frames it names are still there.
 *
 * Frames left without returning (longjmp, an exception) leave entries whose slots lie
 * below the stack pointer: the thunk drops them when it is reached, the next unwind drops
 * them when it does not meet their slots. Everything that reads return addresses from the
 * stack with its own unwinder (C++ exceptions, thread exit, glibc's backtrace) first
 * puts the original addresses back (hp_thunks_restore, called by the interposers in
 * adapters/threads/thunk_guard.c) and blocks thunking until the exception is caught.
 */
#ifndef HP_MEASUREMENT_THUNKS_H
#define HP_MEASUREMENT_THUNKS_H

#include <stdbool.h>
#include <stdint.h>

#include "measurement/core/memory.h"

#include "thunk_stack.h"

/* Process start-up (not signal-safe), after the unwinder was switched to its thunk-aware
 * walk (hp_unwind_enable_thunks): checks that the interposers of
 * adapters/threads/thunk_guard.c are the ones the program calls. Returns 0, or -1 with a
 * reason on stderr (thunks then stay off). */
int hp_thunks_setup(void);

/* True after a successful hp_thunks_setup. */
bool hp_thunks_enabled(void);

/* The calling thread's side stack: `reuse` (the side stack of an ended thread whose
 * location this thread took over), or new from the arena (cold path: location
 * creation). NULL when the budget is used up or thunks are off. */
hp_thunk_stack *hp_thunks_thread_start(hp_arena *arena, hp_thunk_stack *reuse);

/* Puts every original return address of the calling thread back, empties its side stack
 * and sets no new thunks until hp_thunks_unblock. Returns whether thunks were blocked
 * already. Async-signal-safe. */
bool hp_thunks_restore(void);

/* Allows thunks again on the calling thread (an exception was caught). */
void hp_thunks_unblock(void);

#endif
