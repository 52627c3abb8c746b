/*
 * The report tables (summary.h) and summary.txt. From the unified profile it derives,
 * per metric, inclusive and exclusive values per cnode over the selected locations, and
 * builds the tables: MPI calls per rank, MPI vs computation per rank, the top call paths
 * into MPI with their load imbalance, MPI calls counted but not measured, the flat
 * profile (regions by exclusive value) and the call tree down to a depth and share.
 * summary.txt (written by the measurement core at the end of a run) and hp-report both
 * print these same tables, so their numbers and layout cannot drift apart.
 *
 * A region's inclusive value in the flat profile counts only its outermost calls, so
 * recursive functions are not counted once per nesting level.
 */
#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TREE_MAX_DEPTH = 24, FLAT_MAX_ROWS = 40, MPI_TABLE_COLUMNS = 6, MPI_TOP_PATHS = 10 };
#define TREE_MIN_PERCENT 0.1

void hp_report_options_init(hp_report_options *o)
{
    *o = (hp_report_options){ "time", -1, TREE_MAX_DEPTH, TREE_MIN_PERCENT, FLAT_MAX_ROWS };
}

/* ------------------------------------------------------------------ metric values */

static double value_at(const hp_profile_metric *m, size_t i)
{
    return m->dtype == HP_DTYPE_UINT64 ? (double)((const uint64_t *)m->values)[i]
                                       : ((const double *)m->values)[i];
}

static double combine(hp_metric_dtype dt, double acc, double v)
{
    return dt == HP_DTYPE_MINDOUBLE   ? (v < acc ? v : acc)
           : dt == HP_DTYPE_MAXDOUBLE ? (v > acc ? v : acc)
                                      : acc + v;
}

/* Inclusive and exclusive values per (cnode, location). Children follow their parent
 * (pre-order), so one backward pass sees every child before its parent. */
static int per_location(const hp_profile *p, const hp_profile_metric *m, double **incl,
                        double **excl)
{
    size_t nl = p->nlocations, n = p->ncnodes * nl;
    *incl = malloc((n ? n : 1) * sizeof(double));
    *excl = malloc((n ? n : 1) * sizeof(double));
    if (*incl == NULL || *excl == NULL)
        return -1;
    double *own = m->kind == HP_METRIC_INCLUSIVE ? *incl : *excl;
    for (size_t i = 0; i < n; i++)
        own[i] = value_at(m, i);
    bool summed = m->dtype == HP_DTYPE_UINT64 || m->dtype == HP_DTYPE_DOUBLE;
    if (m->kind == HP_METRIC_INCLUSIVE) {
        memcpy(*excl, *incl, n * sizeof(double));
        for (size_t c = p->ncnodes; summed && c-- > 1;)
            for (size_t l = 0; l < nl; l++)
                (*excl)[p->cnodes[c].parent * nl + l] -= (*incl)[c * nl + l];
        for (size_t i = 0; i < n; i++) /* rounding of the differences, not negative time */
            if ((*excl)[i] < 0 && (*excl)[i] > -1e-9 * ((*incl)[i] > 1 ? (*incl)[i] : 1))
                (*excl)[i] = 0;
    } else {
        memcpy(*incl, *excl, n * sizeof(double));
        for (size_t c = p->ncnodes; c-- > 1;)
            for (size_t l = 0; l < nl; l++) {
                double *up = &(*incl)[p->cnodes[c].parent * nl + l];
                *up = combine(m->dtype, *up, (*incl)[c * nl + l]);
            }
    }
    return 0;
}

static void aggregate(const hp_profile *p, hp_metric_dtype dt, const double *per_loc,
                      const bool *selected, double *out)
{
    size_t nl = p->nlocations;
    for (size_t c = 0; c < p->ncnodes; c++) {
        bool first = true;
        out[c] = 0;
        for (size_t l = 0; l < nl; l++) {
            if (selected != NULL && !selected[l])
                continue;
            double v = per_loc[c * nl + l];
            out[c] = first ? v : combine(dt, out[c], v);
            first = false;
        }
    }
}

int hp_metric_view_init(hp_metric_view *v, const hp_profile *p, const hp_profile_metric *m,
                        const bool *selected)
{
    double *incl = NULL, *excl = NULL;
    v->incl = malloc((p->ncnodes + 1) * sizeof(double));
    v->excl = malloc((p->ncnodes + 1) * sizeof(double));
    int rc = -1;
    if (v->incl != NULL && v->excl != NULL && per_location(p, m, &incl, &excl) == 0) {
        aggregate(p, m->dtype, incl, selected, v->incl);
        aggregate(p, m->dtype, excl, selected, v->excl);
        rc = 0;
    }
    free(incl);
    free(excl);
    if (rc != 0)
        hp_metric_view_release(v);
    return rc;
}

void hp_metric_view_release(hp_metric_view *v)
{
    free(v->incl);
    free(v->excl);
    v->incl = v->excl = NULL;
}

/* ------------------------------------------------------------------ report context */

