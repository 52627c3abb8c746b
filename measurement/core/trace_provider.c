/*
 * The core's side of the trace buffer's setup (trace_provider.h): the trace buffer
 * (measurement/trace/) sits below the core and may not call into it, so at setup the
 * core provides what the buffer needs from it in an hp_trace_provider: pages of the
 * measurement budget for its chunks, the timer for a flush's span, and the ids of the
 * marker regions it records (defined here, once per process).
 */
#include "trace_provider.h"

#include "measurement/trace/trace_buffer.h"
#include "memory.h"
#include "region.h"
#include "timer.h"

_Static_assert(HP_TRACE_PAGE_SIZE == HP_PAGE_SIZE, "a trace chunk is one budget page");

static uint64_t timer_now(void)
{
    return hp_timer_now();
}

static uint32_t define_marker(const char *name)
{
    hp_region *r = hp_region_define(name, "", -1, HP_PARADIGM_USER, HP_ROLE_ARTIFICIAL);
    return r != NULL ? r->id : UINT32_MAX;
}

int hp_trace_setup(uint64_t total_memory)
{
    hp_trace_provider provider = { hp_memory_pages, timer_now, { 0 } };
    provider.markers[HP_TRACE_MARKER_FLUSH] = define_marker("TRACE BUFFER FLUSH");
    provider.markers[HP_TRACE_MARKER_STOPPED] = define_marker("TRACE EVENTS STOPPED");
    provider.markers[HP_TRACE_MARKER_DROPPED] = define_marker("TRACE EVENTS DROPPED");
    hp_trace_buffer_setup(total_memory, &provider);
    for (unsigned k = 0; k < HP_TRACE_MARKERS; k++)
        if (provider.markers[k] == UINT32_MAX)
            return -1;
    return 0;
}
