/*
 * The derived metrics table of summary.txt and hp-report: ratios of counters (and time)
 * per rank, for the application, inside MPI and for the whole run, computed only where
 * their inputs were measured. The in-MPI column tells busy-waiting apart: an MPI library
 * that polls shows a high CPU use and instruction rate there, which would otherwise
 * inflate the application's.
 */
#include "summary.h"

#include <stdlib.h>

typedef struct derived_metric {
    const char *label;
    const char *numerator[2];   /* the first metric the profile has counts */
    const char *denominator[2];
    double scale;               /* applied to numerator / denominator */
} derived_metric;

enum { CPU_USE = 1 }; /* its index in derived[] */

static const derived_metric derived[] = {
    { "instructions per cycle", { "perf_instructions", "PAPI_TOT_INS" },
      { "perf_cycles", "PAPI_TOT_CYC" }, 1 },
    { "CPU use (task-clock / time)", { "perf_task_clock", NULL }, { "time", NULL }, 1e-9 },
    { "cache miss ratio", { "perf_cache_misses", NULL }, { "perf_cache_references", NULL },
      1 },
    { "L2 data miss ratio", { "PAPI_L2_DCM", NULL }, { "PAPI_L2_DCA", NULL }, 1 },
    { "branch miss ratio", { "perf_branch_misses", "PAPI_BR_MSP" },
      { "perf_branches", "PAPI_BR_INS" }, 1 },
    { "MFLOP/s", { "PAPI_FP_OPS", "PAPI_DP_OPS" }, { "time", NULL }, 1e-6 },
};
enum { NDERIVED = sizeof(derived) / sizeof(derived[0]) };

static const hp_profile_metric *first_of(const hp_profile *p, const char *const names[2])
{
    for (int i = 0; i < 2 && names[i] != NULL; i++) {
        const hp_profile_metric *m = hp_profile_find_metric(p, names[i]);
        if (m != NULL && m->kind == HP_METRIC_INCLUSIVE &&
            (m->dtype == HP_DTYPE_UINT64 || m->dtype == HP_DTYPE_DOUBLE))
            return m;
    }
    return NULL;
}

static double ratio(double num, double den, double scale)
{
    return den > 0 ? num / den * scale : 0;
}

/* The inputs found for each derived metric (NULL: not measured). */
typedef struct inputs {
    const hp_profile_metric *num[NDERIVED], *den[NDERIVED];
} inputs;

static int add_row(hp_table *t, const hp_profile *p, const bool *outer, size_t proc,
                   size_t i, const void *ctx)
{
    const inputs *in = ctx;
    const derived_metric *d = &derived[i];
    const hp_profile_metric *num = in->num[i], *den = in->den[i];
    if (num == NULL || den == NULL)
        return 0;
    hp_mpi_split n, q;
    hp_profile_split_mpi(p, num, outer, proc, &n);
    hp_profile_split_mpi(p, den, outer, proc, &q);
    hp_table_cell *row = hp_table_add_row(t);
    if (row == NULL || hp_table_cell_set_text(&row[1], d->label))
        return -1;
    row[0].i = p->processes[proc].rank;
    row[2].d = ratio(n.total - n.mpi, q.total - q.mpi, d->scale);
    row[3].d = ratio(n.mpi, q.mpi, d->scale);
    row[4].d = ratio(n.total, q.total, d->scale);
    return 0;
}

static const hp_column_spec columns[] = {
    { "rank", "rank", HP_CELL_INT, 6, "", 0 },
    { "metric", "metric", HP_CELL_TEXT, 28, "  ", 0 },
    { "application", "application", HP_CELL_RATIO, 12, " ", 0 },
    { "in_mpi", "in MPI", HP_CELL_RATIO, 12, " ", 0 },
    { "all", "all", HP_CELL_RATIO, 12, " ", 0 },
};

static hp_table *table_new(void)
{
    return HP_TABLE_NEW("derived", "Derived metrics per rank (where their counters were "
                        "measured)", columns);
}

int hp_report_derived_table(const hp_profile *p, const bool *proc_selected,
                            hp_table_list *out)
{
    inputs in;
    size_t usable = 0;
    for (int i = 0; i < NDERIVED; i++) {
        in.num[i] = first_of(p, derived[i].numerator);
        in.den[i] = first_of(p, derived[i].denominator);
        usable += in.num[i] != NULL && in.den[i] != NULL;
    }
    if (usable == 0 || p->ncnodes == 0)
        return 0;
    hp_table *t = table_new();
    /* CPU use in MPI far below 1 beside a counters table that puts 98% of task-clock in
     * MPI reads like a contradiction; both are right (t071 checks the ratio against the
     * Cube file): one is CPU time per wall-clock second, the other a share of CPU time. */
    if (t != NULL && in.num[CPU_USE] != NULL && in.den[CPU_USE] != NULL &&
        hp_table_set_note(t, "(task-clock / time: CPU seconds per wall-clock second in that "
                             "part of the run, 1 = a whole core; in MPI it stays low while "
                             "MPI waits without a core, as in MPI_Init or on shared cores, "
                             "even when most task-clock is in MPI (the counters' MPI %%))")) {
        hp_table_free(t);
        return -1;
    }
    return hp__report_split_rows(p, proc_selected, t, NDERIVED, add_row, &in, out);
}
