/*
 * What the measurement core hands down to the trace buffer (measurement/trace/), which
 * sits below it: the budget's pages, the timer and the trace's marker regions. The
 * buffer names none of them, so measurement/trace depends on util alone.
 */
#ifndef HP_MEASUREMENT_CORE_TRACE_PROVIDER_H
#define HP_MEASUREMENT_CORE_TRACE_PROVIDER_H

#include <stdint.h>

/* Sets up tracing for this process: defines the marker regions (TRACE BUFFER FLUSH,
 * TRACE EVENTS STOPPED, TRACE EVENTS DROPPED) and hands them, the budget's pages and the
 * timer to the trace buffer, whose chunk quota per location comes from the budget
 * (total_memory bytes). Returns 0 or -1 (a region could not be defined). */
int hp_trace_setup(uint64_t total_memory);

#endif
