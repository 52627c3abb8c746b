/*
 * A thread's first event and its end (see thread_attach.h).
 *
 * The end is noticed through a pthread key destructor, which runs when the thread
 * exits: the thread stops taking events first, then its timer stops and hands back its
 * signal stack, then its location is closed and freed for the next thread.
 */
#include "thread_attach.h"

#include <pthread.h>

#include "runtime.h"
#include "measurement/sampling/sampling.h"

static pthread_key_t thread_end_key;
static pthread_once_t thread_end_once = PTHREAD_ONCE_INIT;

static void on_thread_end(void *arg)
{
    hp_location *loc = arg;
    hp_location_unbind(loc);
    hp_sampling_thread_end(loc);
    hp_location_release(loc);
}

static void create_thread_end_key(void)
{
    pthread_key_create(&thread_end_key, on_thread_end);
}

hp_location *hp__location_attach(void)
{
    if (hp_location_pool_changing() || !hp_runtime_ensure_started())
        return NULL;
    hp_location *loc = hp_location_acquire();
    if (loc == NULL)
        return NULL;
    hp_location_bind(loc);
    pthread_once(&thread_end_once, create_thread_end_key);
    pthread_setspecific(thread_end_key, loc);
    hp_sampling_thread_start(loc);
    hp_location_open(loc);
    return loc;
}

/* The library constructor: start measurement and create the master thread's location
 * before main runs, so that the master thread is location 0. */
__attribute__((constructor)) static void attach_main_thread(void)
{
    hp_location_get();
}
