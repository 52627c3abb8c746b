/*
 * hp-report score: the scorep-score of hpmeasure. For every region and region type it
 * sums visits and time over all locations and estimates the trace bytes and memory that
 * a run with HP_ENABLE_TRACING=true would need, so that users can choose
 * HP_TOTAL_MEMORY; with --suggest-filter it writes a Score-P filter of the short, very
 * frequent user functions that are not on a call path to MPI (the hybrid-profiling
 * paper's observation: they dominate overhead and events but say little).
 *
 * The model and thresholds are in report_score.h and doc/hp-report-score-html.md.
 */
#include "report_score.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cube_reader.h"
#include "profile/summary.h"
#include "report.h"
#include "report_load.h"

enum { EXIT_WORK_FAILED = 1, EXIT_BAD_INPUT = 2 };

static const char *const type_names[HP_SCORE_NTYPES] = { "USR", "COM", "MPI", "OMP", "ART" };

const char *hp_score_type_name(hp_score_type t)
{
    return t < HP_SCORE_NTYPES ? type_names[t] : "?";
}

static const hp_profile_metric *find_metric(const hp_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nmetrics; i++)
        if (strcmp(p->metrics[i].uniq_name, name) == 0)
            return &p->metrics[i];
    return NULL;
}

static double value_at(const hp_profile_metric *m, size_t i)
{
    if (m->dtype == HP_DTYPE_UINT64)
        return (double)((const uint64_t *)m->values)[i];
    return ((const double *)m->values)[i];
}

static bool streq(const char *a, const char *b)
{
    return a != NULL && strcmp(a, b) == 0;
}

static bool is_collective_role(const char *role)
{
    static const char *const roles[] = { "barrier", "implicit barrier", "one2one", "one2all",
                                         "all2one", "all2all", "other collective" };
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
        if (streq(role, roles[i]))
            return true;
    return false;
}

uint64_t hp_score_visit_bytes(const hp_profile_region *r)
{
    uint64_t bytes = 2 * HP_SCORE_EVENT_BYTES;
    if (!streq(r->paradigm, "mpi"))
        return bytes;
    if (streq(r->role, "point2point"))
        bytes += HP_SCORE_MESSAGE_EVENT_BYTES;
    else if (is_collective_role(r->role))
        bytes += 2 * HP_SCORE_COLLECTIVE_EVENT_BYTES;
    return bytes;
}

uint64_t hp_score_suggest_memory(uint64_t needed)
{
    const uint64_t mib = 1024 * 1024;
    uint64_t with_headroom = needed + needed / 4;
    return (with_headroom + mib - 1) / mib * mib;
}

/* The type of a region by its own definition; user code is USR until classify_regions
 * finds a call path from it to MPI or OpenMP. */
static hp_score_type own_type(const hp_profile_region *r)
{
    if (streq(r->paradigm, "mpi"))
        return HP_SCORE_MPI;
    if (streq(r->paradigm, "openmp"))
        return HP_SCORE_OMP;
    if (streq(r->paradigm, "measurement") || streq(r->role, "artificial"))
        return HP_SCORE_ART;
    return HP_SCORE_USR;
}

/* User regions with a call path into MPI/OpenMP become COM. Each cnode is marked once
 * (the upward walk stops at a marked cnode), so this is linear in the tree size. */
int hp_score_classify(const hp_profile *p, hp_score_type *types)
{
    bool *leads_to_comm = calloc(p->ncnodes ? p->ncnodes : 1, sizeof(bool));
    if (leads_to_comm == NULL)
        return -1;
    for (uint32_t r = 0; r < p->nregions; r++)
        types[r] = own_type(&p->regions[r]);
    for (size_t n = 0; n < p->ncnodes; n++) {
        hp_score_type t = types[p->cnodes[n].region];
        if (t != HP_SCORE_MPI && t != HP_SCORE_OMP)
            continue;
        for (uint32_t a = p->cnodes[n].parent; a != HP_PROFILE_NO_PARENT && !leads_to_comm[a];
             a = p->cnodes[a].parent) {
            leads_to_comm[a] = true;
            if (types[p->cnodes[a].region] == HP_SCORE_USR)
                types[p->cnodes[a].region] = HP_SCORE_COM;
        }
    }
    free(leads_to_comm);
    return 0;
}

