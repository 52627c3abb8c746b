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

/* Per cnode: an MPI call path not below another one. Malloc'd, NULL when out of memory. */
static bool *outermost_mpi(const hp_profile *p)
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

/* Sums of counter m over process proc's locations: the root's value and that of the
 * outermost MPI paths. */
static void split(const hp_profile *p, const hp_profile_metric *m, const bool *outer,
                  size_t proc, uint64_t *total, uint64_t *in_mpi)
{
    const uint64_t *v = m->values;
    size_t nl = p->nlocations;
    *total = *in_mpi = 0;
    for (size_t l = 0; l < nl; l++) {
        if (p->locations[l].process != proc)
            continue;
        *total += v[l];
        for (size_t n = 1; n < p->ncnodes; n++)
            if (outer[n])
                *in_mpi += v[n * nl + l];
    }
}

static int add_row(hp_table *t, const hp_profile *p, const hp_profile_metric *m,
                   const bool *outer, size_t proc)
{
    uint64_t total, in_mpi;
    split(p, m, outer, proc, &total, &in_mpi);
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

static hp_table *table_new(void)
{
    hp_table *t = hp_table_new("counters", "Counters per rank (in MPI + application = "
                                           "total; inclusive of the whole run)");
    if (t == NULL || hp_table_add_column(t, "rank", "rank", HP_CELL_INT, 6, "", 0) ||
        hp_table_add_column(t, "counter", "counter", HP_CELL_TEXT, 18, "  ", 0) ||
        hp_table_add_column(t, "total", "total", HP_CELL_UINT, 16, " ", 0) ||
        hp_table_add_column(t, "in_mpi", "in MPI", HP_CELL_UINT, 16, " ", 0) ||
        hp_table_add_column(t, "application", "application", HP_CELL_UINT, 16, " ", 0) ||
        hp_table_add_column(t, "mpi_percent", "MPI %", HP_CELL_PERCENT, 8, " ", 0)) {
        hp_table_free(t);
        return NULL;
    }
    return t;
}

int hp_report_counter_table(const hp_profile *p, const bool *proc_selected,
                            hp_table_list *out)
{
    size_t ncounters = 0;
    for (size_t i = 0; i < p->nmetrics; i++)
        ncounters += is_counter(&p->metrics[i]);
    if (ncounters == 0 || p->ncnodes == 0)
        return 0;
    bool *outer = outermost_mpi(p);
    hp_table *t = outer != NULL ? table_new() : NULL;
    int rc = t != NULL ? 0 : -1;
    for (size_t proc = 0; rc == 0 && proc < p->nprocesses; proc++)
        for (size_t i = 0; rc == 0 && i < p->nmetrics; i++)
            if (is_counter(&p->metrics[i]) && (proc_selected == NULL || proc_selected[proc]))
                rc = add_row(t, p, &p->metrics[i], outer, proc);
    free(outer);
    if (rc != 0) {
        hp_table_free(t);
        return -1;
    }
    return hp_table_list_add(out, t);
}
