/*
 * hp-report site: summaries of site accounting logs (HP_SITE_LOG, doc/site.md).
 *
 * Reads the logs' JSON lines (jansson), groups the jobs by period (ISO week or month of
 * their start, UTC) and by user or application, and prints one table row per group:
 * jobs, node-hours, rank-hours, MPI share and the MPI functions that took most of the
 * group's MPI time. The numbers are sums over the group's jobs; the MPI share is the
 * group's MPI time over its rank-time (ranks x wall time), so long and wide jobs weigh
 * more, as they do on the machine. Where records carry counter totals (HP_METRIC_PERF
 * instructions or PAPI_TOT_INS), the group also gets its instruction rate per rank and
 * the share of instructions spent inside MPI, over the jobs that counted them
 * (--format html plots the two, report_site_html.c). Lines that are not records are
 * counted and skipped with one message per log, so a damaged line does not hide a month
 * of jobs.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "report_format.h"
#include "report_site.h"

enum { TOP_FUNCTIONS = 3, KEY_SIZE = 256 };

/* Counter names (the Cube names in the record) that count retired instructions. */
static const char *const instruction_counters[] = { "perf_instructions", "PAPI_TOT_INS" };

typedef struct site_args {
    char **logs;
    int nlogs;
    const char *by;     /* "user" or "app" */
    const char *period; /* "week" or "month" */
    hp_report_format format;
    bool html; /* --format html: report_site_html.c */
} site_args;

typedef struct function_total {
    char *name;
    double seconds;
} function_total;

typedef struct group {
    char period[16];
    char key[KEY_SIZE];
    uint64_t jobs;
    double node_seconds, rank_seconds, mpi_seconds;
    uint64_t counted_jobs;       /* jobs whose record has an instruction counter */
    double counted_rank_seconds; /* their ranks x wall time */
    double instructions, mpi_instructions;
    function_total *functions;
    size_t nfunctions;
} group;

typedef struct summary {
    group *groups;
    size_t ngroups, cap;
    json_t *index; /* "<period>\x1f<key>" -> group number: a year of jobs has many groups */
} summary;

const char hp_report_site_options[] =
    "options of site:\n"
    "  --by user|app                 group the jobs by user or by application (required)\n"
    "  --period week|month           and by week or by month (required)\n"
    "  --format text|csv|json|html   the output format (default text)\n";

static void usage(FILE *out)
{
    fprintf(out, "usage: hp-report site LOG... --by user|app --period week|month "
                 "[--format text|csv|json|html]\n"
                 "LOG: a site log file (HP_SITE_LOG), e.g. hp-site-2026-11-*.jsonl\n");
}

/* Checks one option's value; returns NULL or what is wrong, for the message. */
static const char *apply_option(site_args *a, int option, const char *value)
{
    if (option == 'b') {
        a->by = value;
        return strcmp(value, "user") == 0 || strcmp(value, "app") == 0 ? NULL
                                                                       : "--by is user or app";
    }
    if (option == 'p') {
        a->period = value;
        return strcmp(value, "week") == 0 || strcmp(value, "month") == 0
                   ? NULL
                   : "--period is week or month";
    }
    a->html = strcmp(value, "html") == 0;
    return a->html || hp_report_format_parse(value, &a->format) == 0
               ? NULL
               : "--format is text, csv, json or html";
}

/* Returns 0, or the exit status 2 after a message. */
static int parse_args(int argc, char **argv, site_args *a)
{
    static const struct option options[] = { { "by", required_argument, NULL, 'b' },
                                             { "period", required_argument, NULL, 'p' },
                                             { "format", required_argument, NULL, 'f' },
                                             { NULL, 0, NULL, 0 } };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
        const char *wrong = NULL;
        if (c == '?' || c == ':')
            fprintf(stderr, "hp-report site: %s '%s' (try --help)\n",
                    c == '?' ? "unknown option" : "a value is missing after", argv[optind - 1]);
        else if ((wrong = apply_option(a, c, optarg)) != NULL)
            fprintf(stderr, "hp-report site: %s, not '%s'\n", wrong, optarg);
        if (c == '?' || c == ':' || wrong != NULL)
            return 2;
    }
    a->logs = argv + optind;
    a->nlogs = argc - optind;
    if (a->nlogs == 0 || a->by == NULL || a->period == NULL) {
        fprintf(stderr, "hp-report site: %s (see --help)\n",
                a->nlogs == 0 ? "no site log given"
                              : "--by user|app and --period week|month are required");
        return 2;
    }
    return 0;
}

