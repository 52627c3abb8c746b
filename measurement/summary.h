/*
 * The report tables of a profile and summary.txt, for people. Every table hp-report
 * prints (flat profile, call tree, MPI per rank, MPI vs computation, top MPI call
 * paths with their imbalance, unmeasured MPI calls) is built here, once, from the
 * unified profile (profile.h); summary.txt is these tables with the defaults below,
 * hp-report the same tables with the user's options, as text, CSV or JSON.
 */
#ifndef HP_MEASUREMENT_SUMMARY_H
#define HP_MEASUREMENT_SUMMARY_H

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

/* The metric called name, or NULL. */
const hp_profile_metric *hp_profile_find_metric(const hp_profile *p, const char *name);

/* Appends the report's tables in summary.txt's order: the MPI section (when the profile
 * has MPI regions or unmeasured calls), the flat profile, the call tree. Returns 0, or
 * -1 with a one-line reason in err (unknown metric or rank, out of memory). */
int hp_report_tables(const hp_profile *p, const hp_report_options *o, hp_table_list *out,
                     char *err, size_t errlen);

/* Appends the counters table (nothing when the profile has no counters): per selected
 * process (proc_selected: one flag per process, NULL = all) and counter, the total, the
 * part in MPI and the application's part, which add up exactly. Returns 0 or -1 (out of
 * memory). */
int hp_report_counter_table(const hp_profile *p, const bool *proc_selected,
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
