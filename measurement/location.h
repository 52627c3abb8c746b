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
#include "trace_buffer.h"
#include "util/compiler.h"

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
    HP_BUSY_STOPPED = 1u << 1  /* measurement has ended for it */
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
    uint64_t depth_limit;       /* HP_PROFILING_MAX_DEPTH, UINT64_MAX = none */
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
    bool ended;                 /* its thread has exited */
    _Atomic int closed;         /* open frames accounted (once: thread end or finalize) */
    uint64_t start_time;
    uint64_t end_time;
    uint64_t mismatched_exits;  /* exits that did not match the innermost frame */
    uint64_t unmatched_exits;   /* exits of functions not on the stack at all */
    uint64_t dropped_visits;    /* visits lost because the budget was used up */
    uint64_t deep_visits;       /* visits below depth_limit, folded into the frame above */
    uint64_t *call_counts;      /* unmeasured calls per adapter function (MPI), or NULL */
    hp_stack_chunk *chunk;
    hp_arena arena;
    struct hp_location *next;   /* list of all locations */
} hp_location;

extern _Thread_local hp_location *hp__tls_location __attribute__((tls_model("initial-exec")));

/* The calling thread's location, created when this is its first event. NULL while
 * measurement is not running (before start-up, after finalize, disabled) or when the
 * budget is used up. */
hp_location *hp__location_attach(void);

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

static inline hp_location *hp_location_get(void)
{
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL))
        loc = hp__location_attach();
    return loc;
}

/* Frames beyond the current chunk: moves to the next chunk (allocating it on first
 * use). Returns the frame to fill or NULL when the budget is used up. */
hp_frame *hp__location_stack_grow(hp_location *loc);
/* Called when sp reached the base of a chunk that is not the first: moves back. */
void hp__location_stack_shrink(hp_location *loc);

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

/* Set up by measurement start-up: the program root region every tree hangs below, and
 * whether new locations record trace events. */
void hp_location_set_root_region(hp_region *root);

/* Frames deeper than max_depth get no call path of their own (0 = no limit). */
void hp_location_set_depth_limit(uint64_t max_depth);
void hp_location_set_tracing(bool on);

#endif
