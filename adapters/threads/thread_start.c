/*
 * pthread_create, wrapped: the new thread learns its start routine before its first
 * event, so that it takes over a free location of the same kind of thread
 * (HP_THREAD_LOCATIONS=reuse, measurement/core/location.c). A program without function
 * hooks (hp-run, --nocompiler) gives its threads no events: with sampling on, the new
 * thread also creates its location (and timer) before running the start routine.
 * Threads that the MPI library starts inside a measured MPI call (progress threads) are
 * left alone.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

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
    int rc = real_create(thread, attr, start_measured, start);
    if (rc != 0)
        free(start);
    return rc;
}