/* The period of a start time: "2026-W48" (ISO 8601 week) or "2026-11". */
static int period_of(time_t start, const char *period, char *out, size_t size)
{
    struct tm tm;
    if (gmtime_r(&start, &tm) == NULL)
        return -1;
    return strftime(out, size, strcmp(period, "week") == 0 ? "%G-W%V" : "%Y-%m", &tm) > 0
               ? 0
               : -1;
}

static group *group_for(summary *s, const char *period, const char *key)
{
    char name[16 + KEY_SIZE];
    snprintf(name, sizeof(name), "%s\x1f%.*s", period, KEY_SIZE - 1, key);
    json_t *known = json_object_get(s->index, name);
    if (known != NULL)
        return &s->groups[json_integer_value(known)];
    if (json_object_set_new(s->index, name, json_integer((json_int_t)s->ngroups)) < 0)
        return NULL;
    if (s->ngroups == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        group *bigger = realloc(s->groups, cap * sizeof(*bigger));
        if (bigger == NULL)
            return NULL;
        s->groups = bigger;
        s->cap = cap;
    }
    group *g = &s->groups[s->ngroups++];
    memset(g, 0, sizeof(*g));
    snprintf(g->period, sizeof(g->period), "%s", period);
    snprintf(g->key, sizeof(g->key), "%s", key);
    return g;
}

static int add_function(group *g, const char *name, double seconds)
{
    for (size_t i = 0; i < g->nfunctions; i++)
        if (strcmp(g->functions[i].name, name) == 0) {
            g->functions[i].seconds += seconds;
            return 0;
        }
    function_total *bigger = realloc(g->functions, (g->nfunctions + 1) * sizeof(*bigger));
    if (bigger == NULL)
        return -1;
    g->functions = bigger;
    if ((g->functions[g->nfunctions].name = strdup(name)) == NULL)
        return -1;
    g->functions[g->nfunctions++].seconds = seconds;
    return 0;
}

/* Adds the instruction totals of a record that has them (doc/site.md "counters"). */
static void add_counters(group *g, json_t *rec, double rank_seconds)
{
    json_t *counters = json_object_get(rec, "counters");
    for (size_t i = 0; i < sizeof(instruction_counters) / sizeof(*instruction_counters); i++) {
        json_t *c = json_object_get(counters, instruction_counters[i]);
        if (!json_is_number(json_object_get(c, "total")))
            continue;
        g->counted_jobs++;
        g->counted_rank_seconds += rank_seconds;
        g->instructions += json_number_value(json_object_get(c, "total"));
        g->mpi_instructions += json_number_value(json_object_get(c, "mpi"));
        return;
    }
}

/* Adds one record; returns 0, 1 when it is not a valid record, -1 on no memory. */
static int add_record(summary *s, const site_args *a, json_t *rec)
{
    const char *key = json_string_value(json_object_get(rec, a->by));
    json_t *mpi = json_object_get(rec, "mpi");
    double wall = json_number_value(json_object_get(rec, "wall_s")),
           mpi_s = json_number_value(json_object_get(rec, "mpi_s")),
           ranks = json_number_value(json_object_get(rec, "ranks")),
           nodes = json_number_value(json_object_get(rec, "nodes"));
    json_t *start = json_object_get(rec, "start_epoch");
    char period[16];
    if (!json_is_object(rec) || key == NULL || !json_is_integer(start) ||
        !json_is_number(json_object_get(rec, "wall_s")) || ranks < 1 ||
        period_of((time_t)json_integer_value(start), a->period, period, sizeof(period)) < 0)
        return 1;
    group *g = group_for(s, period, key);
    if (g == NULL)
        return -1;
    g->jobs++;
    g->node_seconds += (nodes >= 1 ? nodes : 1) * wall;
    g->rank_seconds += ranks * wall;
    g->mpi_seconds += mpi_s;
    add_counters(g, rec, ranks * wall);
    const char *name;
    json_t *f;
    json_object_foreach(mpi, name, f)
        if (add_function(g, name, json_number_value(json_object_get(f, "time_s"))) < 0)
            return -1;
    return 0;
}

