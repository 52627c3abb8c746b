/*
 * The report tables of a profile and summary.txt, for people. Every table hp-report
 * prints (flat profile, call tree, MPI per rank, MPI vs computation, top MPI call
 * paths with their imbalance, unmeasured MPI calls) is built here, once, from the
 * unified profile (profile.h); summary.txt is these tables with the defaults below,
 * hp-report the same tables with the user's options, as text, CSV or JSON.
 */
#ifndef HP_PROFILE_SUMMARY_H
#define HP_PROFILE_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "table.h"

typedef struct hp_summary_notes {
    const char *program;
    const char *timer;
    const char *const *warnings; /* lines about degraded measurement, NULL-terminated */
} hp_summary_notes;

typedef struct hp_report_options {
    const char *metric; /* flat profile and call tree; default "time" */
    int rank;           /* only this MPI rank's locations; -1 = all (default) */
    int max_depth;      /* call tree depth; default 24 */
    double min_percent; /* call tree: hide paths below this % of the total; default 0.1 */
    size_t flat_rows;   /* flat profile rows; 0 = all; default 40 */
} hp_report_options;

/* summary.txt's settings. */
void hp_report_options_init(hp_report_options *o);

/* Per-cnode values of one metric over a set of locations: inclusive and exclusive,
 * whatever the metric stores. Sums for UINT64 / DOUBLE metrics, min / max for
 * MINDOUBLE / MAXDOUBLE (over locations and, for inclusive values, over the subtree). */
typedef struct hp_metric_view {
    double *incl;
    double *excl;
} hp_metric_view;

/* selected: one flag per location, NULL = all. Returns 0 or -1 (out of memory). */
int hp_metric_view_init(hp_metric_view *v, const hp_profile *p, const hp_profile_metric *m,
                        const bool *selected);
void hp_metric_view_release(hp_metric_view *v);

/* Appends the report's tables in summary.txt's order: the MPI section (when the profile
 * has MPI regions or unmeasured calls), the flat profile, the call tree, and the call
 * paths that recursed (when the profile has recursion_depth). Returns 0, or
 * -1 with a one-line reason in err (unknown metric or rank, out of memory). */
int hp_report_tables(const hp_profile *p, const hp_report_options *o, hp_table_list *out,
                     char *err, size_t errlen);

/* Appends the counters table (nothing when the profile has no counters): per selected
 * process (proc_selected: one flag per process, NULL = all) and counter, the total, the
 * part in MPI and the application's part, which add up exactly. Returns 0 or -1 (out of
 * memory). */
int hp_report_counter_table(const hp_profile *p, const bool *proc_selected,
                            hp_table_list *out);

/* Appends the derived metrics table (nothing when none can be computed): per selected
 * process, ratios of counters and time where their inputs were measured (instructions per
 * cycle, CPU use, miss ratios, FLOP rate), for the application, in MPI and in all.
 * Returns 0 or -1 (out of memory). */
int hp_report_derived_table(const hp_profile *p, const bool *proc_selected,
                            hp_table_list *out);

/* Appends the table "waiting time by cause" (nothing when the profile has no wait
 * states, HP_WAIT_STATES): per Scalasca pattern, its seconds over the selected processes
 * (proc_selected as above), its share of their MPI time and the call paths that waited
 * most, with the rank that waited most there; the coverage as the note. Returns 0 or -1
 * (out of memory). */
int hp_report_wait_table(const hp_profile *p, const bool *proc_selected, hp_table_list *out);

/* Per cnode of p: an MPI call path not below another one. Malloc'd, NULL when out of
 * memory. */
bool *hp_profile_outermost_mpi(const hp_profile *p);

/* A process's sums of an inclusive metric: its locations' roots (total) and outermost MPI
 * paths (mpi); exact integers for UINT64 metrics, doubles for both kinds. */
typedef struct hp_mpi_split {
    uint64_t total_u, mpi_u;
    double total, mpi;
} hp_mpi_split;

void hp_profile_split_mpi(const hp_profile *p, const hp_profile_metric *m, const bool *outer,
                          size_t proc, hp_mpi_split *s);

/* Adds the rows of one (process, item) to a per-rank table of the MPI split; returns 0
 * (also for an item it leaves out) or -1. */
typedef int (*hp_split_row_fn)(hp_table *t, const hp_profile *p, const bool *outer,
                               size_t proc, size_t item, const void *ctx);

/* Fills t with add's rows for every selected process and item 0..nitems-1, outer being
 * hp_profile_outermost_mpi(p), and appends t to out. t NULL (out of memory) or a failure
 * returns -1, and t is freed; else 0. */
int hp__report_split_rows(const hp_profile *p, const bool *proc_selected, hp_table *t,
                          size_t nitems, hp_split_row_fn add, const void *ctx,
                          hp_table_list *out);

/* The lines before the tables: title, processes, locations, total time, regions, and
 * the timer and measurement notes when notes != NULL. */
void hp_report_write_header(FILE *out, const hp_profile *p, const char *title,
                            const hp_summary_notes *notes);

/* Writes the summary of p (which must have the metrics visits and time). Returns 0 or
 * -1 on a write error. */
int hp_summary_write(FILE *out, const hp_profile *p, const hp_summary_notes *notes);

/* The sampling section (nothing when nothing was sampled): sample counts and the
 * histogram of effective sample intervals. */
void hp_summary_write_sampling(FILE *out, const hp_profile_sampling *s);

/* The instrumentation section (nothing when nothing was compiler-instrumented): what was
 * instrumented, the probe cost and estimated dilation, regions the budget switched off. */
void hp_summary_write_instrumentation(FILE *out, const hp_profile *p);

/* Per cnode of p: true when no caller on its path is the same region (its inclusive
 * value then is not counted twice in per-region sums of recursive code). Malloc'd, NULL
 * when out of memory. */
bool *hp_profile_outermost(const hp_profile *p);

#endif
