/*
 * The text summary: a flat profile (regions by exclusive time, over all locations)
 * and the call tree down to a readable depth, skipping paths below 0.1% of the total.
 *
 * A region's inclusive time in the flat profile counts only its outermost calls, so
 * recursive functions are not counted once per nesting level.
 */
#include "summary.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { TREE_MAX_DEPTH = 24, FLAT_MAX_ROWS = 40 };
#define TREE_MIN_SHARE 0.001

typedef struct region_total {
    uint32_t region;
    uint64_t visits;
    double excl;
    double incl;
} region_total;

typedef struct summary_ctx {
    const hp_profile *p;
    const uint64_t *visits;
    const double *time;
    double *incl;  /* per cnode, summed over locations */
    double *excl;
    uint64_t *cnode_visits;
    double total;
} summary_ctx;

static const hp_profile_metric *find_metric(const hp_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nmetrics; i++)
        if (strcmp(p->metrics[i].uniq_name, name) == 0)
            return &p->metrics[i];
    return NULL;
}

/* Sums the per-location values per cnode and derives exclusive time. */
static int sum_over_locations(summary_ctx *c)
{
    const hp_profile *p = c->p;
    c->incl = calloc(p->ncnodes, sizeof(double));
    c->excl = calloc(p->ncnodes, sizeof(double));
    c->cnode_visits = calloc(p->ncnodes, sizeof(uint64_t));
    if (c->incl == NULL || c->excl == NULL || c->cnode_visits == NULL)
        return -1;
    for (size_t n = 0; n < p->ncnodes; n++)
        for (size_t l = 0; l < p->nlocations; l++) {
            c->incl[n] += c->time[n * p->nlocations + l];
            c->cnode_visits[n] += c->visits[n * p->nlocations + l];
        }
    for (size_t n = 0; n < p->ncnodes; n++)
        c->excl[n] = c->incl[n];
    for (size_t n = 1; n < p->ncnodes; n++)
        c->excl[p->cnodes[n].parent] -= c->incl[n];
    c->total = c->incl[0];
    return 0;
}

static bool has_ancestor_region(const hp_profile *p, size_t n, uint32_t region)
{
    for (uint32_t a = p->cnodes[n].parent; a != HP_PROFILE_NO_PARENT; a = p->cnodes[a].parent)
        if (p->cnodes[a].region == region)
            return true;
    return false;
}

static int by_exclusive_time(const void *a, const void *b)
{
    const region_total *x = a, *y = b;
    return x->excl < y->excl ? 1 : x->excl > y->excl ? -1 : (int)x->region - (int)y->region;
}

static double percent(double part, double total)
{
    return total > 0 ? 100.0 * part / total : 0.0;
}

static void write_flat_profile(FILE *out, const summary_ctx *c)
{
    const hp_profile *p = c->p;
    region_total *t = calloc(p->nregions, sizeof(region_total));
    if (t == NULL)
        return;
    for (size_t r = 0; r < p->nregions; r++)
        t[r].region = (uint32_t)r;
    for (size_t n = 0; n < p->ncnodes; n++) {
        region_total *rt = &t[p->cnodes[n].region];
        rt->visits += c->cnode_visits[n];
        rt->excl += c->excl[n];
        if (!has_ancestor_region(p, n, p->cnodes[n].region))
            rt->incl += c->incl[n];
    }
    qsort(t, p->nregions, sizeof(region_total), by_exclusive_time);
    fprintf(out, "Flat profile (all locations, by exclusive time)\n\n");
    fprintf(out, "%14s %12s %7s %12s %7s  %s\n", "visits", "excl (s)", "excl %", "incl (s)",
            "incl %", "region");
    size_t rows = 0;
    for (size_t i = 0; i < p->nregions && rows < FLAT_MAX_ROWS; i++) {
        if (t[i].visits == 0)
            continue;
        fprintf(out, "%14llu %12.6f %6.2f%% %12.6f %6.2f%%  %s\n",
                (unsigned long long)t[i].visits, t[i].excl, percent(t[i].excl, c->total),
                t[i].incl, percent(t[i].incl, c->total), p->regions[t[i].region].name);
        rows++;
    }
    fputc('\n', out);
    free(t);
}

