/*
 * A thread joins the measurement at its first event and leaves it when it exits: the one
 * place that ties the runtime's start, the location pool (location.c), the thread's
 * counters and its sampling timer together, so that none of them needs the others.
 */
#ifndef HP_MEASUREMENT_THREAD_ATTACH_H
#define HP_MEASUREMENT_THREAD_ATTACH_H

#include "measurement/core/location.h"
#include "util/compiler.h"

/* Starts measurement if this is the process's first event, takes a location for the
 * calling thread and starts its timer. NULL while measurement is not running (before
 * start-up, after finalize, disabled) or when the budget is used up. */
hp_location *hp__location_attach(void);

/* The calling thread's location, attached when this is its first event. */
static inline hp_location *hp_location_get(void)
{
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL))
        loc = hp__location_attach();
    return loc;
}

#endif
