/*
 * OpenMP with GCC's libgomp: the fork points and synchronization calls that GCC emits
 * for OpenMP constructs, interposed (libhpmeasure comes before libgomp in the program's
 * link and in hp-run's preload) and forwarded to the next definition, found with
 * dlsym(RTLD_NEXT) on first use, so a program without OpenMP never looks for libgomp.
 *
 * A parallel region: the wrapper records the forking thread's location and current
 * call-tree node on its own stack and hands libgomp a trampoline in place of the
 * outlined function. In each team thread the trampoline enters the forking thread's
 * call path as frames without visits (so the worker's work appears under the call path
 * that started it, and the path's inclusive time in the worker is its time in the
 * region), then the region "!$omp parallel @file:line" with a visit, runs the outlined
 * function, waits for the team in "!$omp implicit barrier @file:line" (a barrier of
 * ours, so that the wait and the tasks run in it are measured inside the region), and
 * leaves them all. The forking thread itself, which runs the outlined
 * function as thread 0 of the team, already is on that path: it only enters the
 * region. The record outlives every use, because libgomp returns from GOMP_parallel
 * only after every team thread finished the outlined function.
 *
 * Barriers and critical sections are regions entered and left around the real calls:
 * "!$omp barrier" is the time in GOMP_barrier; "!$omp critical" lasts from asking for
 * the lock to releasing it, and "!$omp critical sblock" inside it is the protected
 * code, as in Score-P. The end barriers of worksharing loops and sections (in
 * GOMP_loop_end, GOMP_sections_end) are "!$omp implicit barrier". Tasks: omp_tasks.c.
 *
 * Per event this does what the compiler adapter does: no locks, no allocation, no
 * system calls but the clock; the first sight of an outlined function or call site
 * defines its region (omp_regions.c, cold). The team-thread side is omp_team.c.
 */
#include <stdbool.h>

#include "adapters/openmp/internal.h"
#include "measurement/core/event.h"
#include "util/compiler.h"
#include "util/next_symbol.h"

typedef void (*outlined_fn)(void *);

typedef struct fork_record {
    outlined_fn fn;
    void *data;
    hp_omp_fork fork;
} fork_record;

static HP_COLD void *from_libgomp(const char *name)
{
    static void *libgomp;
    return hp__omp_from_library(&libgomp, "libgomp.so.1", name);
}

void *hp__omp_next(void **cache, const char *name)
{
    return hp_next_symbol(cache, name, from_libgomp);
}

typedef void (*void_fn)(void);

/* The barrier at the end of a parallel region, made explicit so that it can be measured:
 * libgomp's own, after the outlined function returned, finds the team already there.
 * Every thread of the team calls it, whether it measures or not, so none waits alone.
 * Tasks still pending run in it, and so appear inside the region. */
static void implicit_barrier(hp_location *loc, uintptr_t fn, uintptr_t trampoline)
{
    HP_OMP_NEXT(void_fn, GOMP_barrier);
    bool measured = loc != NULL && !hp_location_ignores_events(loc) &&
                    hp__omp_enter_at(loc, HP_OMP_IMPLICIT_BARRIER, fn, trampoline);
    if (likely(real != NULL))
        real();
    if (measured)
        hp__omp_leave_at(trampoline);
}

/* What libgomp runs in every team thread in place of the outlined function. */
static void team_thread(void *arg)
{
    const fork_record *rec = arg;
    hp_omp_team team;
    hp__omp_team_begin(&team, &rec->fork);
    rec->fn(rec->data);
    implicit_barrier(team.loc, (uintptr_t)rec->fn, (uintptr_t)team_thread);
    hp__omp_team_end(&team);
}

/* Fills rec for a fork of fn from the calling thread, by libgomp's entry point real.
 * False when the region is not measured: the caller then forks the outlined function
 * itself. */
static bool fork_begin(fork_record *rec, outlined_fn fn, void *data, uintptr_t real)
{
    rec->fn = fn;
    rec->data = data;
    return hp__omp_fork_begin(&rec->fork, (uintptr_t)fn, real);
}

/* ---- fork points ------------------------------------------------------------------ */

/* Signatures as in GCC's libgomp (libgomp_g.h), GCC 4.9 and later. */
HP_API void GOMP_parallel(outlined_fn fn, void *data, unsigned num_threads, unsigned flags);
HP_API void GOMP_parallel_sections(outlined_fn fn, void *data, unsigned num_threads,
                                   unsigned count, unsigned flags);