/* Writes the call tree iteratively (trees can be thousands of levels deep). */
static void write_call_tree(FILE *out, const summary_ctx *c)
{
    const hp_profile *p = c->p;
    fprintf(out, "Call tree (all locations; to depth %d, paths >= %.1f%% of the total)\n\n",
            TREE_MAX_DEPTH, 100 * TREE_MIN_SHARE);
    fprintf(out, "%14s %12s %12s %7s  %s\n", "visits", "incl (s)", "excl (s)", "incl %",
            "call path");
    size_t *depth = calloc(p->ncnodes, sizeof(size_t));
    if (depth == NULL)
        return;
    size_t hidden = 0;
    for (size_t n = 0; n < p->ncnodes; n++) {
        if (n > 0)
            depth[n] = depth[p->cnodes[n].parent] + 1;
        bool parent_shown = n == 0 || depth[p->cnodes[n].parent] <= TREE_MAX_DEPTH;
        if (depth[n] > TREE_MAX_DEPTH || c->incl[n] < TREE_MIN_SHARE * c->total) {
            hidden += parent_shown;
            depth[n] = TREE_MAX_DEPTH + 1; /* hide the whole subtree */
            continue;
        }
        fprintf(out, "%14llu %12.6f %12.6f %6.2f%%  %*s%s\n",
                (unsigned long long)c->cnode_visits[n], c->incl[n], c->excl[n],
                percent(c->incl[n], c->total), (int)(2 * depth[n]), "",
                p->regions[p->cnodes[n].region].name);
    }
    if (hidden)
        fprintf(out, "(%zu subtrees below the depth or size limit not shown; "
                     "profile.cubex has them all)\n", hidden);
    fputc('\n', out);
    free(depth);
}

/* ---- MPI ------------------------------------------------------------------------- */

enum { MPI_TABLE_COLUMNS = 6, MPI_TOP_PATHS = 10 };

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
static void process_sums(const summary_ctx *c, size_t proc, uint32_t r, double *time,
                         uint64_t *calls, double *total)
{
    const hp_profile *p = c->p;
    *time = *total = 0;
    *calls = 0;
    for (size_t l = 0; l < p->nlocations; l++) {
        if (p->locations[l].process != proc)
            continue;
        *total += c->time[l];
        for (size_t n = 1; n < p->ncnodes; n++) {
            if (!is_mpi(p, n) || (r != UINT32_MAX && p->cnodes[n].region != r))
                continue;
            *time += c->time[n * p->nlocations + l];
            *calls += c->visits[n * p->nlocations + l];
        }
    }
}

static size_t mpi_functions_by_time(const summary_ctx *c, mpi_function_total *t)
{
    const hp_profile *p = c->p;
    size_t n = 0;
    for (size_t r = 0; r < p->nregions; r++) {
        if (strcmp(p->regions[r].paradigm, "mpi") != 0)
            continue;
        t[n] = (mpi_function_total){ (uint32_t)r, 0 };
        for (size_t k = 1; k < p->ncnodes; k++)
            if (p->cnodes[k].region == r)
                t[n].time += c->incl[k];
        n++;
    }
    qsort(t, n, sizeof(*t), by_time);
    return n;
}

