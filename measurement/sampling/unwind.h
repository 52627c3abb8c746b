/*
 * Call-stack unwinding with libunwind, for sampling (from a signal's context) and for
 * MPI wrappers (from the current context) when user code is not instrumented.
 *
 * An unwind yields the frames from the innermost outward, each as the start address of
 * its function and the call site it is executing (the return address into the next inner
 * frame): a frame whose function and callers, with their call sites, are the same in two
 * unwinds is taken as the same activation (a lower bound for visit counts: a function
 * called twice in a row from the same place looks like one visit). Frames of hpmeasure's own code (wrappers, hooks) are left out. The outermost frames that belong to the C library or the program's entry point
 * (_start, __libc_start_main, start_thread, clone) are left out: a path begins at main or
 * at a thread's start routine.
 *
 * The caches of the paper "Reconciling Sampling and Direct Instrumentation" keep a
 * repeated unwind cheap: return address -> function start (call sites are few), and for
 * the interrupted top frame, whose address is not a call site, a small table of recent
 * [start, end) ranges. Both live in the per-location hp_unwinder.
 *
 * Every return address is checked: the instruction before it must be a call. An invalid
 * one ends the unwind as failed (the caller counts it under UNWIND FAILED) instead of
 * producing a wrong path.
 *
 * Async-signal-safe on the fast path: libunwind's backtrace with its per-thread cache,
 * no lock, no allocation. A cache miss of libunwind's (first sight of a return address)
 * takes its global lock briefly, from any thread but never twice on one.
 */
#ifndef HP_MEASUREMENT_UNWIND_H
#define HP_MEASUREMENT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "measurement/core/memory.h"

typedef struct hp_unwind_frame {
    uintptr_t start; /* function start address */
    uintptr_t site;  /* return address into the next inner frame (its call site), 0 for
                        the interrupted frame */
} hp_unwind_frame;

typedef enum hp_unwind_status {
    HP_UNWIND_COMPLETE, /* reached the outermost frame (or a stop address) */
    HP_UNWIND_FAILED,   /* a step failed or a return address was not after a call */
    HP_UNWIND_TRUNCATED /* more frames than the caller's array holds */
} hp_unwind_status;

/* Where an unwind stops early: frames whose function starts at one of these addresses
 * (the innermost instrumented functions) end it, and are not part of the result. */
typedef struct hp_unwind_stop {
    const uintptr_t *starts;
    size_t count;
    size_t hit; /* out: index into starts of the frame that stopped it, or count */
} hp_unwind_stop;

typedef struct hp_unwinder hp_unwinder;

/* What the thunk stack (thunks.h) tells about the previous unwind's path, in path depths
 * (0 = the outermost frame): frames [0, alive) are the same activations as then, and
 * frames [gone_from, gone_end) of the previous path have returned since. */
typedef struct hp_unwind_known {
    size_t alive;
    size_t gone_from, gone_end;
} hp_unwind_known;

struct hp_thunk_stack;

/* Process-wide set-up (libunwind's caching policy, the C library's code range, the entry
 * point, this library's code range). Not signal-safe; call once at start-up. Returns 0
 * or -1 when unwinding is not available. */
int hp_unwind_init(void);

/* Leaves the frames of the object (shared library) whose code holds addr out of every
 * unwind from now on, as this library's are: a runtime's internals (the OpenMP runtime's
 * thread start, fork and barrier code), whose samples then go to the nearest frame of
 * the program or to the innermost measured region. From then on our own frames may be
 * stops too (the adapter's trampolines that the runtime calls). At most 4 objects; not
 * for signal handlers (dl_iterate_phdr, a mutex). */
void hp_unwind_hide_object(const void *addr);

/* A location's caches, from its arena. NULL when the budget is used up. */
hp_unwinder *hp_unwinder_new(hp_arena *arena);

/* Unwinds the context a signal interrupted (the handler's ucontext argument). Writes at
 * most max frames into out, innermost first, and their number into *count. */
hp_unwind_status hp_unwind_signal(hp_unwinder *u, void *ucontext, hp_unwind_stop *stop,
                                  hp_unwind_frame *out, size_t max, size_t *count);

/* Unwinds the calling thread from here: the first frame is the caller of the MPI wrapper
 * that asks. */
hp_unwind_status hp_unwind_here(hp_unwinder *u, hp_unwind_stop *stop, hp_unwind_frame *out,
                                size_t max, size_t *count);

/* Switches unwinding to the thunk-aware walk (process-wide; sampling.c calls it
 * before hp_thunks_setup): libgcc's unwinder, which tells where each return address lives.
 * Returns 0, or -1 when libgcc_s cannot be loaded. */
int hp_unwind_enable_thunks(void);

/* Sets thunks on the stacks u unwinds, with the calling thread's side stack t. */
void hp_unwinder_set_thunks(hp_unwinder *u, struct hp_thunk_stack *t);

/* What the last unwind of u learnt from its thunks (all zero without thunks). */
hp_unwind_known hp_unwinder_known(const hp_unwinder *u);

/* Lookups answered by the caches and by libunwind, for the benchmark and the summary. */
typedef struct hp_unwind_stats {
    uint64_t cache_hits;
    uint64_t cache_misses;
    uint64_t thunks_set;     /* return addresses replaced by the thunk */
    uint64_t thunk_prefixes; /* unwinds that ended at a thunk and reused the side stack */
    uint64_t walked_frames;  /* frames stepped through by the thunk-aware walk */
} hp_unwind_stats;

void hp_unwinder_stats(const hp_unwinder *u, hp_unwind_stats *out);

/* Turns the caches off (benchmarks: the cost of an uncached unwind). */
void hp_unwind_set_caching(int on);

#endif