/* Reads one log; returns 0, 2 (unreadable) or -1 (no memory). */
static int read_log(summary *s, const site_args *a, const char *path)
{
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        fprintf(stderr, "hp-report site: %s: %s\n", path, strerror(errno));
        return 2;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0, skipped = 0, first_bad = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, in) >= 0) {
        lineno++;
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        json_t *rec = json_loads(line, 0, NULL);
        int added = rec != NULL ? add_record(s, a, rec) : 1;
        json_decref(rec);
        if (added < 0)
            rc = -1;
        else if (added > 0 && skipped++ == 0)
            first_bad = lineno;
    }
    if (skipped > 0)
        fprintf(stderr, "hp-report site: %s: skipped %zu line(s) that are not job records "
                        "(the first: line %zu)\n", path, skipped, first_bad);
    free(line);
    fclose(in);
    return rc;
}

static int by_time(const void *a, const void *b)
{
    double x = ((const function_total *)a)->seconds, y = ((const function_total *)b)->seconds;
    return x < y ? 1 : x > y ? -1 : strcmp(((const function_total *)a)->name,
                                           ((const function_total *)b)->name);
}

static int by_period_and_key(const void *a, const void *b)
{
    const group *x = a, *y = b;
    int c = strcmp(x->period, y->period);
    return c != 0 ? c : strcmp(x->key, y->key);
}

/* "MPI_Barrier 61.2%, MPI_Send 20.0%": the group's largest shares of its MPI time. */
static void top_functions(group *g, char *out, size_t size)
{
    if (g->nfunctions > 1) /* qsort(NULL, 0) is undefined */
        qsort(g->functions, g->nfunctions, sizeof(*g->functions), by_time);
    out[0] = '\0';
    for (size_t i = 0, used = 0; i < g->nfunctions && i < TOP_FUNCTIONS && used < size; i++) {
        double share = g->mpi_seconds > 0 ? 100 * g->functions[i].seconds / g->mpi_seconds : 0;
        int n = snprintf(out + used, size - used, "%s%s %.1f%%", i ? ", " : "",
                         g->functions[i].name, share);
        used += n > 0 ? (size_t)n : 0;
    }
}

