/*
 * The counters table of summary.txt and hp-report: per rank and counter, the total, the
 * part inside measured MPI calls and the rest (the application). Counters are the
 * profile's inclusive integer metrics (metrics.h writes them so; no other metric is of
 * that kind). The in-MPI part is the inclusive value of the outermost MPI call paths, so
 * MPI's busy-waiting shows up there and not in the application; both are integer sums of
 * the profile's own values, so they add up to the total exactly.
 */
#include "summary.h"

#include <stdlib.h>
#include <string.h>

static bool is_counter(const hp_profile_metric *m)
{
    return m->kind == HP_METRIC_INCLUSIVE && m->dtype == HP_DTYPE_UINT64;
}

bool *hp_profile_outermost_mpi(const hp_profile *p)
{
    bool *below = calloc(p->ncnodes + 1, sizeof(bool)); /* inside MPI from here on */
    bool *outer = calloc(p->ncnodes + 1, sizeof(bool));
    if (below == NULL || outer == NULL) {
        free(below);
        free(outer);
        return NULL;
    }
    for (size_t n = 1; n < p->ncnodes; n++) {
        bool above = below[p->cnodes[n].parent];
        bool mpi = strcmp(p->regions[p->cnodes[n].region].paradigm, "mpi") == 0;
        outer[n] = mpi && !above;
        below[n] = mpi || above;
    }
    free(below);
    return outer;
}

/* Value i of an inclusive UINT64 or DOUBLE metric. */
static void add_value(const hp_profile_metric *m, size_t i, hp_mpi_split *s, bool mpi)
{
    uint64_t u = m->dtype == HP_DTYPE_UINT64 ? ((const uint64_t *)m->values)[i] : 0;
    double d = m->dtype == HP_DTYPE_UINT64 ? (double)u : ((const double *)m->values)[i];
    if (mpi) {
        s->mpi_u += u;
        s->mpi += d;
    } else {
        s->total_u += u;
        s->total += d;
    }
}

void hp_profile_split_mpi(const hp_profile *p, const hp_profile_metric *m, const bool *outer,
                          size_t proc, hp_mpi_split *s)
{
    size_t nl = p->nlocations;
    *s = (hp_mpi_split){ 0, 0, 0, 0 };
    for (size_t l = 0; l < nl; l++) {
        if (p->locations[l].process != proc)
            continue;
        add_value(m, l, s, false);
        for (size_t n = 1; n < p->ncnodes; n++)
            if (outer[n])
                add_value(m, n * nl + l, s, true);
    }
}

int hp__report_split_rows(const hp_profile *p, const bool *proc_selected, hp_table *t,
                          size_t nitems, hp_split_row_fn add, const void *ctx,
                          hp_table_list *out)
{
    bool *outer = t != NULL ? hp_profile_outermost_mpi(p) : NULL;
    int rc = outer != NULL ? 0 : -1;
    for (size_t proc = 0; rc == 0 && proc < p->nprocesses; proc++)
        for (size_t i = 0; rc == 0 && i < nitems; i++)
            if (proc_selected == NULL || proc_selected[proc])
                rc = add(t, p, outer, proc, i, ctx);
    free(outer);
    if (rc != 0) {
        hp_table_free(t);
        return -1;
    }
    return hp_table_list_add(out, t);
}

/* A counter's row: metric i of p, when it is a counter. */
static int add_row(hp_table *t, const hp_profile *p, const bool *outer, size_t proc,
                   size_t i, const void *ctx)
{
    (void)ctx;
    const hp_profile_metric *m = &p->metrics[i];
    if (!is_counter(m))
        return 0;
    hp_mpi_split s;
    hp_profile_split_mpi(p, m, outer, proc, &s);
    uint64_t total = s.total_u, in_mpi = s.mpi_u;
    uint64_t app = total >= in_mpi ? total - in_mpi : 0;
    hp_table_cell *row = hp_table_add_row(t);
    if (row == NULL || hp_table_cell_set_text(&row[1], m->disp_name))
        return -1;
    row[0].i = p->processes[proc].rank;
    row[2].u = total;
    row[3].u = in_mpi;
    row[4].u = app;
    row[5].d = total > 0 ? 100.0 * (double)in_mpi / (double)total : 0;
    return 0;
}

static const hp_column_spec columns[] = {
    { "rank", "rank", HP_CELL_INT, 6, "", 0 },
    { "counter", "counter", HP_CELL_TEXT, 18, "  ", 0 },
    { "total", "total", HP_CELL_UINT, 16, " ", 0 },
    { "in_mpi", "in MPI", HP_CELL_UINT, 16, " ", 0 },
    { "application", "application", HP_CELL_UINT, 16, " ", 0 },
    { "mpi_percent", "MPI %", HP_CELL_PERCENT, 8, " ", 0 },
};

static hp_table *table_new(void)
{
    return HP_TABLE_NEW("counters", "Counters per rank (in MPI + application = total; "
                        "inclusive of the whole run)", columns);
}

int hp_report_counter_table(const hp_profile *p, const bool *proc_selected,
                            hp_table_list *out)
{
    size_t ncounters = 0;
    for (size_t i = 0; i < p->nmetrics; i++)
        ncounters += is_counter(&p->metrics[i]);
    if (ncounters == 0 || p->ncnodes == 0)
        return 0;
    return hp__report_split_rows(p, proc_selected, table_new(), p->nmetrics, add_row, NULL,
                                 out);
}
