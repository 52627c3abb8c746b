/*
 * Entering and leaving MPI functions: the core side of every generated wrapper.
 *
 * Each MPI function is one region (paradigm mpi, Score-P's role), defined on its first
 * measured call and then found in an array indexed by the function id, so a measured
 * call costs an array load, the call-tree step and two timestamps. A call that is not
 * selected (HP_MPI_ENABLE_GROUPS, HP_MPI_EXCLUDE) only increments a per-thread counter.
 * Calls made from inside another measured MPI call (MPI implementations and tools
 * calling MPI) are neither measured nor counted.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "adapters/mpi/mpi_adapter.h"
#include "measurement/config.h"
#include "measurement/event.h"
#include "measurement/location.h"
#include "measurement/memory.h"
#include "measurement/region.h"
#include "measurement/runtime.h"
#include "util/compiler.h"

static _Atomic(hp_region *) *mpi_regions; /* one per function, NULL until first use */
static pthread_mutex_t define_lock = PTHREAD_MUTEX_INITIALIZER;

static HP_COLD hp_region *define_region(unsigned fn)
{
    pthread_mutex_lock(&define_lock);
    hp_region *r = atomic_load(&mpi_regions[fn]);
    if (r == NULL) {
        r = hp_region_define(hp_mpi_functions[fn].name, "", -1, HP_PARADIGM_MPI,
                             hp_mpi_functions[fn].role);
        atomic_store_explicit(&mpi_regions[fn], r, memory_order_release);
    }
    pthread_mutex_unlock(&define_lock);
    return r;
}

static inline hp_region *region_of(unsigned fn)
{
    hp_region *r = atomic_load_explicit(&mpi_regions[fn], memory_order_acquire);
    return likely(r != NULL) ? r : define_region(fn);
}

static HP_COLD uint64_t *allocate_call_counts(hp_location *loc)
{
    loc->call_counts = hp_arena_alloc(&loc->arena, hp_mpi_function_count * sizeof(uint64_t));
    return loc->call_counts;
}

/* Unmeasured calls are frequent by design (excluded because they are): keep this path
 * short and out of the cold section. */
static inline void count_unmeasured(hp_location *loc, unsigned fn)
{
    uint64_t *counts = loc->call_counts;
    if (counts != NULL || (counts = allocate_call_counts(loc)) != NULL)
        counts[fn]++;
}

int hp_mpi_enter(hp_mpi_frame *f, unsigned fn)
{
    f->loc = NULL;
    hp_location *loc = hp_location_get();
    if (unlikely(loc == NULL || hp_location_ignores_events(loc) || loc->in_mpi ||
                 mpi_regions == NULL))
        return 0;
    if (!hp_mpi_measured[fn]) {
        count_unmeasured(loc, fn);
        return 0;
    }
    hp_region *r = region_of(fn);
    if (unlikely(r == NULL))
        return 0;
    loc->in_mpi = true;
    *f = (hp_mpi_frame){ loc, fn, 0, 0, 0, 0 };
    hp_event_enter(loc, r, (uintptr_t)r);
    return 1;
}

void hp_mpi_exit(hp_mpi_frame *f)
{
    uint64_t now = hp_timer_now();
    hp_location *loc = f->loc;
    if (loc == NULL)
        return;
    loc->in_mpi = false;
    if (unlikely(hp_location_ignores_events(loc)))
        return;
    uintptr_t addr = (uintptr_t)atomic_load_explicit(&mpi_regions[f->fn],
                                                     memory_order_relaxed);
    if (unlikely(!hp_event_exit_matches(loc, addr))) {
        hp__event_exit_mismatch(loc, addr, now);
        return;
    }
    hp_cct_node *node = loc->sp[-1].node;
    if (likely(node != NULL)) {
        node->bytes_sent += f->bytes_sent;
        node->bytes_received += f->bytes_received;
        node->messages_sent += f->messages_sent;
        node->messages_received += f->messages_received;
    }
    hp_event_pop(loc, now);
}

/* Reads the MPI selection at start-up (starting measurement first if the runtime's own
 * constructor has not run yet): a bad group or function name stops the program before
 * main, like every other bad HP_* value. */
__attribute__((constructor)) static void mpi_setup(void)
{
    if (!hp_runtime_ensure_started())
        return;
#ifdef HP_MPI_PRELOAD
    hp_runtime_require_mpi();
#endif
    char err[1024];
    if (hp_mpi_selection_init(hp_cfg.mpi_enable_groups, hp_cfg.mpi_exclude, err,
                              sizeof(err)) < 0)
        hp_runtime_stop_on_bad_input("invalid configuration", err);
    const char **names = hp_memory_pages(hp_mpi_function_count * sizeof(char *));
    void *regions = hp_memory_pages(hp_mpi_function_count * sizeof(hp_region *));
    if (names == NULL || regions == NULL)
        return; /* budget too small for MPI: calls go unmeasured */
    for (unsigned i = 0; i < hp_mpi_function_count; i++)
        names[i] = hp_mpi_functions[i].name;
    hp_location_set_call_names(names, hp_mpi_function_count);
    mpi_regions = regions;
}