/* Limpio's table: ranks x MPI functions, calls and % of the rank's time. */
static void write_mpi_table(FILE *out, const summary_ctx *c, const mpi_function_total *t,
                            size_t nfunctions)
{
    const hp_profile *p = c->p;
    size_t cols = nfunctions < MPI_TABLE_COLUMNS ? nfunctions : MPI_TABLE_COLUMNS;
    fprintf(out, "MPI calls per rank (calls / %% of the rank's time; the %zu most "
                 "time-consuming functions, then all MPI)\n\n%6s", cols, "rank");
    for (size_t f = 0; f < cols; f++)
        fprintf(out, " %20.20s", p->regions[t[f].region].name);
    fprintf(out, " %20s\n", "MPI total");
    for (size_t proc = 0; proc < p->nprocesses; proc++) {
        double total, time;
        uint64_t calls;
        fprintf(out, "%6d", p->processes[proc].rank);
        for (size_t f = 0; f <= cols; f++) {
            process_sums(c, proc, f < cols ? t[f].region : UINT32_MAX, &time, &calls, &total);
            fprintf(out, " %12llu/%6.2f%%", (unsigned long long)calls, percent(time, total));
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}

static void write_mpi_balance(FILE *out, const summary_ctx *c)
{
    const hp_profile *p = c->p;
    double min_mpi = 0, max_mpi = 0, sum_mpi = 0, min_comp = 0, max_comp = 0, sum_comp = 0;
    for (size_t proc = 0; proc < p->nprocesses; proc++) {
        double total, mpi;
        uint64_t calls;
        process_sums(c, proc, UINT32_MAX, &mpi, &calls, &total);
        double comp = total - mpi;
        min_mpi = proc == 0 || mpi < min_mpi ? mpi : min_mpi;
        max_mpi = proc == 0 || mpi > max_mpi ? mpi : max_mpi;
        min_comp = proc == 0 || comp < min_comp ? comp : min_comp;
        max_comp = proc == 0 || comp > max_comp ? comp : max_comp;
        sum_mpi += mpi;
        sum_comp += comp;
    }
    double n = (double)p->nprocesses;
    fprintf(out, "Time per rank (s)          min          avg          max\n");
    fprintf(out, "  in MPI          %12.6f %12.6f %12.6f\n", min_mpi, sum_mpi / n, max_mpi);
    fprintf(out, "  computation     %12.6f %12.6f %12.6f\n\n", min_comp, sum_comp / n,
            max_comp);
}

static void write_path(FILE *out, const hp_profile *p, size_t n)
{
    if (p->cnodes[n].parent != HP_PROFILE_NO_PARENT && p->cnodes[n].parent != 0) {
        write_path(out, p, p->cnodes[n].parent);
        fputc('/', out);
    }
    fputs(p->regions[p->cnodes[n].region].name, out);
}

static int by_cnode_time(const void *a, const void *b, void *ctx)
{
    const double *incl = ctx;
    double x = incl[*(const size_t *)a], y = incl[*(const size_t *)b];
    return x < y ? 1 : x > y ? -1 : 0;
}

static void write_mpi_paths(FILE *out, const summary_ctx *c)
{
    const hp_profile *p = c->p;
    size_t *paths = malloc(p->ncnodes * sizeof(size_t)), n = 0;
    if (paths == NULL)
        return;
    for (size_t k = 1; k < p->ncnodes; k++)
        if (is_mpi(p, k))
            paths[n++] = k;
    qsort_r(paths, n, sizeof(size_t), by_cnode_time, c->incl);
    fprintf(out, "Top call paths into MPI (all ranks)\n\n%14s %12s %7s  %s\n", "calls",
            "time (s)", "time %", "call path");
    for (size_t i = 0; i < n && i < MPI_TOP_PATHS; i++) {
        fprintf(out, "%14llu %12.6f %6.2f%%  ", (unsigned long long)c->cnode_visits[paths[i]],
                c->incl[paths[i]], percent(c->incl[paths[i]], c->total));
        write_path(out, p, paths[i]);
        fputc('\n', out);
    }
    fputc('\n', out);
    free(paths);
}

/* One row per function: calls over all ranks and the fewest and most of one rank. */
static void write_unmeasured(FILE *out, const hp_profile *p)
{
    if (p->nunmeasured == 0)
        return;
    fprintf(out, "MPI calls counted but not measured (HP_MPI_ENABLE_GROUPS, HP_MPI_EXCLUDE)\n\n"
                 "%14s %12s %12s  %s\n", "calls", "min/rank", "max/rank", "function");
    bool *done = calloc(p->nunmeasured, sizeof(bool));
    if (done == NULL)
        return;
    for (size_t i = 0; i < p->nunmeasured; i++) {
        if (done[i])
            continue;
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
        fprintf(out, "%14llu %12llu %12llu  %s\n", (unsigned long long)total,
                (unsigned long long)min, (unsigned long long)max, p->unmeasured[i].name);
    }
    fputc('\n', out);
    free(done);
}

static void write_mpi_section(FILE *out, const summary_ctx *c)
{
    mpi_function_total *t = calloc(c->p->nregions, sizeof(*t));
    if (t == NULL)
        return;
    size_t n = mpi_functions_by_time(c, t);
    if (n > 0 || c->p->nunmeasured > 0) {
        write_mpi_table(out, c, t, n);
        write_mpi_balance(out, c);
        write_mpi_paths(out, c);
        write_unmeasured(out, c->p);
    }
    free(t);
}

static void write_header(FILE *out, const summary_ctx *c, const hp_summary_notes *notes)
{
    fprintf(out, "hpmeasure summary: %s\n\n", notes->program);
    if (c->p->nprocesses > 1)
        fprintf(out, "processes:   %zu (MPI ranks)\n", c->p->nprocesses);
    fprintf(out, "locations:   %zu (threads)\n", c->p->nlocations);
    fprintf(out, "total time:  %.6f s (sum over locations)\n", c->total);
    fprintf(out, "regions:     %zu, call paths: %zu\n", c->p->nregions, c->p->ncnodes);
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
    const hp_profile_metric *visits = find_metric(p, "visits");
    const hp_profile_metric *time = find_metric(p, "time");
    if (visits == NULL || time == NULL || p->ncnodes == 0)
        return -1;
    summary_ctx c = { p, visits->values, time->values, NULL, NULL, NULL, 0 };
    int rc = -1;
    if (sum_over_locations(&c) == 0) {
        write_header(out, &c, notes);
        write_mpi_section(out, &c);
        write_flat_profile(out, &c);
        write_call_tree(out, &c);
        rc = ferror(out) ? -1 : 0;
    }
    free(c.incl);
    free(c.excl);
    free(c.cnode_visits);
    return rc;
}
