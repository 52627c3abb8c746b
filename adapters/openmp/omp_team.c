/*
 * The team-thread side of a parallel region, the same for libgomp (omp_gomp.c) and
 * LLVM's libomp (omp_kmp.c): the fork wrapper records the forking thread's location
 * and current call-tree node, and every team thread, in the trampoline that the runtime
 * runs in place of the outlined function, enters the forking thread's call path as
 * frames without visits (so the worker's work appears under the call path that started
 * it, and the path's inclusive time in the worker is its time in the region), then the
 * region "!$omp parallel @file:line" with a visit. The forking thread itself, which runs
 * the outlined function as thread 0 of the team, already is on that path: it only
 * enters the region. The record outlives every use, because the runtime returns from
 * the fork only after every team thread finished the outlined function.
 */
#include <dlfcn.h>
#include <errno.h>

#include "adapters/openmp/internal.h"
#include "measurement/core/event.h"
#include "measurement/sampling/sampling.h"
#include "measurement/sampling/unwind.h"

/* name in the runtime library soname, loaded on first use and kept in *handle, when the
 * program was linked without it: its only references to the runtime were calls that we
 * define, so a link with --as-needed (Debian's default) dropped the library, and the
 * program would run its parallel regions with one thread. */
HP_COLD void *hp__omp_from_library(void **handle, const char *soname, const char *name)
{
    void *h = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
    if (h == NULL) {
        int saved = errno;
        hp_location *loc = hp__tls_location;
        if (loc != NULL) /* dlopen mallocs and runs the runtime's constructor */
            atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE);
        h = dlopen(soname, RTLD_NOW | RTLD_GLOBAL);
        if (loc != NULL)
            atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
        errno = saved;
        if (h == NULL)
            return NULL;
        __atomic_store_n(handle, h, __ATOMIC_RELEASE);
    }
    return dlsym(h, name);
}

/* Pushes a frame of r; a frame without a visit stands for a call path entered on
 * behalf of another thread. A region that sampling found on that path gets its name and
 * number first: its frame is then like a measured one (trace events need the number). */
static void enter_frame(hp_location *loc, hp_region *r, uintptr_t addr, bool visit)
{
    if (unlikely(__atomic_load_n(&r->id, __ATOMIC_RELAXED) == UINT32_MAX)) {
        atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE); /* symbolizing mallocs */
        hp_region_name_sampled(r);
        atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
    }
    uint64_t depth = loc->depth;
    hp_event_enter(loc, r, addr);
    if (!visit && loc->depth > depth && loc->current != NULL)
        loc->current->visits--;
}

enum { PATH_CHUNK = 32 };

/* Enters the regions from the root's child down to node, outermost first. The path is
 * read in chunks from the innermost end; a path deeper than a chunk recurses once per
 * chunk, so any depth works with a small stack. The forking thread's nodes are only
 * read: a node's region and parent never change after it was created, before the fork. */
static void enter_path(hp_location *loc, const hp_cct_node *node)
{
    hp_region *chunk[PATH_CHUNK];
    int n = 0;
    for (; node != NULL && node->parent != NULL && n < PATH_CHUNK; node = node->parent)
        chunk[n++] = node->region;
    if (node != NULL && node->parent != NULL)
        enter_path(loc, node);
    while (n > 0)
        enter_frame(loc, chunk[--n], hp__omp_frame_addr(HP_OMP_PARALLEL), false);
}

void hp__omp_leave_to(hp_location *loc, uint64_t depth, uint64_t dropped)
{
    uint64_t now = hp_timer_now();
    while (loc->depth > depth)
        hp_event_pop(loc, now);
    /* after the pops: leaving a selected subtree (HP_SELECT_SUBTREES) restores the enters
       switched off outside it, which include the forking path's */
    if (loc->dropped_depth > dropped)
        loc->dropped_depth = dropped;
}

/* With sampling, the functions between the innermost measured frame and the fork (all
 * of them under hp-run and --nocompiler, filtered ones otherwise) are unwound, as for an
 * MPI call, so that the region sits where the program forked it in every team thread.
 * The forking thread keeps that path open with a frame of its own until the fork ends. */
