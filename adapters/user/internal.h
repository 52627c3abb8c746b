/*
 * Private declarations of the user region adapter (include/hp/user.h is its public face).
 */
#ifndef HP_ADAPTERS_USER_INTERNAL_H
#define HP_ADAPTERS_USER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "measurement/core/event.h"

/* Every parameter frame carries this address, which no function or handle has, so the
 * end of a user region can tell the parameter frames above its own. */
extern const char hp__user_parameter_tag;
#define HP_USER_PARAMETER_FRAME ((uintptr_t)&hp__user_parameter_tag)

/* Closes the parameter frames on top of loc's stack that lie deeper than `above` frames
 * (the caller is inside the core). */
static inline void hp__user_close_parameters(hp_location *loc, uint64_t above, uint64_t now)
{
    while (loc->depth > above && loc->dropped_depth == 0 &&
           loc->sp[-1].addr == HP_USER_PARAMETER_FRAME)
        hp_event_pop(loc, now);
}

#endif
