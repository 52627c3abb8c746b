/*
 * The end of a run (finalize.c), one path for a serial run and an MPI job alike:
 * every rank builds its profile, the profiles are merged along the binomial tree to
 * rank 0, rank 0 writes the experiment (Cube, summary, site log), and with tracing on
 * every rank writes its trace through the transport.
 */
#ifndef HP_MEASUREMENT_FINALIZE_FINALIZE_H
#define HP_MEASUREMENT_FINALIZE_FINALIZE_H

#include <stdbool.h>

#include "transport.h"

/* Collective over t. measured: whether this rank has data (its measurement ran and the
 * caller stopped it); a rank without data takes part with nothing to give, so no rank
 * waits for another. Whether a trace is written is decided by the configuration, the
 * same on every rank. Problems are said on stderr; the program goes on. */
void hp_finalize_job(const hp_transport *t, bool measured);

#endif