typedef struct report_ctx {
    const hp_profile *p;
    const hp_report_options *o;
    const hp_profile_metric *metric; /* the flat profile's and call tree's */
    bool *selected;                  /* per location */
    bool *proc_selected;             /* per process */
    hp_metric_view view;             /* of metric */
    hp_metric_view visits;           /* zeros when the profile has no visits */
    double total;                    /* metric's root value */
    const hp_profile_metric *time;   /* for the MPI tables; may be NULL */
    double *time_incl;               /* per (cnode, location) inclusive time */
    char *err;
    size_t errlen;
} report_ctx;

static double percent(double part, double total)
{
    return total > 0 ? 100.0 * part / total : 0.0;
}

static int fail(report_ctx *c, const char *msg, const char *arg)
{
    snprintf(c->err, c->errlen, msg, arg);
    return -1;
}

static int select_locations(report_ctx *c)
{
    const hp_profile *p = c->p;
    c->selected = calloc(p->nlocations + 1, sizeof(bool));
    c->proc_selected = calloc(p->nprocesses + 1, sizeof(bool));
    if (c->selected == NULL || c->proc_selected == NULL)
        return fail(c, "out of memory", "");
    size_t n = 0;
    for (size_t l = 0; l < p->nlocations; l++) {
        uint32_t proc = p->locations[l].process;
        bool sel = c->o->rank < 0 || (proc < p->nprocesses && p->processes[proc].rank == c->o->rank);
        c->selected[l] = sel;
        if (sel && proc < p->nprocesses)
            c->proc_selected[proc] = true;
        n += sel;
    }
    if (n == 0) {
        char rank[24];
        snprintf(rank, sizeof(rank), "%d", c->o->rank);
        return fail(c, "no rank %s in this profile", rank);
    }
    return 0;
}

static int metric_view_or_zeros(report_ctx *c, const char *name, hp_metric_view *v)
{
    const hp_profile_metric *m = hp_profile_find_metric(c->p, name);
    if (m != NULL)
        return hp_metric_view_init(v, c->p, m, c->selected);
    v->incl = calloc(c->p->ncnodes + 1, sizeof(double));
    v->excl = calloc(c->p->ncnodes + 1, sizeof(double));
    return v->incl != NULL && v->excl != NULL ? 0 : -1;
}

/* An unknown --metric: says which ones the profile has (counters have Cube names that
 * are not obvious, e.g. perf_page_faults). */
static int no_such_metric(report_ctx *c)
{
    int n = snprintf(c->err, c->errlen, "no metric \"%s\" in this profile; it has:",
                     c->o->metric);
    for (size_t i = 0; i < c->p->nmetrics && n >= 0 && (size_t)n < c->errlen; i++)
        n += snprintf(c->err + n, c->errlen - (size_t)n, " %s", c->p->metrics[i].uniq_name);
    return -1;
}

static int ctx_init(report_ctx *c)
{
    const hp_profile *p = c->p;
    c->metric = hp_profile_find_metric(p, c->o->metric);
    if (c->metric == NULL)
        return no_such_metric(c);
    if (p->ncnodes == 0)
        return fail(c, "the profile has no call tree", "");
    if (select_locations(c) != 0)
        return -1;
    if (hp_metric_view_init(&c->view, p, c->metric, c->selected) != 0 ||
        metric_view_or_zeros(c, "visits", &c->visits) != 0)
        return fail(c, "out of memory", "");
    c->total = c->view.incl[0];
    c->time = hp_profile_find_metric(p, "time");
    double *excl = NULL;
    if (c->time != NULL && per_location(p, c->time, &c->time_incl, &excl) != 0) {
        free(excl);
        return fail(c, "out of memory", "");
    }
    free(excl);
    return 0;
}

static void ctx_release(report_ctx *c)
{
    free(c->selected);
    free(c->proc_selected);
    hp_metric_view_release(&c->view);
    hp_metric_view_release(&c->visits);
    free(c->time_incl);
}

static const char *region_name(const hp_profile *p, size_t cnode)
{
    return p->regions[p->cnodes[cnode].region].name;
}

/* Region names from the root (or its first child) to cnode, joined by '/'. Returns a
 * malloc'd string or NULL. */
static char *call_path(const hp_profile *p, size_t cnode, bool with_root)
{
    size_t len = 0;
    for (uint32_t a = (uint32_t)cnode; a != HP_PROFILE_NO_PARENT; a = p->cnodes[a].parent)
        if (with_root || a != 0 || cnode == 0)
            len += strlen(region_name(p, a)) + 1;
    char *s = malloc(len + 1); /* len counts one '/' or the final NUL per name */
    if (s == NULL || len == 0) {
        free(s);
        return NULL;
    }
    size_t end = len - 1;
    s[end] = '\0';
    for (uint32_t a = (uint32_t)cnode; a != HP_PROFILE_NO_PARENT; a = p->cnodes[a].parent) {
        if (!with_root && a == 0 && cnode != 0)
            break;
        const char *name = region_name(p, a);
        size_t n = strlen(name);
        end -= n;
        memcpy(s + end, name, n);
        if (end > 0)
            s[--end] = '/';
    }
    return s;
}

