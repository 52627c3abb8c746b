/*
 * Locations: the per-thread measurement state. A location is created on its thread's
 * first event and holds everything the hot path touches: a shadow stack of open
 * regions, the calling-context tree, a small direct-mapped cache of address -> region,
 * and its own arena of budget memory. Only its thread writes it; finalize reads it
 * after measurement stopped.
 *
 * The thread-local pointer uses the initial-exec TLS model so that the hot path reads
 * it with one %fs-relative load instead of calling __tls_get_addr.
 */
#ifndef HP_MEASUREMENT_LOCATION_H
#define HP_MEASUREMENT_LOCATION_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cct.h"
#include "memory.h"
#include "metrics.h"
#include "region.h"
#include "runtime_calls.h"
#include "measurement/trace/trace_buffer.h"
#include "util/compiler.h"

/* hp_frame.start of a recursive call folded into an outer call (HP_PROFILING_RECURSION):
 * its node is NULL, so it adds no time (the outer call's time holds it), and its parent
 * is the outer call's node, not the current node (which a folded call leaves as it is). */
#define HP_FRAME_FOLDED 0

typedef struct hp_frame {
    uintptr_t addr;       /* code address of the function (compiler adapter) */
    hp_cct_node *node;    /* NULL when the node could not be created (budget) */
    hp_cct_node *parent;  /* the current node before this frame was pushed */
    uint64_t start;       /* timer ticks at enter */
} hp_frame;

/* The shadow stack lives in chunks of budget pages, linked both ways, so depth is only
 * limited by the budget (recursion 10,000 deep is 320 KiB). */
typedef struct hp_stack_chunk {
    struct hp_stack_chunk *prev;
    struct hp_stack_chunk *next;
    hp_frame *base;
    hp_frame *limit;
} hp_stack_chunk;

enum { HP_REGION_CACHE_SIZE = 256 };

/* Why a location ignores events. Kept as separate bits so that leaving the core (clearing
 * INSIDE) can never undo a stop requested meanwhile by finalize. */
enum {
    HP_BUSY_INSIDE = 1u << 0,  /* its thread is inside the core (symbolizing, ...) */
    HP_BUSY_STOPPED = 1u << 1, /* measurement has ended for it */
    HP_BUSY_FREE = 1u << 2     /* its thread ended: waiting for the next thread */
};

typedef struct hp_cache_entry {
    uintptr_t addr;
    hp_region *region;
} hp_cache_entry;

typedef struct hp_location {
    /* hot: touched by every enter/exit */
    _Atomic unsigned busy;      /* HP_BUSY_* bits: non-zero = ignore events */
    hp_frame *sp;               /* next free frame */
    hp_frame *stack_base;       /* first frame of the current chunk */
    hp_frame *stack_limit;      /* one past the last frame of the current chunk */
    hp_cct_node *current;       /* node of the innermost open region */
    hp_cct cct;
    uint64_t dropped_depth;     /* enters not pushed (budget), to be matched by exits */
    uint64_t depth;             /* open frames */
    uint64_t depth_limit;       /* enters at this depth take the slow path: the smallest of
                                   HP_PROFILING_MAX_DEPTH (UINT64_MAX = none), an excluded
                                   subtree's, and 0 outside selected subtrees */
    uint64_t max_depth;
    hp_metrics *metrics;        /* counters read at enter/exit, NULL = none configured */
    bool in_mpi;                /* inside a measured MPI call: nested ones are not measured */
    bool tracing;               /* record events in trace (HP_ENABLE_TRACING) */
    volatile sig_atomic_t in_core; /* set while the thread changes this location: the
                                      sampling signal handler then leaves it alone */
    uint64_t mpi_ticks;         /* time in measured MPI calls so far (sampling accounting) */
    struct hp_sampling *sampling; /* sampling state, NULL when not sampled */
    hp_trace_buffer trace;
    hp_cache_entry cache[HP_REGION_CACHE_SIZE];

    /* cold */
    uint32_t id;                /* thread number in this process, 0 = master */
    bool ended;                 /* its (last) thread has exited */
    _Atomic int closed;         /* open frames accounted (once per thread: its end or
                                   finalize) */
    uint64_t start_time;        /* start of its current (or last) thread */
    uint64_t end_time;
    uint64_t lived_ticks;       /* lifetimes of the threads before the current one */
    uint64_t threads;           /* threads that used it (HP_THREAD_LOCATIONS=reuse) */
    uintptr_t start_routine;    /* pthread_create's start routine of its threads, 0 = not
                                   known: a free location goes to a thread of the same one */
    struct hp_location *next_free;
    uint64_t mismatched_exits;  /* exits that did not match the innermost frame */
    uint64_t unmatched_exits;   /* exits of functions not on the stack at all */
    uint64_t dropped_visits;    /* visits lost because the budget was used up */
    uint64_t deep_visits;       /* visits below depth_limit, folded into the frame above */
    uint64_t off_visits;        /* calls switched off by HP_SELECT/EXCLUDE_SUBTREES */
    bool outside_selected;      /* HP_SELECT_SUBTREES: no selected call is open */
    uint64_t outer_dropped;     /* enters switched off outside the open selected subtree */
    uint64_t excluded_depth;    /* depth of the open HP_EXCLUDE_SUBTREES frame, 0 = none */
    uint64_t depth_cap;         /* HP_PROFILING_MAX_DEPTH, UINT64_MAX = none */
    bool collapse;              /* HP_PROFILING_RECURSION=collapse */
    uint64_t folded_calls;      /* recursive calls folded into an outer call's node */
    uint64_t folded_open;       /* folded frames on the stack */
    uint64_t folded_max;        /* the most that were on it at once */
    const hp_region *folded_deepest; /* the region folded into then */
    uint64_t *call_counts;      /* unmeasured calls per adapter function (MPI), or NULL */
    hp_stack_chunk *chunk;
    hp_arena arena;
    struct hp_location *next;   /* list of all locations */
} hp_location;

