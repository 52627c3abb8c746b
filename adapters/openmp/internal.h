/*
 * The OpenMP adapter's private declarations: the regions of OpenMP constructs, named as
 * Score-P names them ("!$omp parallel @file.c:12"), and the team-thread side of a
 * parallel region (entering the forking thread's call path).
 */
#ifndef HP_ADAPTERS_OPENMP_INTERNAL_H
#define HP_ADAPTERS_OPENMP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "measurement/core/cct.h"
#include "measurement/core/location.h"
#include "measurement/runtime/thread_attach.h"
#include "measurement/core/region.h"
#include "util/compiler.h"

typedef enum hp_omp_kind {
    HP_OMP_PARALLEL,
    HP_OMP_BARRIER,
    HP_OMP_CRITICAL,
    HP_OMP_CRITICAL_SBLOCK,
    HP_OMP_IMPLICIT_BARRIER,
    HP_OMP_TASK,
    HP_OMP_TASKWAIT,
    HP_OMP_TASKGROUP,
    HP_OMP_KINDS
} hp_omp_kind;

/* The region of a construct of `kind` whose code is at `addr` (the outlined function of
 * a parallel region, the return address of a call into libgomp), defined on first sight
 * (cold: line table lookup, registry lock) and looked up without a lock afterwards.
 * Returns NULL when the budget is used up. */
hp_region *hp__omp_region(hp_location *loc, hp_omp_kind kind, uintptr_t addr);

/* The shadow-stack address of frames of `kind`: a tag that no function has, so that
 * the compiler adapter's exits never close them by mistake. */
uintptr_t hp__omp_frame_addr(hp_omp_kind kind);

/* The calling thread's location when it measures events, else NULL. */
static inline hp_location *hp__omp_location(void)
{
    hp_location *loc = hp_location_get();
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return NULL;
    return loc;
}

/* ---- parallel regions (omp_team.c) ---- */

/* What a team thread needs of the fork that started its team. */
typedef struct hp_omp_fork {
    hp_region *region;   /* "!$omp parallel @file:line" */
    uintptr_t code;      /* its outlined function */
    hp_location *forker; /* the thread that forked the team */
    hp_cct_node *path;   /* its current node then; NULL when it had none (budget) */
    uint64_t path_depth; /* > 0: the forker's depth with the frame of a path that sampling
                            unwound for the fork (hp_event_push_path), until fork_end */
} hp_omp_fork;

/* Fills f for a fork, from the calling thread, of the parallel region whose code is at
 * addr (its outlined function), by runtime (the address of the runtime's fork function).
 * False when the region is not measured: the caller then forks the outlined function
 * itself. */
bool hp__omp_fork_begin(hp_omp_fork *f, uintptr_t addr, uintptr_t runtime);

/* After the runtime's fork returned, in the forking thread, when fork_begin was true. */
void hp__omp_fork_end(const hp_omp_fork *f);

/* A team thread's state between entering the region and leaving it. */
typedef struct hp_omp_team {
    hp_location *loc; /* NULL: this thread does not measure */
    uint64_t depth;
    uint64_t dropped;
    unsigned runtime_calls; /* hp__tls_runtime_calls of the fork, cleared meanwhile: the
                               outlined function is the program's code */
} hp_omp_team;

/* In a team thread, before the outlined function: enters the forking thread's call path
 * (another thread) and the parallel region. */
void hp__omp_team_begin(hp_omp_team *t, const hp_omp_fork *f);

/* After the outlined function (and the implicit barrier): leaves them. */
void hp__omp_team_end(const hp_omp_team *t);

/* name in the runtime library soname, loaded on first use and kept in *handle, for when
 * the program was linked without it (hp_next_symbol's fallback); NULL when there is none. */
void *hp__omp_from_library(void **handle, const char *soname, const char *name);

/* The next definition of name (libgomp's, dlopen'ed when the program's link dropped it),
 * hp_next_symbol kept in *cache; NULL (said once) when there is none. */
void *hp__omp_next(void **cache, const char *name);

/* Declares `real`, the next definition of the function name of type `type`. */
#define HP_OMP_NEXT(type, name)                                                            \
    static void *name##_next;                                                            \
    type real = (type)hp__omp_next(&name##_next, #name)

/* Enters the region of construct `kind` at `addr`; false when it is not measured. */
bool hp__omp_enter(hp_location *loc, hp_omp_kind kind, uintptr_t addr);

/* Leaves the innermost frame of `kind`, if the calling thread measures. */
void hp__omp_leave(hp_omp_kind kind);

/* The same with the frame's address given: a function that stays on the stack while
 * the construct waits (the team trampoline, for the implicit barrier), below the tasks
 * the runtime runs meanwhile, so that a sample in such a task unwinds up to it and
 * shows the task below the region. */
bool hp__omp_enter_at(hp_location *loc, hp_omp_kind kind, uintptr_t addr, uintptr_t frame);
void hp__omp_leave_at(uintptr_t frame);

/* Closes every frame above `depth` (frames the code inside left open too) and forgets
 * enters dropped above `dropped` for want of budget. */
void hp__omp_leave_to(hp_location *loc, uint64_t depth, uint64_t dropped);

/* A call site is the return address minus one: the call instruction, on the pragma's
 * line (the return address itself may already be the next line's code). */
#define HP_OMP_CALL_SITE() ((uintptr_t)__builtin_return_address(0) - 1)

#endif
