/*
 * OpenMP tasks with GCC's libgomp: "!$omp task @file:line" around each task's body, in
 * the thread that runs it and below whatever that thread is in at the time (the region
 * that created the task, a barrier, a taskwait); "!$omp taskwait" and "!$omp taskgroup"
 * are the time waiting in GOMP_taskwait and at the end of a taskgroup.
 *
 * GOMP_task keeps its own copy of the task's data (memcpy of arg_size bytes, or the
 * compiler's copy function cpyfn for firstprivate C++ objects) and later calls fn with
 * nothing but that copy. So the wrapper hands libgomp a longer block: a header naming
 * the real task function and the region, then, at an offset aligned as the data asks,
 * the task's data. run_task finds the header at the start of the copy and calls the
 * real function on the data behind it. Without cpyfn the block is assembled on our
 * stack and copied by libgomp as before; with cpyfn, copy_task writes the header and
 * calls cpyfn for the rest (the original data is only read by it, in GOMP_task).
 *
 * Tasks whose data is larger than STACK_COPY without a copy function, are aligned
 * beyond MAX_ALIGN, or carry flags that give the data another meaning (detach writes
 * the event handle into it) are handed over unchanged: their body is measured as code
 * of the thread that runs it, without a task region. The task is never changed in what
 * it does or when it runs: the copy function runs exactly when libgomp runs it, and a
 * task without one still has none (libgomp drops cancelled tasks only then).
 */
#include <stdalign.h>
#include <string.h>

#include "adapters/openmp/internal.h"
#include "measurement/core/event.h"

typedef void (*task_fn)(void *);
typedef void (*copy_fn)(void *, void *);
typedef void (*gomp_task_fn)(task_fn, void *, copy_fn, long, long, bool, unsigned, void **,
                             int, void *);

/* What precedes the task's data in libgomp's copy. */
typedef struct task_header {
    task_fn fn;
    hp_region *region; /* "!$omp task @file:line" */
    long offset;       /* of the task's data from the header */
} task_header;

/* The arguments copy_task needs: one GOMP_task call's data and copy function. */
typedef struct task_copy {
    task_header header;
    void *data;
    copy_fn cpyfn;
} task_copy;

enum {
    STACK_COPY = 1024, /* bytes of header and data that we assemble on the stack */
    MAX_ALIGN = 64,
    /* the flags that leave the data alone (gomp-constants.h): untied, final, mergeable,
       depend, priority */
    KNOWN_FLAGS = 0x1f,
};

/* What libgomp runs in place of the task function. */
static void run_task(void *arg)
{
    const task_header *h = arg;
    task_fn fn = h->fn;
    void *data = (char *)arg + h->offset;
    hp_location *loc = hp__omp_location();
    if (loc == NULL) {
        fn(data);
        return;
    }
    uint64_t depth = loc->depth, dropped = loc->dropped_depth;
    hp_location_enter_core(loc);
    /* the task function's address, as for a parallel region (omp_team.c): a sample in
       the task stops there */
    hp_event_enter(loc, h->region, (uintptr_t)fn);
    hp_location_leave_core(loc);
    fn(data);
    if (hp_location_ignores_events(loc))
        return; /* measurement ended meanwhile: finalize closed the frames */
    hp_location_enter_core(loc);
    hp__omp_leave_to(loc, depth, dropped);
    hp_location_leave_core(loc);
}

/* The copy function libgomp calls with its block (dst) and our task_copy (src). */
static void copy_task(void *dst, void *src)
{
    const task_copy *c = src;
    memcpy(dst, &c->header, sizeof(c->header));
    c->cpyfn((char *)dst + c->header.offset, c->data);
}

/* A task run at once, when there is no libgomp behind us. */
static void run_here(task_fn fn, void *data, copy_fn cpyfn, long arg_size, long arg_align)
{
    if (cpyfn == NULL) {
        fn(data);
        return;
    }
    char buf[arg_size + arg_align];
    char *arg = (char *)(((uintptr_t)buf + arg_align - 1) & ~(uintptr_t)(arg_align - 1));
    cpyfn(arg, data);
    fn(arg);
}

/* Signature of GCC 11 and later (earlier ones lack detach, or priority too: the extra
 * arguments are then ignored). */
HP_API void GOMP_task(task_fn fn, void *data, copy_fn cpyfn, long arg_size, long arg_align,
                      bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach);
HP_API void GOMP_taskwait(void);
HP_API void GOMP_taskgroup_end(void);

void GOMP_task(task_fn fn, void *data, copy_fn cpyfn, long arg_size, long arg_align,
               bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    HP_OMP_NEXT(gomp_task_fn, GOMP_task);
    if (unlikely(real == NULL)) {
        run_here(fn, data, cpyfn, arg_size, arg_align);
        return;
    }
    hp_location *loc = hp__omp_location();
    hp_region *r = NULL;
    if (loc != NULL && (flags & ~(unsigned)KNOWN_FLAGS) == 0 && arg_align <= MAX_ALIGN)
        r = hp__omp_region(loc, HP_OMP_TASK, (uintptr_t)fn);
    long align = arg_align > (long)alignof(task_header) ? arg_align : (long)alignof(task_header);
    long offset = ((long)sizeof(task_header) + align - 1) & ~(align - 1);
    if (r != NULL && cpyfn != NULL) {
        task_copy c = { { fn, r, offset }, data, cpyfn };
        real(run_task, &c, copy_task, offset + arg_size, align, if_clause, flags, depend,
             priority, detach);
    } else if (r != NULL && offset + arg_size <= STACK_COPY) {
        alignas(MAX_ALIGN) char block[STACK_COPY];
        task_header h = { fn, r, offset };
        memcpy(block, &h, sizeof(h));
        if (arg_size > 0)
            memcpy(block + offset, data, (size_t)arg_size);
        real(run_task, block, NULL, offset + arg_size, align, if_clause, flags, depend,
             priority, detach);
    } else {
        real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
             detach);
    }
}

typedef void (*void_fn)(void);

/* Time waiting for tasks: in GOMP_taskwait and at the end of a taskgroup. The tasks a
 * thread runs while it waits appear inside. */
static void task_wait(void_fn real, hp_omp_kind kind, uintptr_t site)
{
    bool measured = hp__omp_enter(hp__omp_location(), kind, site);
    if (likely(real != NULL))
        real();
    if (measured)
        hp__omp_leave(kind);
}

void GOMP_taskwait(void)
{
    HP_OMP_NEXT(void_fn, GOMP_taskwait);
    task_wait(real, HP_OMP_TASKWAIT, HP_OMP_CALL_SITE());
}

void GOMP_taskgroup_end(void)
{
    HP_OMP_NEXT(void_fn, GOMP_taskgroup_end);
    task_wait(real, HP_OMP_TASKGROUP, HP_OMP_CALL_SITE());
}