extern _Thread_local hp_location *hp__tls_location __attribute__((tls_model("initial-exec")));

/* A thread's first event, in the order thread_attach.c calls them:
 * hp_location_pool_changing: true while the calling thread is taking a location from or
 *   giving one back to the free list (an event from there must not attach);
 * hp_location_acquire: a free or new location for the calling thread, NULL (the thread
 *   marked unmeasured and counted as refused) when the budget cannot hold one;
 * hp_location_bind: starts its counters and time, its root Enter, makes it the thread's;
 * hp_location_open: events count from now on (a reused location was marked free). */
bool hp_location_pool_changing(void);
hp_location *hp_location_acquire(void);
void hp_location_bind(hp_location *loc);
void hp_location_open(hp_location *loc);

/* A thread's end, on that thread: hp_location_unbind stops its events (the thread
 * becomes unmeasured); hp_location_release closes its frames, stops its counters and
 * gives it to the free list (or leaves it ended). */
void hp_location_unbind(hp_location *loc);
void hp_location_release(hp_location *loc);

static inline bool hp_location_ignores_events(hp_location *loc)
{
    return atomic_load_explicit(&loc->busy, memory_order_relaxed) != 0;
}

/* Brackets every change a thread makes to its own location, so that a sampling signal
 * arriving meanwhile only counts itself. The signal fences keep the compiler from moving
 * the location's updates out of the bracket. */
static inline void hp_location_enter_core(hp_location *loc)
{
    loc->in_core = 1;
    atomic_signal_fence(memory_order_seq_cst);
}

static inline void hp_location_leave_core(hp_location *loc)
{
    atomic_signal_fence(memory_order_seq_cst);
    loc->in_core = 0;
}

/* Frames beyond the current chunk: moves to the next chunk (allocating it on first
 * use). Returns the frame to fill or NULL when the budget is used up. */
hp_frame *hp__location_stack_grow(hp_location *loc);
/* Called when sp reached the base of a chunk: moves back to the previous chunk, or, at
 * the bottom of the stack, switches measurement off again when only selected subtrees
 * are measured. */
void hp__location_stack_bottom(hp_location *loc);

/* Ends folded frame f (HP_PROFILING_RECURSION=collapse): one recursive call fewer open
 * in the outer call's node, which f keeps as its parent (cold). */
void hp__location_unfold(hp_location *loc, const hp_frame *f);

/* Sets loc's depth_limit from its subtree state and HP_PROFILING_MAX_DEPTH. */
void hp__location_update_limit(hp_location *loc);

/* True when loc's thread is in switched-off code (outside the selected subtrees, or below
 * an excluded region): samples then count to the current region without unwinding. */
static inline bool hp_location_switched_off(const hp_location *loc)
{
    return loc->outside_selected ||
           (loc->excluded_depth != 0 && loc->depth == loc->excluded_depth &&
            loc->dropped_depth > 0);
}

/* Accounts every open frame of loc as ending at `now` (exit from deep inside, thread
 * end, finalize) and records the end time; only the first call per location counts. It
 * reads the shadow stack without changing it, so it is safe while the location's
 * thread is still finishing an event. */
void hp_location_close(hp_location *loc, uint64_t now);

/* Stops measurement on every location (HP_BUSY_STOPPED) and returns the list head. */
hp_location *hp_location_stop_all(void);

/* All locations, in creation order of their ids (list head = newest). */
hp_location *hp_location_list(void);
uint32_t hp_location_count(void);

/* Names of the functions whose unmeasured calls locations count in call_counts (set
 * once by an adapter, e.g. the MPI function names), and their number. */
void hp_location_set_call_names(const char *const *names, size_t count);
const char *const *hp_location_call_names(size_t *count);

/* Threads that were not measured because the budget could not hold their location. */
uint64_t hp_location_refused_count(void);

/* Threads measured in all (more than the locations when locations are reused). */
uint64_t hp_location_thread_count(void);

/* Tells the calling thread, before its first event, which start routine it runs (the
 * pthread_create wrapper): a free location of the same routine is taken first. */
void hp_location_set_start_routine(uintptr_t routine);

/* The program root's inclusive time of loc at `now`: every thread's lifetime, the current
 * one until now unless it has ended. */
uint64_t hp_location_root_ticks(const hp_location *loc, uint64_t now);

/* Set up by measurement start-up: the program root region every tree hangs below, and
 * whether new locations record trace events. */
void hp_location_set_root_region(hp_region *root);

/* Frames deeper than max_depth get no call path of their own (0 = no limit). */
void hp_location_set_depth_limit(uint64_t max_depth);
/* Whether recursive calls fold into the outermost call (HP_PROFILING_RECURSION). */
void hp_location_set_collapse(bool on);
void hp_location_set_tracing(bool on);

/* Whether a thread that ends gives its location to the next thread that starts (true) or
 * keeps it, so that every thread is its own location (HP_THREAD_LOCATIONS). */
void hp_location_set_reuse(bool on);

#endif