static int classify_regions(const hp_profile *p, hp_score *s)
{
    hp_score_type *types = malloc((p->nregions ? p->nregions : 1) * sizeof(hp_score_type));
    if (types == NULL || hp_score_classify(p, types) != 0) {
        free(types);
        return -1;
    }
    for (uint32_t r = 0; r < p->nregions; r++)
        s->regions[r].type = types[r];
    free(types);
    return 0;
}

/* Exclusive and inclusive time of every (cnode, location), whatever the metric's kind.
 * Pre-order numbering (parent < child) lets one backward pass fold children into
 * parents. */
static int split_time(const hp_profile *p, const hp_profile_metric *time, double **excl_out,
                      double **incl_out)
{
    size_t nl = p->nlocations, count = p->ncnodes * nl;
    double *excl = malloc((count ? count : 1) * sizeof(double));
    double *incl = malloc((count ? count : 1) * sizeof(double));
    if (excl == NULL || incl == NULL) {
        free(excl);
        free(incl);
        return -1;
    }
    bool inclusive = time->kind == HP_METRIC_INCLUSIVE;
    for (size_t i = 0; i < count; i++)
        excl[i] = incl[i] = value_at(time, i);
    for (size_t n = p->ncnodes; n-- > 1;) {
        size_t parent = p->cnodes[n].parent;
        for (size_t l = 0; l < nl; l++) {
            if (inclusive)
                excl[parent * nl + l] -= incl[n * nl + l];
            else
                incl[parent * nl + l] += incl[n * nl + l];
        }
    }
    *excl_out = excl;
    *incl_out = incl;
    return 0;
}

/* Visits, time and call-path counts per region. */
static void sum_regions(const hp_profile *p, hp_score *s, const hp_profile_metric *visits,
                        const double *excl, const double *incl)
{
    size_t nl = p->nlocations;
    bool *outermost_flags = hp_profile_outermost(p);
    for (size_t n = 0; n < p->ncnodes; n++) {
        uint32_t r = p->cnodes[n].region;
        hp_score_row *row = &s->regions[r];
        bool outermost = outermost_flags == NULL || outermost_flags[n];
        row->cnodes++;
        for (size_t l = 0; l < nl; l++) {
            row->visits += (uint64_t)llround(value_at(visits, n * nl + l));
            row->time_excl += excl[n * nl + l];
            if (outermost)
                row->time_incl += incl[n * nl + l];
        }
    }
    free(outermost_flags);
}

static uint64_t round_up(uint64_t x, uint64_t unit)
{
    return (x + unit - 1) / unit * unit;
}

/* Trace bytes and profile memory of one process (locations first..end-1), and each
 * region's share of the process's trace (kept as the region's max_buf when largest). */
/* The process's locations are found by their process index, not assumed contiguous:
 * files written by other tools may number locations in any order. */