/* Sums (visits, time, counters) add up over call paths and threads, so they have
 * exclusive and inclusive values and shares of the total. A maximum or minimum
 * (recursion_depth, min_time) has neither: its columns are a call path's own value and
 * the extreme over its subtree, with no percentages. */
static bool metric_is_sum(const report_ctx *c)
{
    return c->metric->dtype == HP_DTYPE_UINT64 || c->metric->dtype == HP_DTYPE_DOUBLE;
}

/* Text for the metric's value columns: "excl (s)" for time, "excl (occ)" for visits. */
static void value_header(const report_ctx *c, const char *what, char *buf, size_t len)
{
    const char *uom = metric_is_sum(c) ? c->metric->uom : ""; /* no room next to "subtree max" */
    if (strcmp(uom, "sec") == 0)
        uom = "s";
    if (*uom == '\0')
        snprintf(buf, len, "%s", what);
    else
        snprintf(buf, len, "%s (%s)", what, uom);
}

/* The value columns' words, and the flags of the percentage columns. */
static bool metric_is_max(const report_ctx *c)
{
    return c->metric->dtype == HP_DTYPE_MAXDOUBLE;
}

static const char *own_word(const report_ctx *c)
{
    return metric_is_sum(c) ? "excl" : metric_is_max(c) ? "max" : "min";
}

static const char *subtree_word(const report_ctx *c)
{
    return metric_is_sum(c) ? "incl" : metric_is_max(c) ? "subtree max" : "subtree min";
}

static unsigned percent_flags(const report_ctx *c)
{
    return metric_is_sum(c) ? 0 : HP_COL_NOWHERE;
}

static hp_cell_kind value_kind(const report_ctx *c)
{
    return c->metric->dtype == HP_DTYPE_UINT64 ? HP_CELL_UINT : HP_CELL_REAL;
}

/* Value cells carry both forms; the column's kind picks the one shown. */
static void set_value(hp_table_cell *cell, double v)
{
    cell->d = v;
    cell->u = hp_profile_count(v);
}

static const char *scope(const report_ctx *c, char *buf, size_t len)
{
    if (c->o->rank < 0)
        return "all locations";
    snprintf(buf, len, "rank %d", c->o->rank);
    return buf;
}

/* ------------------------------------------------------------------ flat profile */

typedef struct region_total {
    uint32_t region;
    double visits;
    double excl;
    double incl;
} region_total;

static int by_exclusive_value(const void *a, const void *b)
{
    const region_total *x = a, *y = b;
    return x->excl < y->excl ? 1 : x->excl > y->excl ? -1 : (int)x->region - (int)y->region;
}

/* A walk in pre-order keeps, per region, how many cnodes of the current path call it:
 * linear in the tree size, however deep the tree is. */
bool *hp_profile_outermost(const hp_profile *p)
{
    uint32_t *on_path = calloc(p->nregions + 1, sizeof(uint32_t));
    uint32_t *stack = malloc((p->ncnodes + 1) * sizeof(uint32_t));
    bool *outermost = malloc((p->ncnodes + 1) * sizeof(bool));
    if (on_path == NULL || stack == NULL || outermost == NULL) {
        free(outermost);
        outermost = NULL;
        goto out;
    }
    size_t top = 0;
    for (size_t n = 0; n < p->ncnodes; n++) {
        while (top > 0 && stack[top - 1] != p->cnodes[n].parent)
            on_path[p->cnodes[stack[--top]].region]--;
        outermost[n] = on_path[p->cnodes[n].region] == 0;
        on_path[p->cnodes[n].region]++;
        stack[top++] = (uint32_t)n;
    }
out:
    free(on_path);
    free(stack);
    return outermost;
}

/* Sums per region; inclusive only over outermost calls (no caller of the same region). */
static int region_totals(const report_ctx *c, region_total *t)
{
    const hp_profile *p = c->p;
    bool *outermost = hp_profile_outermost(p);
    if (outermost == NULL)
        return -1;
    hp_metric_dtype dt = c->metric->dtype;
    double none = dt == HP_DTYPE_MINDOUBLE ? INFINITY : 0;
    for (size_t r = 0; r < p->nregions; r++)
        t[r] = (region_total){ (uint32_t)r, 0, none, none };
    for (size_t n = 0; n < p->ncnodes; n++) {
        region_total *rt = &t[p->cnodes[n].region];
        rt->visits += c->visits.excl[n];
        rt->excl = combine(dt, rt->excl, c->view.excl[n]);
        if (outermost[n])
            rt->incl = combine(dt, rt->incl, c->view.incl[n]);
    }
    for (size_t r = 0; r < p->nregions; r++) { /* a region on no call path: 0 */
        t[r].excl = isinf(t[r].excl) ? 0 : t[r].excl;
        t[r].incl = isinf(t[r].incl) ? 0 : t[r].incl;
    }
    free(outermost);
    return 0;
}

