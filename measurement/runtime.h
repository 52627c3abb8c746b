/*
 * The measurement run: start-up (configuration, timer, budget, filter, registry, the
 * master location) and the end (stop every location, build the unified profile, write
 * the experiment directory). Start-up runs from the library constructor, or earlier
 * from the first event if another constructor calls instrumented code first; the end
 * runs at exit, from wherever exit() was called.
 */
#ifndef HP_MEASUREMENT_RUNTIME_H
#define HP_MEASUREMENT_RUNTIME_H

#include <stdbool.h>

/* Starts measurement if that has not happened; true while measurement runs. Cheap
 * after the first call. Exits the process (status 1, before anything was measured)
 * when the configuration or filter file is invalid. */
bool hp_runtime_ensure_started(void);

/* Writes the experiment now and stops measurement (idempotent). */
void hp_runtime_finalize(void);

#endif
