/*
 * The "waiting time by cause" table of summary.txt and hp-report: Scalasca's wait-state
 * patterns (HP_WAIT_STATES, doc/wait-states.md) with their seconds over the selected
 * ranks, their share of the MPI time, and the call paths that waited most, each with the
 * rank that waited most there. The values are the profile's inclusive metrics under
 * time > mpi; a pattern's own seconds at a call path are its exclusive value there.
 */
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The patterns in the order of Scalasca's metric tree, with their depth below the first
 * column (a wrong-order part is shown under Late Sender). */
static const struct {
    const char *name;
    int indent;
} patterns[] = {
    { "mpi_latesender", 0 },   { "mpi_latesender_wo", 1 }, { "mpi_lswo_different", 2 },
    { "mpi_lswo_same", 2 },    { "mpi_latereceiver", 0 },  { "mpi_wait_nxn", 0 },
    { "mpi_nxn_completion", 0 }, { "mpi_barrier_wait", 0 }, { "mpi_barrier_completion", 0 },
    { "mpi_latebroadcast", 0 }, { "mpi_earlyreduce", 0 },   { "mpi_earlyscan", 0 },
};

enum { WORST_PATHS = 3 };

static bool selected(const hp_profile *p, const bool *proc_selected, size_t l)
{
    return proc_selected == NULL || proc_selected[p->locations[l].process];
}

/* Sum over the selected locations of the roots' values of m. */
static double root_total(const hp_profile *p, const hp_profile_metric *m,
                         const bool *proc_selected)
{
    const double *v = m->values;
    double sum = 0;
    for (size_t c = 0; c < p->ncnodes; c++)
        if (p->cnodes[c].parent == HP_PROFILE_NO_PARENT)
            for (size_t l = 0; l < p->nlocations; l++)
                sum += selected(p, proc_selected, l) ? v[c * p->nlocations + l] : 0;
    return sum;
}

/* "main/solve/MPI_Recv": the region names from the root's child down to c. */
static void path_of(const hp_profile *p, size_t c, char *out, size_t size)
{
    size_t depth = 0, chain[64];
    for (size_t n = c; n != HP_PROFILE_NO_PARENT && depth < 64; n = p->cnodes[n].parent)
        chain[depth++] = n;
    out[0] = '\0';
    size_t len = 0;
    for (size_t i = depth; i-- > 0 && len < size;) {
        if (depth > 1 && i == depth - 1)
            continue; /* the program root */
        int n = snprintf(out + len, size - len, "%s%s", len > 0 ? "/" : "",
                         p->regions[p->cnodes[chain[i]].region].name);
        len += n > 0 ? (size_t)n : 0;
    }
}

/* The exclusive values of m per (cnode, location): malloc'd, NULL when out of memory. */
static double *exclusive(const hp_profile *p, const hp_profile_metric *m)
{
    size_t nl = p->nlocations, cells = p->ncnodes * nl;
    const double *v = m->values;
    double *x = malloc((cells ? cells : 1) * sizeof(double));
    if (x == NULL)
        return NULL;
    memcpy(x, v, cells * sizeof(double));
    for (size_t c = 0; c < p->ncnodes; c++)
        if (p->cnodes[c].parent != HP_PROFILE_NO_PARENT)
            for (size_t l = 0; l < nl; l++)
                x[p->cnodes[c].parent * nl + l] -= v[c * nl + l];
    return x;
}

/* "main/f/MPI_Recv (rank 0: 0.52 s); ..." for the WORST_PATHS call paths of m with the
 * most waiting over the selected ranks. Returns 0 or -1. */
static int worst_paths(const hp_profile *p, const hp_profile_metric *m,
                       const bool *proc_selected, char *out, size_t size)
{
    size_t nl = p->nlocations;
    double *x = exclusive(p, m);
    if (x == NULL)
        return -1;
    out[0] = '\0';
    size_t len = 0, shown[WORST_PATHS];
    for (int k = 0; k < WORST_PATHS; k++) {
        double best = 0;
        size_t best_c = SIZE_MAX;
        for (size_t c = 0; c < p->ncnodes; c++) {
            double sum = 0;
            for (size_t l = 0; l < nl; l++)
                sum += selected(p, proc_selected, l) ? x[c * nl + l] : 0;
            bool seen = false;
            for (int j = 0; j < k; j++)
                seen |= shown[j] == c;
            if (!seen && sum > best + 1e-9) {
                best = sum;
                best_c = c;
            }
        }
        if (best_c == SIZE_MAX || best < 5e-7) /* nothing left that prints as > 0 */
            break;
        shown[k] = best_c;
        size_t worst_l = 0;
        for (size_t l = 1; l < nl; l++)
            if (selected(p, proc_selected, l) && x[best_c * nl + l] > x[best_c * nl + worst_l])
                worst_l = l;
        char path[512];
        path_of(p, best_c, path, sizeof(path));
        int n = snprintf(out + len, size - len, "%s%s (rank %d: %.3f s)", k > 0 ? "; " : "",
                         path, p->processes[p->locations[worst_l].process].rank,
                         x[best_c * nl + worst_l]);
        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
    }
    free(x);
    return 0;
}

static const hp_column_spec columns[] = {
    { "pattern", "pattern", HP_CELL_TEXT, 26, "", 0 },
    { "metric", NULL, HP_CELL_TEXT, 0, "", HP_COL_DATA_ONLY },
    { "seconds", "time (s)", HP_CELL_REAL, 12, " ", 0 },
    { "mpi_percent", "% of MPI", HP_CELL_PERCENT, 9, " ", 0 },
    { "worst", "worst call paths (rank that waited most there)", HP_CELL_TEXT, 0, "  ", 0 },
};

static hp_table *table_new(const hp_profile *p)
{
    hp_table *t = HP_TABLE_NEW("waitstates", "Waiting time by cause (Scalasca's wait states, "
                               "doc/wait-states.md)", columns);
    if (t != NULL && p->wait_states != NULL && p->wait_states[0] != '\0' &&
        hp_table_set_note(t, "coverage: %s", p->wait_states) != 0) {
        hp_table_free(t);
        return NULL;
    }
    return t;
}

int hp_report_wait_table(const hp_profile *p, const bool *proc_selected, hp_table_list *out)
{
    const hp_profile_metric *mpi = hp_profile_find_metric(p, "mpi");
    if (mpi == NULL || mpi->dtype != HP_DTYPE_DOUBLE || p->ncnodes == 0)
        return 0; /* no wait states in this profile */
    double mpi_total = root_total(p, mpi, proc_selected);
    hp_table *t = table_new(p);
    if (t == NULL)
        return -1;
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        const hp_profile_metric *m = hp_profile_find_metric(p, patterns[i].name);
        if (m == NULL || m->dtype != HP_DTYPE_DOUBLE)
            continue;
        double total = root_total(p, m, proc_selected);
        char worst[2048];
        hp_table_cell *row = hp_table_add_row(t);
        if (row == NULL || worst_paths(p, m, proc_selected, worst, sizeof(worst)) != 0 ||
            hp_table_cell_set_text(&row[0], m->disp_name) ||
            hp_table_cell_set_text(&row[1], m->uniq_name) ||
            hp_table_cell_set_text(&row[4], worst)) {
            hp_table_free(t);
            return -1;
        }
        row[0].indent = patterns[i].indent;
        row[2].d = total;
        row[3].d = mpi_total > 0 ? 100.0 * total / mpi_total : 0;
    }
    return hp_table_list_add(out, t);
}