static hp_table *flat_table_new(const report_ctx *c)
{
    char title[160], s[32], excl[48], incl[48];
    snprintf(title, sizeof(title), "Flat profile (%s, by %s %s)", scope(c, s, sizeof(s)),
             metric_is_sum(c) ? "exclusive" : own_word(c), c->metric->uniq_name);
    value_header(c, own_word(c), excl, sizeof(excl));
    value_header(c, subtree_word(c), incl, sizeof(incl));
    hp_cell_kind k = value_kind(c);
    unsigned pf = percent_flags(c);
    const hp_column_spec cols[] = {
        { "visits", "visits", HP_CELL_UINT, 14, "", 0 },
        { "excl", excl, k, 12, " ", 0 },
        { "excl_percent", "excl %", HP_CELL_PERCENT, 7, " ", pf },
        { "incl", incl, k, 12, " ", 0 },
        { "incl_percent", "incl %", HP_CELL_PERCENT, 7, " ", pf },
        { "region", "region", HP_CELL_TEXT, 0, "  ", 0 },
    };
    hp_table *t = HP_TABLE_NEW("flat", title, cols);
    if (t != NULL && !metric_is_sum(c) &&
        hp_table_set_note(t, "(%s is a %s per call path and thread, not a sum: a region's "
                             "value is the %s over its call paths, with no percentages)",
                          c->metric->uniq_name, metric_is_max(c) ? "maximum" : "minimum",
                          metric_is_max(c) ? "largest" : "smallest")) {
        hp_table_free(t);
        return NULL;
    }
    return t;
}

static hp_table *flat_profile(const report_ctx *c)
{
    const hp_profile *p = c->p;
    region_total *t = calloc(p->nregions + 1, sizeof(region_total));
    hp_table *tab = flat_table_new(c);
    if (t == NULL || tab == NULL || region_totals(c, t) != 0)
        goto fail;
    qsort(t, p->nregions, sizeof(region_total), by_exclusive_value);
    size_t rows = 0;
    for (size_t i = 0; i < p->nregions && (c->o->flat_rows == 0 || rows < c->o->flat_rows);
         i++) {
        if (t[i].visits == 0 && t[i].excl == 0 && t[i].incl == 0)
            continue; /* never entered */
        hp_table_cell *row = hp_table_add_row(tab);
        if (row == NULL || hp_table_cell_set_text(&row[5], p->regions[t[i].region].name))
            goto fail;
        row[0].u = hp_profile_count(t[i].visits);
        set_value(&row[1], t[i].excl);
        row[2].d = percent(t[i].excl, c->total);
        set_value(&row[3], t[i].incl);
        row[4].d = percent(t[i].incl, c->total);
        rows++;
    }
    free(t);
    return tab;
fail:
    free(t);
    hp_table_free(tab);
    return NULL;
}

/* ------------------------------------------------------------------ call tree */

static hp_table *tree_table_new(const report_ctx *c)
{
    char title[200], s[32], excl[48], incl[48];
    if (metric_is_sum(c))
        snprintf(title, sizeof(title), "Call tree (%s; to depth %d, paths >= %g%% of the total)",
                 scope(c, s, sizeof(s)), c->o->max_depth, c->o->min_percent);
    else
        snprintf(title, sizeof(title), "Call tree (%s; to depth %d; %s per call path)",
                 scope(c, s, sizeof(s)), c->o->max_depth, metric_is_max(c) ? "maximum" : "minimum");
    value_header(c, own_word(c), excl, sizeof(excl));
    value_header(c, subtree_word(c), incl, sizeof(incl));
    hp_cell_kind k = value_kind(c);
    const hp_column_spec cols[] = {
        { "cnode", NULL, HP_CELL_UINT, 0, "", HP_COL_DATA_ONLY },
        { "depth", NULL, HP_CELL_UINT, 0, "", HP_COL_DATA_ONLY },
        { "visits", "visits", HP_CELL_UINT, 14, "", 0 },
        { "incl", incl, k, 12, " ", 0 },
        { "excl", excl, k, 12, " ", 0 },
        { "incl_percent", "incl %", HP_CELL_PERCENT, 7, " ", percent_flags(c) },
        { "name", "call path", HP_CELL_TEXT, 0, "  ", HP_COL_TEXT_ONLY },
        { "path", NULL, HP_CELL_TEXT, 0, "", HP_COL_DATA_ONLY },
    };
    return HP_TABLE_NEW("calltree", title, cols);
}

static int tree_row(const report_ctx *c, hp_table *t, size_t n, size_t depth)
{
    hp_table_cell *row = hp_table_add_row(t);
    char *path = row != NULL ? call_path(c->p, n, true) : NULL;
    if (path == NULL || hp_table_cell_set_text(&row[6], region_name(c->p, n))) {
        free(path);
        return -1;
    }
    row[0].u = n;
    row[1].u = depth;
    row[2].u = hp_profile_count(c->visits.excl[n]);
    set_value(&row[3], c->view.incl[n]);
    set_value(&row[4], c->view.excl[n]);
    row[5].d = percent(c->view.incl[n], c->total);
    row[6].indent = (int)depth;
    row[7].s = path;
    return 0;
}