static void score_process(const hp_profile *p, hp_score *s, const hp_profile_metric *visits,
                          size_t proc, uint64_t *region_bytes)
{
    size_t nl = p->nlocations;
    uint64_t trace = 0, buffer = 0, profile = HP_SCORE_PROCESS_BYTES;
    memset(region_bytes, 0, p->nregions * sizeof(uint64_t));
    profile += (uint64_t)p->nregions * HP_SCORE_REGION_BYTES;
    for (size_t l = 0; l < nl; l++) {
        if (p->locations[l].process != proc)
            continue;
        uint64_t loc_trace = 0;
        profile += HP_SCORE_LOCATION_BYTES;
        for (size_t n = 0; n < p->ncnodes; n++) {
            uint64_t v = (uint64_t)llround(value_at(visits, n * nl + l));
            if (v == 0)
                continue;
            uint32_t r = p->cnodes[n].region;
            uint64_t bytes = v * hp_score_visit_bytes(&p->regions[r]);
            region_bytes[r] += bytes;
            loc_trace += bytes;
            profile += HP_SCORE_CNODE_BYTES;
        }
        trace += loc_trace;
        buffer += round_up(loc_trace, HP_SCORE_TRACE_PAGE_BYTES) + HP_SCORE_TRACE_PAGE_BYTES;
    }
    uint64_t type_bytes[HP_SCORE_NTYPES] = { 0 };
    for (uint32_t r = 0; r < p->nregions; r++) {
        s->regions[r].trace_bytes += region_bytes[r];
        if (region_bytes[r] > s->regions[r].max_buf)
            s->regions[r].max_buf = region_bytes[r];
        type_bytes[s->regions[r].type] += region_bytes[r];
    }
    for (int t = 0; t < HP_SCORE_NTYPES; t++)
        if (type_bytes[t] > s->type_max_buf[t])
            s->type_max_buf[t] = type_bytes[t];
    s->process_trace_bytes[proc] = trace;
    s->process_profile_bytes[proc] = profile;
    if (buffer > s->max_trace_buffer)
        s->max_trace_buffer = buffer;
    if (profile > s->max_profile_bytes)
        s->max_profile_bytes = profile;
    if (profile > s->memory_profiling)
        s->memory_profiling = profile;
    if (profile + buffer > s->memory_tracing)
        s->memory_tracing = profile + buffer;
}

/* Locations are numbered processes first (profile.h), so each process's locations are
 * contiguous; a process without locations scores zero. */
static int score_processes(const hp_profile *p, hp_score *s, const hp_profile_metric *visits)
{
    uint64_t *region_bytes = malloc((p->nregions ? p->nregions : 1) * sizeof(uint64_t));
    if (region_bytes == NULL)
        return -1;
    for (size_t proc = 0; proc < p->nprocesses; proc++)
        score_process(p, s, visits, proc, region_bytes);
    free(region_bytes);
    return 0;
}

static void add_row(hp_score_row *sum, const hp_score_row *row)
{
    sum->visits += row->visits;
    sum->time_excl += row->time_excl;
    sum->trace_bytes += row->trace_bytes;
    sum->cnodes += row->cnodes;
}

/* Type and overall rows. Inclusive time of a type is not a sum of its regions (they
 * nest), so only ALL gets one: the root's. max_buf is not a sum either: a row's max_buf
 * is the largest trace one process writes for the row's regions (score_process), so
 * no type row exceeds ALL, whatever process each region peaks on. */
static void sum_types(const hp_profile *p, hp_score *s)
{
    for (int t = 0; t < HP_SCORE_NTYPES; t++)
        s->types[t] = (hp_score_row){ .type = (hp_score_type)t };
    s->all = (hp_score_row){ .type = HP_SCORE_NTYPES };
    for (uint32_t r = 0; r < p->nregions; r++) {
        add_row(&s->types[s->regions[r].type], &s->regions[r]);
        add_row(&s->all, &s->regions[r]);
    }
    for (int t = 0; t < HP_SCORE_NTYPES; t++)
        s->types[t].max_buf = s->type_max_buf[t];
    s->all.max_buf = 0;
    for (size_t proc = 0; proc < p->nprocesses; proc++)
        if (s->process_trace_bytes[proc] > s->all.max_buf)
            s->all.max_buf = s->process_trace_bytes[proc];
    s->all.time_incl = p->ncnodes ? s->regions[p->cnodes[0].region].time_incl : 0;
}

static int fail(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return -1;
}

