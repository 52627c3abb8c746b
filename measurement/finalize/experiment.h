/*
 * The experiment directory: its name (hp-<exe>-<YYYYMMDD_HHMMSS> or
 * HP_EXPERIMENT_DIRECTORY, never overwriting an existing one) and its contents
 * (profile.cubex, summary.txt, hp.config). Created when something is first written into
 * it, at the end of measurement, a signal's write or a snapshot.
 */
#ifndef HP_MEASUREMENT_EXPERIMENT_H
#define HP_MEASUREMENT_EXPERIMENT_H

#include <stddef.h>
#include <time.h>

#include <stdbool.h>

#include "profile_build.h"
#include "trace_output.h"

/* Base name of the running executable (e.g. "app"). */
const char *hp_experiment_program_name(void);

/* An MPI job's experiment directory, agreed on at MPI_Init: rank 0 plans it, every other
 * rank joins the plan (broadcast as bytes), and the directory is created when the first
 * rank writes into it. A job killed before that leaves no directory. */
typedef struct hp_experiment_job {
    char token[96]; /* tells this job's directory from another run's; "" = no plan */
    int first;      /* the first suffix to try: 0 = the name itself, i = name-i */
    char base[3900]; /* HP_EXPERIMENT_DIRECTORY or the default name */
} hp_experiment_job;

/* Rank 0: fills plan (rank 0's start time and the names that exist now) and uses it. */
void hp_experiment_plan_job(hp_experiment_job *plan);

/* The other ranks: uses rank 0's plan (one with an empty token changes nothing). */
void hp_experiment_join_job(const hp_experiment_job *plan);

/* The experiment directory, created at the first call: HP_EXPERIMENT_DIRECTORY or the
 * default name, never overwriting an existing directory (-1, -2, ... is appended); in an
 * MPI job the one directory of all ranks. "" when it cannot be created (said on
 * stderr). */
const char *hp_experiment_directory(void);

/* Builds this process's profile from all its locations. Returns 0 or -1 (memory). */
int hp_experiment_build(hp_profile_data *d);

/* Writes profile<suffix>.cubex, summary<suffix>.txt and hp.config into the experiment
 * directory (created first if there is none yet). Problems go to stderr. */
void hp_experiment_write_profile(const hp_profile *p, const char *suffix);

/* Appends text to the job's summary.txt, written before (rank 0, e.g. what the trace
 * left out, known only once it was written). Says on stderr when it cannot. */
void hp_experiment_append_summary(const char *text);

/* true: the notes about the trace's adaptive buffers (halvings, events stopped) are the
 * whole job's and reach summary.txt after the trace is written (an MPI job's rank 0
 * gathers them, adapters/mpi/mpi_trace_cut.c), so the profile leaves this process's
 * own out. */
void hp_experiment_trace_notes_by_job(bool by_job);

/* The summary lines (at most 2) about adaptive trace buffers for the statistics ad,
 * written into notes; returns how many. */
size_t hp_experiment_adaptive_notes(const hp_trace_output_adaptive *ad, char notes[][256]);

/* Marks what is written from now on as cut short: text (e.g. "interrupted by signal 15
 * (SIGTERM) at 2.5 s") goes into summary.txt and the Cube file. */
void hp_experiment_set_interrupted(const char *text);

/* Waits (at most max_ms) until profile-rank<r>.cubex of every rank 0..size-1 exists:
 * MPICH's launcher kills every rank with SIGKILL once one rank ends by a signal, so a
 * rank that wrote its profile gives the others time to finish theirs before it dies.
 * A rank writes its Cube file last: once it exists, the rank's summary is written too. */
void hp_experiment_wait_for_ranks(int size, int max_ms);

/* Writes a snapshot of the profile so far into <experiment>/snapshot-<number>/ (MPI
 * ranks: profile-rank<r>.cubex each) while measurement goes on. Completed calls of every
 * thread; calls still open count their time so far on the calling thread only. */
void hp_experiment_snapshot(int number);

/* Builds and writes this rank's profile alone, as profile-rank<r>.cubex (an MPI run that
 * did not reach MPI_Finalize). */
void hp_experiment_write_rank(int rank);

#endif