/* Walks the tree iteratively (trees can be thousands of levels deep). */
static hp_table *call_tree(const report_ctx *c)
{
    const hp_profile *p = c->p;
    size_t max_depth = c->o->max_depth < 0 ? 0 : (size_t)c->o->max_depth;
    /* A share of a maximum means nothing: every path is shown for those. */
    double min_value = metric_is_sum(c) ? c->o->min_percent / 100.0 * c->total : -INFINITY;
    size_t *depth = calloc(p->ncnodes, sizeof(size_t));
    hp_table *t = tree_table_new(c);
    if (depth == NULL || t == NULL)
        goto fail;
    size_t hidden = 0;
    for (size_t n = 0; n < p->ncnodes; n++) {
        if (n > 0)
            depth[n] = depth[p->cnodes[n].parent] + 1;
        bool parent_shown = n == 0 || depth[p->cnodes[n].parent] <= max_depth;
        if (depth[n] > max_depth || c->view.incl[n] < min_value) {
            hidden += parent_shown;
            depth[n] = max_depth + 1; /* hide the whole subtree */
            continue;
        }
        if (tree_row(c, t, n, depth[n]) != 0)
            goto fail;
    }
    if (hidden && hp_table_set_note(t, "(%zu subtrees below the depth or size limit not "
                                       "shown; profile.cubex has them all)", hidden))
        goto fail;
    free(depth);
    return t;
fail:
    free(depth);
    hp_table_free(t);
    return NULL;
}

/* ------------------------------------------------------------------ recursion */

static const hp_column_spec recursion_columns[] = {
    { "recursion_depth", "depth", HP_CELL_UINT, 10, "", 0 },
    { "visits", "visits", HP_CELL_UINT, 14, " ", 0 },
    { "path", "call path", HP_CELL_TEXT, 0, "  ", 0 },
};

static hp_table *recursion_table_new(void)
{
    return HP_TABLE_NEW("recursion", "Collapsed recursion (HP_PROFILING_RECURSION=collapse): "
                        "the most recursive calls open at once below one call of the path",
                        recursion_columns);
}

/* The call paths that recursed, with their recursion depth (the largest over the
 * selected locations); nothing when recursion was not collapsed or none recursed. */
static int recursion_table(const report_ctx *c, hp_table_list *out)
{
    const hp_profile_metric *m = hp_profile_find_metric(c->p, "recursion_depth");
    hp_metric_view depth = { NULL, NULL };
    if (m == NULL)
        return 0;
    if (hp_metric_view_init(&depth, c->p, m, c->selected) != 0)
        return -1;
    hp_table *t = NULL;
    int rc = 0;
    for (size_t n = 0; n < c->p->ncnodes && rc == 0; n++) {
        if (depth.excl[n] <= 0)
            continue;
        hp_table_cell *row = NULL;
        if ((t == NULL && (t = recursion_table_new()) == NULL) ||
            (row = hp_table_add_row(t)) == NULL || (row[2].s = call_path(c->p, n, true)) == NULL) {
            rc = -1;
            break;
        }
        row[0].u = hp_profile_count(depth.excl[n]);
        row[1].u = hp_profile_count(c->visits.excl[n]);
    }
    hp_metric_view_release(&depth);
    if (rc != 0) {
        hp_table_free(t);
        return -1;
    }
    return t != NULL ? hp_table_list_add(out, t) : 0;
}

/* ------------------------------------------------------------------ MPI */

typedef struct mpi_function_total {
    uint32_t region;
    double time;
} mpi_function_total;

static int by_time(const void *a, const void *b)
{
    const mpi_function_total *x = a, *y = b;
    return x->time < y->time ? 1 : x->time > y->time ? -1 : (int)x->region - (int)y->region;
}

static bool is_mpi(const hp_profile *p, size_t cnode)
{
    return strcmp(p->regions[p->cnodes[cnode].region].paradigm, "mpi") == 0;
}

/* Per process: time and calls in MPI region r (r = UINT32_MAX: all MPI regions), and
 * the process's total time (its locations' root inclusive time). */
static void process_sums(const report_ctx *c, size_t proc, uint32_t r, double *time,
                         uint64_t *calls, double *total)
{
    const hp_profile *p = c->p;
    const hp_profile_metric *visits = hp_profile_find_metric(p, "visits");
    size_t nl = p->nlocations;
    *time = *total = 0;
    *calls = 0;
    for (size_t l = 0; l < nl; l++) {
        if (p->locations[l].process != proc)
            continue;
        *total += c->time_incl[l];
        for (size_t n = 1; n < p->ncnodes; n++) {
            if (!is_mpi(p, n) || (r != UINT32_MAX && p->cnodes[n].region != r))
                continue;
            *time += c->time_incl[n * nl + l];
            *calls += visits != NULL ? hp_profile_count(value_at(visits, n * nl + l)) : 0;
        }
    }
}

/* MPI regions by their time over the selected locations. */
static size_t mpi_functions_by_time(const report_ctx *c, hp_metric_view *time,
                                    mpi_function_total *t)
{
    const hp_profile *p = c->p;
    size_t n = 0;
    for (size_t r = 0; r < p->nregions; r++) {
        if (strcmp(p->regions[r].paradigm, "mpi") != 0)
            continue;
        t[n] = (mpi_function_total){ (uint32_t)r, 0 };
        for (size_t k = 1; k < p->ncnodes; k++)
            if (p->cnodes[k].region == r)
                t[n].time += time->incl[k];
        n++;
    }
    qsort(t, n, sizeof(*t), by_time);
    return n;
}