int hp_score_compute(const hp_profile *p, hp_score *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    s->profile = p;
    const hp_profile_metric *visits = find_metric(p, "visits");
    const hp_profile_metric *time = find_metric(p, "time");
    if (visits == NULL || time == NULL)
        return fail(err, errlen, visits ? "no metric 'time' in the profile"
                                        : "no metric 'visits' in the profile");
    s->regions = calloc(p->nregions ? p->nregions : 1, sizeof(hp_score_row));
    s->process_trace_bytes = calloc(p->nprocesses ? p->nprocesses : 1, sizeof(uint64_t));
    s->process_profile_bytes = calloc(p->nprocesses ? p->nprocesses : 1, sizeof(uint64_t));
    double *excl = NULL, *incl = NULL;
    if (s->regions == NULL || s->process_trace_bytes == NULL ||
        s->process_profile_bytes == NULL || classify_regions(p, s) != 0 ||
        split_time(p, time, &excl, &incl) != 0) {
        hp_score_release(s);
        return fail(err, errlen, "out of memory");
    }
    sum_regions(p, s, visits, excl, incl);
    free(excl);
    free(incl);
    if (score_processes(p, s, visits) != 0) {
        hp_score_release(s);
        return fail(err, errlen, "out of memory");
    }
    sum_types(p, s);
    return 0;
}

void hp_score_release(hp_score *s)
{
    free(s->regions);
    free(s->process_trace_bytes);
    free(s->process_profile_bytes);
    memset(s, 0, sizeof(*s));
}

bool hp_score_suggests(const hp_score *s, uint32_t r, const hp_score_thresholds *t)
{
    const hp_score_row *row = &s->regions[r];
    if (row->type != HP_SCORE_USR || row->visits == 0 || row->visits < t->min_visits)
        return false;
    double us_per_visit = 1e6 * row->time_incl / (double)row->visits;
    double share = s->all.trace_bytes ? 100.0 * (double)row->trace_bytes / (double)s->all.trace_bytes : 0;
    return us_per_visit <= t->max_us_per_visit && share >= t->min_share_pct;
}

/* ------------------------------------------------------------------ text output */

/* "12.3 MiB": for the summary lines; the tables give exact bytes. */
static const char *human_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

static double percent(double part, double total)
{
    return total > 0 ? 100.0 * part / total : 0.0;
}

static int write_row(FILE *out, const hp_score *s, const char *type, const hp_score_row *row,
                     const char *name)
{
    double per_visit = row->visits ? 1e6 * row->time_excl / (double)row->visits : 0;
    return fprintf(out, "%5s %14" PRIu64 " %16" PRIu64 " %14" PRIu64 " %12.6f %7.2f %14.3f  %s\n",
                   type, row->max_buf, row->trace_bytes, row->visits, row->time_excl,
                   percent(row->time_excl, s->all.time_excl), per_visit, name) < 0
               ? -1
               : 0;
}

static int write_summary(FILE *out, const hp_score *s, const char *source)
{
    char a[32], b[32], c[32];
    uint64_t mem = hp_score_suggest_memory(s->memory_tracing);
    fprintf(out, "hp-report score: %s\n\n", source);
    fprintf(out, "Estimated aggregate size of event trace:           %s (%" PRIu64 " bytes)\n",
            human_bytes(s->all.trace_bytes, a, sizeof(a)), s->all.trace_bytes);
    fprintf(out, "Estimated largest trace buffer per process:        %s (%" PRIu64 " bytes)\n",
            human_bytes(s->max_trace_buffer, a, sizeof(a)), s->max_trace_buffer);
    fprintf(out, "Estimated memory per process: profiling %s, with tracing %s\n",
            human_bytes(s->memory_profiling, b, sizeof(b)),
            human_bytes(s->memory_tracing, c, sizeof(c)));
    fprintf(out, "  -> for HP_ENABLE_TRACING=true set HP_TOTAL_MEMORY=%" PRIu64 "M%s\n",
            mem / (1024 * 1024),
            mem <= 16u * 1024 * 1024 ? " (the default 16M is enough)" : "");
    return fprintf(out, "(model: %u bytes per Enter/Leave event, +%u per MPI message, +%u per "
                        "MPI collective call; see doc/hp-report.md)\n\n",
                   HP_SCORE_EVENT_BYTES, HP_SCORE_MESSAGE_EVENT_BYTES,
                   2 * HP_SCORE_COLLECTIVE_EVENT_BYTES) < 0
               ? -1
               : 0;
}

static const hp_score *sort_score; /* qsort has no context argument in C11 */

