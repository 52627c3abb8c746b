/*
 * Measurement kept when the run is cut short by a signal (HP_FINALIZE_SIGNALS: SIGTERM
 * from a batch system's time limit, SIGINT from ^C, ...) and snapshots on request
 * (HP_DUMP_SIGNAL). See signals.c for how the handler, the program's own handlers and the
 * normal end of measurement fit together.
 */
#ifndef HP_MEASUREMENT_SIGNALS_H
#define HP_MEASUREMENT_SIGNALS_H

#include <stdbool.h>

/* What a finalize signal does to the measurement, given by its owner (runtime.c), so that
 * this file does not reach back up into it: will_write tells whether this process has
 * anything to write (measurement runs, and the process is not one of hp-run's launcher
 * processes, which write nothing), finalize writes it and ends the measurement. */
typedef struct hp_signal_actions {
    bool (*will_write)(void);
    void (*finalize)(void);
} hp_signal_actions;

/* Installs our handlers (measurement start-up, after the configuration was read) for the
 * configured signals whose disposition is still the default. */
void hp_signals_install(const hp_signal_actions *actions);

/* Brackets the normal end of measurement (exit, MPI_Finalize, MPI_Abort): a configured
 * signal arriving meanwhile waits until the write is complete, then takes effect. hold
 * waits (bounded) while a signal's write runs on another thread. */
void hp_signals_hold(void);
void hp_signals_release(void);

#endif