static int mpi_table_columns(hp_table *t, const hp_profile *p, const mpi_function_total *f,
                             size_t cols)
{
    if (hp_table_add_column(t, "rank", "rank", HP_CELL_INT, 6, "", 0))
        return -1;
    for (size_t i = 0; i <= cols; i++) {
        const char *name = i < cols ? p->regions[f[i].region].name : "MPI total";
        char key[160];
        snprintf(key, sizeof(key), "%s_calls", i < cols ? name : "MPI");
        if (hp_table_add_column(t, key, name, HP_CELL_UINT, 12, " ", 0))
            return -1;
        snprintf(key, sizeof(key), "%s_percent", i < cols ? name : "MPI");
        if (hp_table_add_column(t, key, NULL, HP_CELL_PERCENT, 7, "/", 0))
            return -1;
    }
    return 0;
}

/* The total row of Limpio's table, as the table's note (the rank column holds numbers):
 * calls over the selected ranks and % of their summed time. */
static int mpi_table_total(const report_ctx *c, hp_table *t, const mpi_function_total *f,
                           size_t cols)
{
    const hp_profile *p = c->p;
    char line[2048];
    int used = snprintf(line, sizeof(line), "%6s", "all");
    for (size_t i = 0; i <= cols && used < (int)sizeof(line); i++) {
        double job_total = 0, job_time = 0;
        uint64_t job_calls = 0;
        for (size_t proc = 0; proc < p->nprocesses; proc++) {
            if (!c->proc_selected[proc])
                continue;
            double total, time;
            uint64_t calls;
            process_sums(c, proc, i < cols ? f[i].region : UINT32_MAX, &time, &calls, &total);
            job_total += total;
            job_time += time;
            job_calls += calls;
        }
        used += snprintf(line + used, sizeof(line) - (size_t)used, " %12llu/%6.2f%%",
                         (unsigned long long)job_calls, percent(job_time, job_total));
    }
    return hp_table_set_note(t, "%s", line);
}

/* Limpio's table: ranks x MPI functions, calls and % of the rank's time. */
static hp_table *mpi_table(const report_ctx *c, const mpi_function_total *f, size_t nf)
{
    const hp_profile *p = c->p;
    size_t cols = nf < MPI_TABLE_COLUMNS ? nf : MPI_TABLE_COLUMNS;
    char title[200];
    snprintf(title, sizeof(title), "MPI calls per rank (calls / %% of the rank's time; the %zu "
                                   "most time-consuming functions, then all MPI)", cols);
    hp_table *t = hp_table_new("mpi_ranks", title);
    if (t == NULL || mpi_table_columns(t, p, f, cols) != 0)
        goto fail;
    for (size_t proc = 0; proc < p->nprocesses; proc++) {
        if (!c->proc_selected[proc])
            continue;
        hp_table_cell *row = hp_table_add_row(t);
        if (row == NULL)
            goto fail;
        row[0].i = p->processes[proc].rank;
        for (size_t i = 0; i <= cols; i++) {
            double total, time;
            uint64_t calls;
            process_sums(c, proc, i < cols ? f[i].region : UINT32_MAX, &time, &calls, &total);
            row[1 + 2 * i].u = calls;
            row[2 + 2 * i].d = percent(time, total);
        }
    }
    if (mpi_table_total(c, t, f, cols) != 0)
        goto fail;
    return t;
fail:
    hp_table_free(t);
    return NULL;
}

typedef struct min_avg_max {
    double min, sum, max;
    size_t n;
} min_avg_max;

static void mam_add(min_avg_max *m, double v)
{
    m->min = m->n == 0 || v < m->min ? v : m->min;
    m->max = m->n == 0 || v > m->max ? v : m->max;
    m->sum += v;
    m->n++;
}

static int balance_row(hp_table *t, const char *label, const min_avg_max *m)
{
    hp_table_cell *row = hp_table_add_row(t);
    if (row == NULL || hp_table_cell_set_text(&row[0], label))
        return -1;
    row[0].indent = 1;
    row[1].d = m->min;
    row[2].d = m->n ? m->sum / (double)m->n : 0;
    row[3].d = m->max;
    return 0;
}

static const hp_column_spec balance_columns[] = {
    { "time_per_rank", "Time per rank (s)", HP_CELL_TEXT, 17, "", 0 },
    { "min", "min", HP_CELL_REAL, 12, " ", 0 },
    { "avg", "avg", HP_CELL_REAL, 12, " ", 0 },
    { "max", "max", HP_CELL_REAL, 12, " ", 0 },
};