typedef void (*parallel_fn)(outlined_fn, void *, unsigned, unsigned);
typedef void (*sections_fn)(outlined_fn, void *, unsigned, unsigned, unsigned);
typedef void (*loop_fn)(outlined_fn, void *, unsigned, long, long, long, long, unsigned);
typedef void (*loop_runtime_fn)(outlined_fn, void *, unsigned, long, long, long, unsigned);

void GOMP_parallel(outlined_fn fn, void *data, unsigned num_threads, unsigned flags)
{
    HP_OMP_NEXT(parallel_fn, GOMP_parallel);
    if (unlikely(real == NULL)) {
        fn(data); /* no libgomp behind us: a team of one is still correct */
        return;
    }
    fork_record rec;
    hp_runtime_call_begin(); /* the threads libgomp creates and joins are its own */
    if (fork_begin(&rec, fn, data, (uintptr_t)real)) {
        real(team_thread, &rec, num_threads, flags);
        hp__omp_fork_end(&rec.fork);
    } else {
        real(fn, data, num_threads, flags);
    }
    hp_runtime_call_end();
}

void GOMP_parallel_sections(outlined_fn fn, void *data, unsigned num_threads, unsigned count,
                            unsigned flags)
{
    HP_OMP_NEXT(sections_fn, GOMP_parallel_sections);
    if (unlikely(real == NULL)) {
        fn(data);
        return;
    }
    fork_record rec;
    hp_runtime_call_begin(); /* the threads libgomp creates and joins are its own */
    if (fork_begin(&rec, fn, data, (uintptr_t)real)) {
        real(team_thread, &rec, num_threads, count, flags);
        hp__omp_fork_end(&rec.fork);
    } else {
        real(fn, data, num_threads, count, flags);
    }
    hp_runtime_call_end();
}

/* `parallel for` with a schedule other than plain static: one wrapper per entry point. */
#define PARALLEL_LOOP(name)                                                                \
    HP_API void name(outlined_fn fn, void *data, unsigned num_threads, long start, long end, \
                     long incr, long chunk, unsigned flags);                               \
    void name(outlined_fn fn, void *data, unsigned num_threads, long start, long end,       \
              long incr, long chunk, unsigned flags)                                       \
    {                                                                                      \
        HP_OMP_NEXT(loop_fn, name);                                                               \
        if (unlikely(real == NULL)) {                                                      \
            fn(data); /* unreachable in practice: the loop needs libgomp's schedule */     \
            return;                                                                        \
        }                                                                                  \
        fork_record rec;                                                                   \
        hp_runtime_call_begin(); /* the threads libgomp creates and joins are its own */   \
        if (fork_begin(&rec, fn, data, (uintptr_t)real)) {                                 \
            real(team_thread, &rec, num_threads, start, end, incr, chunk, flags);          \
            hp__omp_fork_end(&rec.fork);                                                   \
        } else {                                                                           \
            real(fn, data, num_threads, start, end, incr, chunk, flags);                   \
        }                                                                                  \
        hp_runtime_call_end();                                                             \
    }

#define PARALLEL_LOOP_RUNTIME(name)                                                        \
    HP_API void name(outlined_fn fn, void *data, unsigned num_threads, long start, long end, \
                     long incr, unsigned flags);                                           \
    void name(outlined_fn fn, void *data, unsigned num_threads, long start, long end,       \
              long incr, unsigned flags)                                                   \
    {                                                                                      \
        HP_OMP_NEXT(loop_runtime_fn, name);                                                       \
        if (unlikely(real == NULL)) {                                                      \
            fn(data);                                                                      \
            return;                                                                        \
        }                                                                                  \
        fork_record rec;                                                                   \
        hp_runtime_call_begin(); /* the threads libgomp creates and joins are its own */   \
        if (fork_begin(&rec, fn, data, (uintptr_t)real)) {                                 \
            real(team_thread, &rec, num_threads, start, end, incr, flags);                 \
            hp__omp_fork_end(&rec.fork);                                                   \
        } else {                                                                           \
            real(fn, data, num_threads, start, end, incr, flags);                          \
        }                                                                                  \
        hp_runtime_call_end();                                                             \
    }

PARALLEL_LOOP(GOMP_parallel_loop_static)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_guided)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ---- synchronization -------------------------------------------------------------- */