static hp_table *summary_table(summary *s, const site_args *a)
{
    const hp_column_spec cols[] = {
        { "period", "period", HP_CELL_TEXT, 9, "", 0 },
        { a->by, a->by, HP_CELL_TEXT, 16, "  ", 0 }, /* "user" or "app" */
        { "jobs", "jobs", HP_CELL_UINT, 6, "  ", 0 },
        { "node_hours", "node-h", HP_CELL_REAL, 12, "  ", 0 },
        { "rank_hours", "rank-h", HP_CELL_REAL, 12, "  ", 0 },
        { "mpi_hours", "MPI-h", HP_CELL_REAL, 12, "  ", 0 },
        { "mpi_percent", "MPI", HP_CELL_PERCENT, 7, "  ", 0 },
        { "instr_jobs", "ins-jobs", HP_CELL_UINT, 8, "  ", 0 },
        { "ginstr_per_rank_s", "Gins/rank-s", HP_CELL_RATIO, 11, "  ", 0 },
        { "instr_mpi_percent", "ins MPI", HP_CELL_PERCENT, 7, "  ", 0 },
        { "top_mpi", "top MPI functions (share of MPI time)", HP_CELL_TEXT, 0, "  ", 0 },
    };
    hp_table *t = HP_TABLE_NEW("site", NULL, cols);
    if (t == NULL)
        return NULL;
    if (s->ngroups > 1) /* qsort(NULL, 0) is undefined: a log without records */
        qsort(s->groups, s->ngroups, sizeof(*s->groups), by_period_and_key);
    for (size_t i = 0; i < s->ngroups; i++) {
        group *g = &s->groups[i];
        char top[512];
        top_functions(g, top, sizeof(top));
        hp_table_cell *c = hp_table_add_row(t);
        if (c == NULL || hp_table_cell_set_text(&c[HP_SITE_COL_PERIOD], g->period) < 0 ||
            hp_table_cell_set_text(&c[HP_SITE_COL_KEY], g->key) < 0 ||
            hp_table_cell_set_text(&c[HP_SITE_COL_TOP_MPI], top) < 0) {
            hp_table_free(t);
            return NULL;
        }
        double rank_s = g->rank_seconds, counted_s = g->counted_rank_seconds;
        c[HP_SITE_COL_JOBS].u = g->jobs;
        c[HP_SITE_COL_NODE_HOURS].d = g->node_seconds / 3600;
        c[HP_SITE_COL_RANK_HOURS].d = rank_s / 3600;
        c[HP_SITE_COL_MPI_HOURS].d = g->mpi_seconds / 3600;
        c[HP_SITE_COL_MPI_PERCENT].d = rank_s > 0 ? 100 * g->mpi_seconds / rank_s : 0;
        c[HP_SITE_COL_INSTR_JOBS].u = g->counted_jobs;
        c[HP_SITE_COL_GINSTR].d = counted_s > 0 ? g->instructions / counted_s / 1e9 : 0;
        c[HP_SITE_COL_INSTR_MPI_PERCENT].d =
            g->instructions > 0 ? 100 * g->mpi_instructions / g->instructions : 0;
    }
    return t;
}

static void summary_release(summary *s)
{
    for (size_t i = 0; i < s->ngroups; i++) {
        for (size_t f = 0; f < s->groups[i].nfunctions; f++)
            free(s->groups[i].functions[f].name);
        free(s->groups[i].functions);
    }
    free(s->groups);
    json_decref(s->index);
}

static int write_summary(summary *s, const site_args *a)
{
    hp_table_list tables = { NULL, 0 };
    if (hp_table_list_add(&tables, summary_table(s, a)) < 0) {
        fprintf(stderr, "hp-report site: out of memory\n");
        return 1;
    }
    if (a->html) {
        hp__report_site_html(stdout, tables.tables[0], a->by);
    } else if (a->format == HP_FORMAT_CSV) {
        hp_report_write_csv(stdout, &tables);
    } else if (a->format == HP_FORMAT_JSON) {
        hp_report_write_json(stdout, a->logs[0], "mpi_percent", &tables);
    } else {
        printf("hp-report site: %d log(s), jobs by %s and %s\n\n", a->nlogs, a->by, a->period);
        hp_table_write_text(stdout, tables.tables[0]);
    }
    hp_table_list_release(&tables);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "hp-report site: write error: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

int hp_report_site(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            fputs(hp_report_site_options, stdout);
            return 0;
        }
    site_args a = { NULL, 0, NULL, NULL, HP_FORMAT_TEXT, false };
    summary s = { NULL, 0, 0, json_object() };
    int rc = s.index == NULL ? -1 : parse_args(argc, argv, &a);
    for (int i = 0; rc == 0 && i < a.nlogs; i++)
        rc = read_log(&s, &a, a.logs[i]);
    if (rc < 0) {
        fprintf(stderr, "hp-report site: out of memory\n");
        rc = 1;
    }
    if (rc == 0)
        rc = write_summary(&s, &a);
    summary_release(&s);
    return rc;
}