/* MPI vs computation per rank: min / avg / max over the ranks. */
static hp_table *mpi_balance(const report_ctx *c)
{
    const hp_profile *p = c->p;
    min_avg_max mpi = { 0, 0, 0, 0 }, comp = { 0, 0, 0, 0 };
    for (size_t proc = 0; proc < p->nprocesses; proc++) {
        double total, time;
        uint64_t calls;
        if (!c->proc_selected[proc])
            continue;
        process_sums(c, proc, UINT32_MAX, &time, &calls, &total);
        mam_add(&mpi, time);
        mam_add(&comp, total - time);
    }
    hp_table *t = HP_TABLE_NEW("mpi_balance", NULL, balance_columns);
    if (t == NULL || balance_row(t, "in MPI", &mpi) || balance_row(t, "computation", &comp)) {
        hp_table_free(t);
        return NULL;
    }
    return t;
}

static int by_cnode_time(const void *a, const void *b, void *ctx)
{
    const double *incl = ctx;
    double x = incl[*(const size_t *)a], y = incl[*(const size_t *)b];
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The slowest selected rank's time in cnode n, and the average over selected ranks. */
static void path_imbalance(const report_ctx *c, size_t n, double *max, double *avg)
{
    const hp_profile *p = c->p;
    min_avg_max m = { 0, 0, 0, 0 };
    for (size_t proc = 0; proc < p->nprocesses; proc++) {
        if (!c->proc_selected[proc])
            continue;
        double t = 0;
        for (size_t l = 0; l < p->nlocations; l++)
            if (p->locations[l].process == proc)
                t += c->time_incl[n * p->nlocations + l];
        mam_add(&m, t);
    }
    *max = m.max;
    *avg = m.n ? m.sum / (double)m.n : 0;
}

static const hp_column_spec mpi_path_columns[] = {
    { "calls", "calls", HP_CELL_UINT, 14, "", 0 },
    { "time", "time (s)", HP_CELL_REAL, 12, " ", 0 },
    { "time_percent", "time %", HP_CELL_PERCENT, 7, " ", 0 },
    { "max_rank_time", "max (s)", HP_CELL_REAL, 12, " ", 0 },
    { "imbalance", "imbal", HP_CELL_RATIO, 6, " ", 0 },
    { "path", "call path", HP_CELL_TEXT, 0, "  ", 0 },
};

static hp_table *mpi_paths_table_new(const report_ctx *c)
{
    char title[160], s[32];
    snprintf(title, sizeof(title), "Top call paths into MPI (%s; max = slowest rank, "
             "imbalance = max / average over ranks)",
             c->o->rank < 0 ? "all ranks" : scope(c, s, sizeof(s)));
    return HP_TABLE_NEW("mpi_paths", title, mpi_path_columns);
}

static int mpi_path_row(const report_ctx *c, hp_table *t, const hp_metric_view *time,
                        double total, size_t n)
{
    hp_table_cell *row = hp_table_add_row(t);
    char *path = row != NULL ? call_path(c->p, n, false) : NULL;
    if (path == NULL)
        return -1;
    double max, avg;
    path_imbalance(c, n, &max, &avg);
    row[0].u = hp_profile_count(c->visits.excl[n]);
    row[1].d = time->incl[n];
    row[2].d = percent(time->incl[n], total);
    row[3].d = max;
    row[4].d = avg > 0 ? max / avg : 0;
    row[5].s = path;
    return 0;
}

static hp_table *mpi_paths(const report_ctx *c, hp_metric_view *time)
{
    const hp_profile *p = c->p;
    size_t *paths = malloc((p->ncnodes + 1) * sizeof(size_t)), n = 0;
    hp_table *t = mpi_paths_table_new(c);
    if (paths == NULL || t == NULL)
        goto fail;
    for (size_t k = 1; k < p->ncnodes; k++)
        if (is_mpi(p, k))
            paths[n++] = k;
    qsort_r(paths, n, sizeof(size_t), by_cnode_time, time->incl);
    for (size_t i = 0; i < n && i < MPI_TOP_PATHS; i++)
        if (mpi_path_row(c, t, time, time->incl[0], paths[i]) != 0)
            goto fail;
    free(paths);
    return t;
fail:
    free(paths);
    hp_table_free(t);
    return NULL;
}

static int unmeasured_row(hp_table *t, const hp_profile *p, size_t i, bool *done)
{
    uint64_t total = 0, min = UINT64_MAX, max = 0;
    size_t ranks = 0;
    for (size_t j = i; j < p->nunmeasured; j++) {
        if (strcmp(p->unmeasured[j].name, p->unmeasured[i].name) != 0)
            continue;
        done[j] = true;
        uint64_t calls = p->unmeasured[j].calls;
        total += calls;
        min = calls < min ? calls : min;
        max = calls > max ? calls : max;
        ranks++;
    }
    if (ranks < p->nprocesses) /* ranks without an entry made no such call */
        min = 0;
    hp_table_cell *row = hp_table_add_row(t);
    if (row == NULL || hp_table_cell_set_text(&row[3], p->unmeasured[i].name))
        return -1;
    row[0].u = total;
    row[1].u = min;
    row[2].u = max;
    return 0;
}

static const hp_column_spec unmeasured_columns[] = {
    { "calls", "calls", HP_CELL_UINT, 14, "", 0 },
    { "min_per_rank", "min/rank", HP_CELL_UINT, 12, " ", 0 },
    { "max_per_rank", "max/rank", HP_CELL_UINT, 12, " ", 0 },
    { "function", "function", HP_CELL_TEXT, 0, "  ", 0 },
};

/* One row per function: calls over all ranks and the fewest and most of one rank. */
static hp_table *unmeasured(const hp_profile *p)
{
    bool *done = calloc(p->nunmeasured + 1, sizeof(bool));
    hp_table *t = HP_TABLE_NEW("mpi_unmeasured", "MPI calls counted but not measured "
                               "(HP_MPI_ENABLE_GROUPS, HP_MPI_EXCLUDE)", unmeasured_columns);
    if (done == NULL || t == NULL)
        goto fail;
    for (size_t i = 0; i < p->nunmeasured; i++)
        if (!done[i] && unmeasured_row(t, p, i, done) != 0)
            goto fail;
    free(done);
    return t;
fail:
    free(done);
    hp_table_free(t);
    return NULL;
}

static int mpi_section(const report_ctx *c, hp_table_list *out)
{
    const hp_profile *p = c->p;
    if (c->time == NULL)
        return 0; /* the MPI tables are about time */
    mpi_function_total *f = calloc(p->nregions + 1, sizeof(*f));
    hp_metric_view time = { NULL, NULL };
    int rc = -1;
    if (f == NULL || hp_metric_view_init(&time, p, c->time, c->selected) != 0)
        goto out;
    size_t n = mpi_functions_by_time(c, &time, f);
    rc = 0;
    if (n > 0 || p->nunmeasured > 0) {
        rc = hp_table_list_add(out, mpi_table(c, f, n));
        rc = rc ? rc : hp_table_list_add(out, mpi_balance(c));
        rc = rc ? rc : hp_table_list_add(out, mpi_paths(c, &time));
        if (p->nunmeasured > 0)
            rc = rc ? rc : hp_table_list_add(out, unmeasured(p));
    }
out:
    free(f);
    hp_metric_view_release(&time);
    return rc;
}

/* ------------------------------------------------------------------ entry points */

int hp_report_tables(const hp_profile *p, const hp_report_options *o, hp_table_list *out,
                     char *err, size_t errlen)
{
    report_ctx c = { .p = p, .o = o, .err = err, .errlen = errlen };
    int rc = ctx_init(&c);
    if (rc == 0 && (mpi_section(&c, out) != 0 ||
                    hp_report_wait_table(p, c.proc_selected, out) != 0 ||
                    hp_report_counter_table(p, c.proc_selected, out) != 0 ||
                    hp_report_derived_table(p, c.proc_selected, out) != 0 ||
                    hp_table_list_add(out, flat_profile(&c)) ||
                    hp_table_list_add(out, call_tree(&c)) ||
                    recursion_table(&c, out) != 0))
        rc = fail(&c, "out of memory", "");
    ctx_release(&c);
    return rc;
}

void hp_report_write_header(FILE *out, const hp_profile *p, const char *title,
                            const hp_summary_notes *notes)
{
    const hp_profile_metric *time = hp_profile_find_metric(p, "time");
    hp_metric_view v = { NULL, NULL };
    double total = time != NULL && p->ncnodes > 0 && hp_metric_view_init(&v, p, time, NULL) == 0
                       ? v.incl[0]
                       : 0;
    hp_metric_view_release(&v);
    fprintf(out, "%s\n\n", title);
    if (p->nprocesses > 1)
        fprintf(out, "processes:   %zu (MPI ranks)\n", p->nprocesses);
    fprintf(out, "locations:   %zu (threads)\n", p->nlocations);
    fprintf(out, "total time:  %.6f s (sum over locations)\n", total);
    fprintf(out, "regions:     %zu, call paths: %zu\n", p->nregions, p->ncnodes);
    if (p->interrupted != NULL && p->interrupted[0] != '\0')
        fprintf(out, "incomplete:  %s\n", p->interrupted);
    if (notes == NULL) {
        fputc('\n', out);
        return;
    }
    fprintf(out, "timer:       %s\n\n", notes->timer);
    if (notes->warnings != NULL && notes->warnings[0] != NULL) {
        fprintf(out, "Measurement notes:\n");
        for (const char *const *w = notes->warnings; *w != NULL; w++)
            fprintf(out, "  - %s\n", *w);
        fputc('\n', out);
    }
}

int hp_summary_write(FILE *out, const hp_profile *p, const hp_summary_notes *notes)
{
    if (hp_profile_find_metric(p, "visits") == NULL || p->ncnodes == 0)
        return -1;
    hp_report_options o;
    hp_report_options_init(&o);
    hp_table_list tables = { NULL, 0 };
    char err[160];
    if (hp_report_tables(p, &o, &tables, err, sizeof(err)) != 0)
        return -1;
    char title[512];
    snprintf(title, sizeof(title), "hpmeasure summary: %s", notes->program);
    hp_report_write_header(out, p, title, notes);
    hp_summary_write_sampling(out, &p->sampling);
    hp_summary_write_instrumentation(out, p);
    for (size_t i = 0; i < tables.n; i++)
        hp_table_write_text(out, tables.tables[i]);
    hp_table_list_release(&tables);
    return ferror(out) ? -1 : 0;
}
