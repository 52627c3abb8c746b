/*
 * Threads and sampling: a thread is sampled from its location's creation on, and a
 * location is normally created by the thread's first event. A program without function
 * hooks (hp-run, --nocompiler) gives its threads no events, so pthread_create is wrapped:
 * with sampling on, the new thread creates its location (and timer) before running the
 * start routine. Without sampling the wrapper only forwards the call, and threads that
 * the MPI library starts inside a measured MPI call (progress threads) are left alone.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "measurement/location.h"
#include "measurement/sampling.h"
#include "util/compiler.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

typedef struct thread_start {
    void *(*routine)(void *);
    void *arg;
} thread_start;

static void *start_sampled(void *p)
{
    thread_start start = *(thread_start *)p;
    free(p);
    hp_location_get();
    return start.routine(start.arg);
}

HP_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*routine)(void *), void *arg)
{
    static create_fn real_create;
    if (real_create == NULL)
        real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    hp_location *self = hp__tls_location;
    if (!hp_sampling_enabled() || (self != NULL && self->in_mpi))
        return real_create(thread, attr, routine, arg); /* threads of MPI itself: not ours */
    thread_start *start = malloc(sizeof(*start));
    if (start == NULL)
        return real_create(thread, attr, routine, arg);
    *start = (thread_start){ routine, arg };
    int rc = real_create(thread, attr, start_sampled, start);
    if (rc != 0)
        free(start);
    return rc;
}
