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

/* Reports a bad HP_* value or input file (what: e.g. "invalid configuration", message:
 * one line per problem) and stops the program with status 1, writing nothing. */
void hp_runtime_stop_on_bad_input(const char *what, const char *message);

/* Writes the experiment now and stops measurement (idempotent). In an MPI run whose
 * MPI_Finalize was not reached, this rank writes its own profile-rank<r>.cubex. */
void hp_runtime_finalize(void);

/* True while measurement runs (started, not ended, not disabled). Async-signal-safe. */
bool hp_runtime_running(void);

/* Stops measurement on every location and accounts their open frames as ending now.
 * Returns false when measurement had ended already (the caller then writes nothing). */
bool hp_runtime_stop(void);

/* Warns once per process about HP_* variables that are not ours (a typo, most likely;
 * config.h hp_config_check_names), unless rank is above 0; rank -1 = not known yet, then
 * the process manager's rank variable (PMI_RANK, ...) decides. */
void hp_runtime_warn_unknown_names(int rank);

/* Write an experiment only if this process initializes MPI (hp-run preloads the
 * measurement into mpiexec and its helpers too, which must leave nothing behind),
 * unless hp-run named this process as its program (HP_RUN_PROGRAM=1). */
void hp_runtime_require_mpi(void);

/* Set by the MPI adapter: returns this process's MPI rank when MPI was initialized
 * (even if our MPI_Init wrapper never ran, e.g. under another PMPI tool), else -1. */
void hp_runtime_set_mpi_probe(int (*probe)(void));

/* Set by the MPI adapter: asked at exit when MPI_Init reached us and MPI_Finalize did
 * not. Returns true after it explained that MPI was finalized all the same (another
 * object's MPI_Finalize came first), false when MPI is still running. */
void hp_runtime_set_mpi_end_explainer(bool (*explain)(int rank));

#endif