bool hp__omp_enter_at(hp_location *loc, hp_omp_kind kind, uintptr_t addr, uintptr_t frame)
{
    if (loc == NULL)
        return false;
    hp_region *r = hp__omp_region(loc, kind, addr);
    if (unlikely(r == NULL))
        return false;
    hp_location_enter_core(loc);
    hp_event_enter(loc, r, frame);
    hp_location_leave_core(loc);
    return true;
}

void hp__omp_leave_at(uintptr_t frame)
{
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return;
    hp_location_enter_core(loc);
    hp_event_exit(loc, frame);
    hp_location_leave_core(loc);
}

bool hp__omp_enter(hp_location *loc, hp_omp_kind kind, uintptr_t addr)
{
    return hp__omp_enter_at(loc, kind, addr, hp__omp_frame_addr(kind));
}

void hp__omp_leave(hp_omp_kind kind)
{
    hp__omp_leave_at(hp__omp_frame_addr(kind));
}


typedef void (*name_fn)(void **);

HP_API void GOMP_barrier(void);
HP_API void GOMP_critical_start(void);
HP_API void GOMP_critical_end(void);
HP_API void GOMP_critical_name_start(void **pptr);
HP_API void GOMP_critical_name_end(void **pptr);

void GOMP_barrier(void)
{
    HP_OMP_NEXT(void_fn, GOMP_barrier);
    bool measured = hp__omp_enter(hp__omp_location(), HP_OMP_BARRIER, HP_OMP_CALL_SITE());
    if (likely(real != NULL))
        real();
    if (measured)
        hp__omp_leave(HP_OMP_BARRIER);
}

/* The barrier at the end of a worksharing loop or sections construct without nowait,
 * which libgomp waits for inside GOMP_loop_end and GOMP_sections_end. (A static loop's
 * and single's end barrier is a plain GOMP_barrier call: "!$omp barrier".) */
static void worksharing_end(void_fn real, uintptr_t site)
{
    bool measured = hp__omp_enter(hp__omp_location(), HP_OMP_IMPLICIT_BARRIER, site);
    if (likely(real != NULL))
        real();
    if (measured)
        hp__omp_leave(HP_OMP_IMPLICIT_BARRIER);
}

HP_API void GOMP_loop_end(void);
HP_API void GOMP_sections_end(void);

void GOMP_loop_end(void)
{
    HP_OMP_NEXT(void_fn, GOMP_loop_end);
    worksharing_end(real, HP_OMP_CALL_SITE());
}

void GOMP_sections_end(void)
{
    HP_OMP_NEXT(void_fn, GOMP_sections_end);
    worksharing_end(real, HP_OMP_CALL_SITE());
}

/* A critical section: "!$omp critical" from asking for the lock to releasing it, with
 * "!$omp critical sblock" (the protected code) inside. The end only leaves frames: one
 * that is not there (measurement started inside the section, or its region could not
 * be defined for want of budget) is counted by the core and otherwise ignored. */
void GOMP_critical_start(void)
{
    HP_OMP_NEXT(void_fn, GOMP_critical_start);
    hp_location *loc = hp__omp_location();
    uintptr_t site = HP_OMP_CALL_SITE();
    bool measured = hp__omp_enter(loc, HP_OMP_CRITICAL, site);
    if (likely(real != NULL))
        real();
    if (measured)
        hp__omp_enter(loc, HP_OMP_CRITICAL_SBLOCK, site);
}

void GOMP_critical_name_start(void **pptr)
{
    HP_OMP_NEXT(name_fn, GOMP_critical_name_start);
    hp_location *loc = hp__omp_location();
    uintptr_t site = HP_OMP_CALL_SITE();
    bool measured = hp__omp_enter(loc, HP_OMP_CRITICAL, site);
    if (likely(real != NULL))
        real(pptr);
    if (measured)
        hp__omp_enter(loc, HP_OMP_CRITICAL_SBLOCK, site);
}

void GOMP_critical_end(void)
{
    HP_OMP_NEXT(void_fn, GOMP_critical_end);
    hp__omp_leave(HP_OMP_CRITICAL_SBLOCK);
    if (likely(real != NULL))
        real();
    hp__omp_leave(HP_OMP_CRITICAL);
}

void GOMP_critical_name_end(void **pptr)
{
    HP_OMP_NEXT(name_fn, GOMP_critical_name_end);
    hp__omp_leave(HP_OMP_CRITICAL_SBLOCK);
    if (likely(real != NULL))
        real(pptr);
    hp__omp_leave(HP_OMP_CRITICAL);
}
