/*
 * summary.txt: the text summary of a profile, for people. It reads only the unified
 * profile (profile.h), like every writer.
 */
#ifndef HP_MEASUREMENT_SUMMARY_H
#define HP_MEASUREMENT_SUMMARY_H

#include <stdio.h>

#include "profile.h"

typedef struct hp_summary_notes {
    const char *program;
    const char *timer;
    const char *const *warnings; /* lines about degraded measurement, NULL-terminated */
} hp_summary_notes;

/* Writes the summary of p (which must have the metrics visits and time). Returns 0 or
 * -1 on a write error. */
int hp_summary_write(FILE *out, const hp_profile *p, const hp_summary_notes *notes);

#endif