static void unwind_fork_path(hp_location *loc, hp_omp_fork *f)
{
    hp_location_enter_core(loc);
    uintptr_t innermost;
    hp_cct_node *leaf = hp_sampling_unwind_path(loc, &innermost);
    if (leaf != NULL && leaf != loc->current) {
        hp_sampling_fork_begin(loc, leaf); /* the time before the fork */
        if (hp_event_push_path(loc, leaf, innermost)) {
            f->path = leaf;
            f->path_depth = loc->depth;
        }
    }
    hp_location_leave_core(loc);
}

/* With sampling, the runtime's own frames (its thread start, fork, barrier and task
 * code, stripped of symbols in distributions) are left out of unwinds, as ours are: a
 * sample in them goes to the innermost region (a barrier) or the program's nearest frame
 * (a task run inside the barrier). Once per runtime. */
static void hide_runtime(uintptr_t runtime)
{
    static _Atomic uintptr_t hidden;
    if (atomic_load_explicit(&hidden, memory_order_relaxed) == runtime)
        return;
    hp_unwind_hide_object((const void *)runtime);
    atomic_store_explicit(&hidden, runtime, memory_order_relaxed);
}

bool hp__omp_fork_begin(hp_omp_fork *f, uintptr_t addr, uintptr_t runtime)
{
    hp_location *loc = hp__omp_location();
    if (loc == NULL)
        return false;
    hp_region *r = hp__omp_region(loc, HP_OMP_PARALLEL, addr);
    if (r == NULL)
        return false;
    *f = (hp_omp_fork){ .region = r, .code = addr, .forker = loc, .path = loc->current };
    if (unlikely(loc->sampling != NULL)) {
        hide_runtime(runtime);
        /* inside an excluded subtree (HP_EXCLUDE_SUBTREES) nothing is shown below it:
           the team threads drop the region there too */
        if (loc->current != NULL && !hp_location_switched_off(loc) && loc->excluded_depth == 0)
            unwind_fork_path(loc, f);
    }
    return true;
}

void hp__omp_fork_end(const hp_omp_fork *f)
{
    hp_location *loc = f->forker;
    if (likely(f->path_depth == 0) || hp_location_ignores_events(loc))
        return;
    hp_location_enter_core(loc);
    if (loc->depth >= f->path_depth) { /* else the frame was closed for us (finalize) */
        hp__omp_leave_to(loc, f->path_depth, loc->dropped_depth);
        hp_event_pop_path(loc, hp_timer_now());
        hp_sampling_fork_end(loc);
    }
    hp_location_leave_core(loc);
}

void hp__omp_team_begin(hp_omp_team *t, const hp_omp_fork *f)
{
    t->runtime_calls = hp__tls_runtime_calls;
    hp__tls_runtime_calls = 0;
    t->loc = hp__omp_location();
    if (t->loc == NULL)
        return;
    hp_location *loc = t->loc;
    t->depth = loc->depth;
    t->dropped = loc->dropped_depth;
    hp_location_enter_core(loc);
    if (loc != f->forker) {
        /* The forker's nodes as they are: a recursion on them was folded there already
           (hooks) or is sampled, which does not fold; folding it again here would hang
           the region elsewhere than in the forker (HP_PROFILING_RECURSION=collapse). */
        bool collapse = loc->collapse;
        loc->collapse = false;
        enter_path(loc, f->path);
        loc->collapse = collapse;
    }
    /* the outlined function's address: a sample below it stops there (the region is that
       function), and no exit hook has it (outlined functions are not measured) */
    hp_event_enter(loc, f->region, f->code);
    hp_location_leave_core(loc);
}

void hp__omp_team_end(const hp_omp_team *t)
{
    hp_location *loc = t->loc;
    /* else measurement ended meanwhile: finalize closed the frames */
    if (loc != NULL && !hp_location_ignores_events(loc)) {
        hp_location_enter_core(loc);
        hp__omp_leave_to(loc, t->depth, t->dropped);
        hp_location_leave_core(loc);
    }
    hp__tls_runtime_calls = t->runtime_calls;
}