static int by_max_buf(const void *a, const void *b)
{
    const hp_score_row *x = &sort_score->regions[*(const uint32_t *)a];
    const hp_score_row *y = &sort_score->regions[*(const uint32_t *)b];
    if (x->max_buf != y->max_buf)
        return x->max_buf < y->max_buf ? 1 : -1;
    if (x->time_excl != y->time_excl)
        return x->time_excl < y->time_excl ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Region ids by max_buf, then time; NULL when out of memory. */
static uint32_t *regions_by_cost(const hp_score *s)
{
    size_t n = s->profile->nregions;
    uint32_t *order = malloc((n ? n : 1) * sizeof(uint32_t));
    if (order == NULL)
        return NULL;
    for (uint32_t r = 0; r < n; r++)
        order[r] = r;
    sort_score = s;
    qsort(order, n, sizeof(uint32_t), by_max_buf);
    return order;
}

int hp_score_write_table(FILE *out, const hp_score *s, const char *source)
{
    const hp_profile *p = s->profile;
    uint32_t *order = regions_by_cost(s);
    if (order == NULL || write_summary(out, s, source) != 0) {
        free(order);
        return -1;
    }
    int rc = fprintf(out, "%5s %14s %16s %14s %12s %7s %14s  %s\n", "type", "max_buf[B]",
                     "trace[B]", "visits", "time[s]", "time[%]", "time/visit[us]", "region") < 0;
    rc |= write_row(out, s, "ALL", &s->all, "ALL");
    for (int t = 0; t < HP_SCORE_NTYPES; t++)
        if (s->types[t].cnodes > 0)
            rc |= write_row(out, s, type_names[t], &s->types[t], type_names[t]);
    rc |= fputc('\n', out) == EOF;
    for (size_t i = 0; i < p->nregions; i++) {
        const hp_score_row *row = &s->regions[order[i]];
        if (row->cnodes > 0)
            rc |= write_row(out, s, type_names[row->type], row, p->regions[order[i]].name);
    }
    rc |= fprintf(out, "\nUSR: user code; COM: user code on a call path to MPI/OpenMP; "
                       "ART: measurement/artificial regions; time is exclusive.\n"
                       "max_buf: the largest trace one process writes for the row's regions "
                       "(ALL: all regions, so no row exceeds it; a type: its regions together, "
                       "on one process); trace: all processes together.\n") < 0;
    free(order);
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------------ filter output */

/* Writes name as one filter pattern: wildcard characters, '#', '\' and white space are
 * escaped with a backslash, which our parser and fnmatch(3) both read as "this
 * character itself". */
static int write_pattern(FILE *out, const char *name)
{
    for (const char *c = name; *c; c++) {
        if ((unsigned char)*c < 0x20) { /* a line break would end the rule: match any */
            if (fputc('?', out) == EOF)
                return -1;
            continue;
        }
        if (strchr("*?[]\\# \t", *c) != NULL && fputc('\\', out) == EOF)
            return -1;
        if (fputc(*c, out) == EOF)
            return -1;
    }
    return 0;
}

/* Writes name in a comment line: control characters (a line break would end the
 * comment) become '?'. */
static void write_comment_text(FILE *out, const char *name)
{
    for (const char *c = name; *c; c++)
        fputc((unsigned char)*c < 0x20 ? '?' : *c, out);
}

/* One rule per region. A C++ function is named by its mangled name: it has no spaces
 * or wildcard characters and tells overloads apart. */
static int write_rule(FILE *out, const hp_score *s, uint32_t r)
{
    const hp_profile_region *reg = &s->profile->regions[r];
    const hp_score_row *row = &s->regions[r];
    bool mangled = reg->mangled_name != NULL && reg->mangled_name[0] != '\0' &&
                   strcmp(reg->mangled_name, reg->name) != 0;
    fputs("  # ", out);
    write_comment_text(out, reg->name);
    fprintf(out, ": %" PRIu64 " visits, %.3f us per visit\n", row->visits,
            1e6 * row->time_incl / (double)row->visits);
    fputs(mangled ? "  EXCLUDE MANGLED " : "  EXCLUDE ", out);
    if (write_pattern(out, mangled ? reg->mangled_name : reg->name) != 0)
        return -1;
    return fputc('\n', out) == EOF ? -1 : 0;
}

typedef struct filter_cut {
    size_t regions;
    uint64_t visits, trace_bytes, max_buf, cnodes;
} filter_cut;

static filter_cut predict_cut(const hp_score *s, const hp_score_thresholds *t)
{
    filter_cut cut = { 0 };
    for (uint32_t r = 0; r < s->profile->nregions; r++) {
        if (!hp_score_suggests(s, r, t))
            continue;
        cut.regions++;
        cut.visits += s->regions[r].visits;
        cut.trace_bytes += s->regions[r].trace_bytes;
        cut.max_buf += s->regions[r].max_buf;
        cut.cnodes += s->regions[r].cnodes;
    }
    return cut;
}

static int write_filter_header(FILE *out, const hp_score *s, const hp_score_thresholds *t,
                               const char *source, const filter_cut *cut)
{
    char a[32], b[32];
    uint64_t events = 2 * s->all.visits;
    double saved_s = (double)cut->visits * HP_SCORE_FILTER_SAVING_NS * 1e-9;
    fprintf(out, "# Filter suggested by hp-report score --suggest-filter for\n#   %s\n", source);
    fprintf(out, "# Use: HP_FILTERING_FILE=<this file> (Score-P filter syntax).\n");
    fprintf(out, "# Regions of type USR (no call path to MPI/OpenMP) with at least %" PRIu64
                 " visits,\n#   at most %g us inclusive time per visit and at least %g%% of "
                 "the estimated trace.\n",
            t->min_visits, t->max_us_per_visit, t->min_share_pct);
    fprintf(out, "# Predicted cut: %zu regions, %" PRIu64 " of %" PRIu64
                 " Enter/Leave events (%.1f%%), %" PRIu64 " of %" PRIu64 " call paths,\n",
            cut->regions, 2 * cut->visits, events, percent((double)(2 * cut->visits), (double)events),
            cut->cnodes, s->all.cnodes);
    fprintf(out, "#   trace %s -> %s,\n", human_bytes(s->all.trace_bytes, a, sizeof(a)),
            human_bytes(s->all.trace_bytes - cut->trace_bytes, b, sizeof(b)));
    return fprintf(out, "#   overhead about %.6f s less (%.1f%% of the measured %.6f s; "
                        "%.0f ns per filtered call).\n",
                   saved_s, percent(saved_s, s->all.time_excl), s->all.time_excl,
                   HP_SCORE_FILTER_SAVING_NS) < 0
               ? -1
               : 0;
}

int hp_score_write_filter(FILE *out, const hp_score *s, const hp_score_thresholds *t,
                          const char *source)
{
    filter_cut cut = predict_cut(s, t);
    uint32_t *order = regions_by_cost(s);
    if (order == NULL || write_filter_header(out, s, t, source, &cut) != 0) {
        free(order);
        return -1;
    }
    int rc = fputs("SCOREP_REGION_NAMES_BEGIN\n", out) == EOF;
    if (cut.regions == 0)
        rc |= fputs("  # no region meets the thresholds\n", out) == EOF;
    for (size_t i = 0; i < s->profile->nregions && !rc; i++)
        if (hp_score_suggests(s, order[i], t))
            rc |= write_rule(out, s, order[i]) != 0;
    rc |= fputs("SCOREP_REGION_NAMES_END\n", out) == EOF;
    free(order);
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------------ the command */

typedef struct score_options {
    const char *profile_arg;
    bool suggest_filter;
    hp_score_thresholds thresholds;
} score_options;

const char hp_report_score_options[] =
    "options of score:\n"
    "  --suggest-filter          print a filter file that excludes the regions that cost\n"
    "                            more than they tell\n"
    "  --min-visits N            suggest a region only with at least N visits\n"
    "                            (default 10000)\n"
    "  --max-time-per-visit US   and at most US microseconds per visit (default 1)\n"
    "  --min-share PERCENT       and at least PERCENT % of the estimated trace bytes\n"
    "                            (default 1)\n";

static void usage(FILE *out)
{
    fputs("usage: hp-report score [DIR|FILE.cubex] [--suggest-filter] [--max-time-per-visit US]\n"
          "                       [--min-share PERCENT] [--min-visits N]\n",
          out);
}

static int parse_number(const char *opt, const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = text ? strtod(text, &end) : 0;
    if (text == NULL || end == text || *end != '\0' || errno != 0 || !(v >= 0) || isinf(v)) {
        fprintf(stderr, "hp-report score: %s: '%s' is not a non-negative number\n", opt,
                text ? text : "(missing)");
        return -1;
    }
    *out = v;
    return 0;
}

/* The value of an option given as "--opt VALUE" or "--opt=VALUE"; NULL if it is not opt. */
static const char *option_value(int argc, char **argv, int *i, const char *opt, bool *missing)
{
    size_t len = strlen(opt);
    if (strncmp(argv[*i], opt, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_threshold(int argc, char **argv, int *i, score_options *o, bool *matched)
{
    static const char *const names[] = { "--max-time-per-visit", "--min-share", "--min-visits" };
    for (int k = 0; k < 3; k++) {
        bool missing = false;
        const char *v = option_value(argc, argv, i, names[k], &missing);
        if (v == NULL && !missing)
            continue;
        *matched = true;
        double x;
        if (parse_number(names[k], v, &x) != 0)
            return -1;
        if (k == 0)
            o->thresholds.max_us_per_visit = x;
        else if (k == 1)
            o->thresholds.min_share_pct = x;
        else if (x >= 18446744073709551615.0) /* beyond uint64_t: no region qualifies */
            o->thresholds.min_visits = UINT64_MAX;
        else
            o->thresholds.min_visits = (uint64_t)x;
        return 0;
    }
    return 0;
}

/* argv[0] may be the subcommand's own name (getopt's convention); it is skipped. */
static int parse_options(int argc, char **argv, score_options *o)
{
    *o = (score_options){ .thresholds = HP_SCORE_THRESHOLDS_DEFAULT };
    int first = argc > 0 && strcmp(argv[0], "score") == 0 ? 1 : 0;
    for (int i = first; i < argc; i++) {
        bool matched = false;
        if (parse_threshold(argc, argv, &i, o, &matched) != 0)
            return -1;
        if (matched)
            continue;
        if (strcmp(argv[i], "--suggest-filter") == 0) {
            o->suggest_filter = true;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            fputs(hp_report_score_options, stdout);
            exit(0);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "hp-report score: unknown option '%s'\n", argv[i]);
            return -1;
        } else if (o->profile_arg != NULL) {
            fprintf(stderr, "hp-report score: more than one profile given ('%s', '%s')\n",
                    o->profile_arg, argv[i]);
            return -1;
        } else {
            o->profile_arg = argv[i];
        }
    }
    return 0;
}

int hp_report_score(int argc, char **argv)
{
    score_options o;
    if (parse_options(argc, argv, &o) != 0)
        return EXIT_BAD_INPUT;
    hp_cube_profile cube;
    char err[512];
    char *path = hp_report_load_profile(o.profile_arg, "hp-report score", &cube);
    if (path == NULL)
        return EXIT_BAD_INPUT;
    hp_score s;
    int status = 0;
    if (hp_score_compute(&cube.profile, &s, err, sizeof(err)) != 0) {
        fprintf(stderr, "hp-report score: %s: %s\n", path, err);
        status = EXIT_BAD_INPUT;
    } else {
        int rc = o.suggest_filter ? hp_score_write_filter(stdout, &s, &o.thresholds, path)
                                  : hp_score_write_table(stdout, &s, path);
        if (rc != 0 || fflush(stdout) != 0) {
            fprintf(stderr, "hp-report score: writing the output failed: %s\n", strerror(errno));
            status = EXIT_WORK_FAILED;
        }
        hp_score_release(&s);
    }
    hp_cube_profile_release(&cube);
    free(path);
    return status;
}
