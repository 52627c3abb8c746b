/*
 * Which process of which job this is (job.c): the MPI rank and size once the
 * MPI adapter has seen MPI_Init, and when measurement started. A leaf module, so that
 * the writers of the experiment (experiment.c, site_log.c) can ask without depending
 * on the runtime's state machine (runtime.c), which depends on them.
 */
#ifndef HP_MEASUREMENT_CORE_JOB_H
#define HP_MEASUREMENT_CORE_JOB_H

#include <stdbool.h>
#include <time.h>

/* MPI state of this process, set by the MPI adapter after MPI_Init. */
void hp_job_set_mpi(int rank, int size);
bool hp_job_mpi_active(void);
int hp_job_rank(void);
int hp_job_size(void);

/* Wall-clock time when measurement started (names the experiment directory); set once
 * by start-up. */
void hp_job_set_start_time(time_t start);
time_t hp_job_start_time(void);

#endif
