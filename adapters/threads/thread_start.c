/*
 * pthread_create, wrapped: the new thread learns its start routine before its first
 * event, so that it takes over a free location of the same kind of thread
 * (HP_THREAD_LOCATIONS=reuse, measurement/core/location.c). A program without function
 * hooks (hp-run, --nocompiler) gives its threads no events: with sampling on, the new
 * thread also creates its location (and timer) before running the start routine.
 * Threads that the MPI library starts inside a measured MPI call (progress threads) are
 * left alone.
 *
 * The creating thread's time in pthread_create and a joining thread's in pthread_join
 * are regions of their own ("pthread_create", "pthread_join", paradigm pthread, as in
 * Score-P), for the calls that the program makes. The calls that a runtime library
 * makes inside one of its own calls (libgomp's teams in GOMP_parallel, MPI's progress
 * and helper threads in MPI_Init, measured or not) are left out: the MPI and OpenMP
 * adapters count those calls in progress (hp_runtime_call_begin), and a count above
 * zero means "not the program's". Why a count and not the caller's address (dladdr of
 * the return address against the system's library folders): whatever interposes
 * pthread_create in front of us hides the caller. AddressSanitizer's runtime does, so
 * every call would come from libasan, and libstdc++ does for std::thread, so a C++
 * program's own threads would look like a system library's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "measurement/core/event.h"
#include "measurement/core/location.h"
#include "measurement/runtime/thread_attach.h"
#include "measurement/sampling/sampling.h"
#include "util/compiler.h"
#include "util/next_symbol.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

typedef struct thread_start {
    void *(*routine)(void *);
    void *arg;
} thread_start;

typedef int (*join_fn)(pthread_t, void **);

enum { CREATE, JOIN, CALLS };
static hp_region *regions[CALLS];
static pthread_once_t regions_once = PTHREAD_ONCE_INIT;

static void define_regions(void)
{
    regions[CREATE] = hp_region_define("pthread_create", "", -1, HP_PARADIGM_PTHREAD,
                                       "thread create");
    regions[JOIN] = hp_region_define("pthread_join", "", -1, HP_PARADIGM_PTHREAD,
                                     "thread wait");
}

/* A tag for the shadow stack that no function has, so that exits of functions never
 * close these frames by mistake. */
static const char frame_tag[CALLS];

/* Enters the region of call `which` in the calling thread; false when not measured: no
 * location, or a call made by a runtime library (see the top of this file). */
static bool call_enter(int which)
{
    hp_location *loc = hp__tls_location;
    if (loc == NULL || hp__tls_runtime_calls != 0 || hp_location_ignores_events(loc) ||
        loc->in_mpi)
        return false;
    int saved = errno;
    atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE); /* defining regions mallocs */
    pthread_once(&regions_once, define_regions);
    atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
    errno = saved;
    if (regions[which] == NULL)
        return false;
    hp_location_enter_core(loc);
    hp_event_enter(loc, regions[which], (uintptr_t)&frame_tag[which]);
    hp_location_leave_core(loc);
    return true;
}

static void call_leave(int which)
{
    hp_location *loc = hp__tls_location;
    if (loc == NULL || hp_location_ignores_events(loc))
        return;
    hp_location_enter_core(loc);
    hp_event_exit(loc, (uintptr_t)&frame_tag[which]);
    hp_location_leave_core(loc);
}

static void *start_measured(void *p)
{
    thread_start start = *(thread_start *)p;
    free(p);
    hp_location_set_start_routine((uintptr_t)start.routine);
    if (hp_sampling_enabled())
        hp_location_get();
    return start.routine(start.arg);
}

HP_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*routine)(void *), void *arg)
{
    HP_NEXT_SYMBOL(create_fn, real_create, pthread_create);
    hp_location *self = hp__tls_location;
    if (self != NULL && self->in_mpi)
        return real_create(thread, attr, routine, arg); /* threads of MPI itself: not ours */
    thread_start *start = malloc(sizeof(*start));
    if (start == NULL)
        return real_create(thread, attr, routine, arg);
    *start = (thread_start){ routine, arg };
    bool measured = call_enter(CREATE);
    int rc = real_create(thread, attr, start_measured, start);
    if (measured)
        call_leave(CREATE);
    if (rc != 0)
        free(start);
    return rc;
}

HP_API int pthread_join(pthread_t thread, void **retval)
{
    HP_NEXT_SYMBOL(join_fn, real_join, pthread_join);
    bool measured = call_enter(JOIN);
    int rc = real_join(thread, retval);
    if (measured)
        call_leave(JOIN);
    return rc;
}
