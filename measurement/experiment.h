/*
 * The experiment directory: its name (hp-<exe>-<YYYYMMDD_HHMMSS> or
 * HP_EXPERIMENT_DIRECTORY, never overwriting an existing one) and its contents
 * (profile.cubex, summary.txt, hp.config). Runs once, at the end of measurement.
 */
#ifndef HP_MEASUREMENT_EXPERIMENT_H
#define HP_MEASUREMENT_EXPERIMENT_H

#include <time.h>

/* Base name of the running executable (e.g. "app"). */
const char *hp_experiment_program_name(void);

/* Builds the profile of all locations and writes the experiment directory; problems
 * are reported on stderr, never fatal. start is the wall-clock start of measurement. */
void hp_experiment_write(time_t start);

#endif
