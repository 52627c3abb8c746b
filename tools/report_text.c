/*
 * hp-report's default subcommand: the flat profile, the call tree and, when the profile
 * has MPI regions, the MPI tables, for one metric and optionally one rank, as text (the
 * same tables and layout as summary.txt, profile/summary.c), CSV or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_reader.h"
#include "profile/summary.h"
#include "report.h"
#include "report_load.h"
#include "report_format.h"

typedef struct text_args {
    const char *target; /* DIR or FILE, NULL = newest experiment */
    hp_report_options opts;
    hp_report_format format;
} text_args;

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("hp-report: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

static int parse_int(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_percent(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v >= 0 && v <= 100))
        return -1;
    *out = v;
    return 0;
}

/* Applies option name = value; returns 0 or the exit status 2 after a message. */
static int apply_option(text_args *a, const char *name, const char *value)
{
    long v;
    if (strcmp(name, "--metric") == 0) {
        a->opts.metric = value;
    } else if (strcmp(name, "--rank") == 0) {
        if (parse_int(value, 0, 1L << 30, &v) != 0)
            return bad_usage("--rank needs a rank number, not '%s'", value);
        a->opts.rank = (int)v;
    } else if (strcmp(name, "--depth") == 0) {
        if (parse_int(value, 0, 1L << 30, &v) != 0)
            return bad_usage("--depth needs a number >= 0, not '%s'", value);
        a->opts.max_depth = (int)v;
    } else if (strcmp(name, "--threshold") == 0) {
        if (parse_percent(value, &a->opts.min_percent) != 0)
            return bad_usage("--threshold needs a percentage 0..100, not '%s'", value);
    } else if (strcmp(name, "--format") == 0) {
        if (hp_report_format_parse(value, &a->format) < 0)
            return bad_usage("--format is text, csv or json, not '%s'", value);
    } else {
        return bad_usage("unknown option '%s' (try --help)", name);
    }
    return 0;
}

static const char *const value_options[] = { "--metric", "--rank", "--depth", "--threshold",
                                             "--format" };

static int takes_value(const char *name)
{
    for (size_t i = 0; i < sizeof(value_options) / sizeof(value_options[0]); i++)
        if (strcmp(name, value_options[i]) == 0)
            return 1;
    return 0;
}

/* Options as "--name value" or "--name=value"; at most one positional argument. */
static int parse_args(int argc, char **argv, text_args *a)
{
    hp_report_options_init(&a->opts);
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i], *eq = strchr(arg, '=');
        if (arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (a->target != NULL)
                return bad_usage("more than one profile given ('%s')", arg);
            a->target = arg;
            continue;
        }
        char name[32];
        snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
        if (!takes_value(name))
            return bad_usage("unknown option '%s' (try --help)", arg);
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (value == NULL)
            return bad_usage("%s needs a value", name);
        int rc = apply_option(a, name, value);
        if (rc != 0)
            return rc;
    }
    if (a->format != HP_FORMAT_TEXT)
        a->opts.flat_rows = 0; /* scripts get every region */
    return 0;
}

/* A metric that exists but has no data members reads as zeros; a report of it would
 * show nothing but zeros, so say what is missing instead. */
static int check_metric_data(const hp_cube_profile *cp, const char *path, const char *metric)
{
    for (size_t i = 0; i < cp->profile.nmetrics; i++)
        if (strcmp(cp->profile.metrics[i].uniq_name, metric) == 0 &&
            !cp->metric_info[i].has_data) {
            fprintf(stderr, "%s: metric \"%s\" has no data (%ld.index and %ld.data missing)\n",
                    path, metric, cp->metric_info[i].file_id, cp->metric_info[i].file_id);
            return 2;
        }
    return 0;
}

static void write_report(const text_args *a, const char *path, const hp_profile *p,
                         const hp_table_list *tables)
{
    if (a->format == HP_FORMAT_CSV) {
        hp_report_write_csv(stdout, tables);
    } else if (a->format == HP_FORMAT_JSON) {
        hp_report_write_json(stdout, path, a->opts.metric, tables);
    } else {
        char title[4200];
        snprintf(title, sizeof(title), "hp-report: %s", path);
        hp_report_write_header(stdout, p, title, NULL);
        hp_summary_write_instrumentation(stdout, p);
        for (size_t i = 0; i < tables->n; i++)
            hp_table_write_text(stdout, tables->tables[i]);
    }
}

static int report(const text_args *a, const char *path, hp_cube_profile *profile)
{
    hp_cube_profile cp = *profile;
    char err[1024];
    int rc = check_metric_data(&cp, path, a->opts.metric);
    hp_table_list tables = { NULL, 0 };
    if (rc == 0 && hp_report_tables(&cp.profile, &a->opts, &tables, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s: %s\n", path, err);
        rc = 2;
    }
    if (rc == 0) {
        write_report(a, path, &cp.profile, &tables);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "hp-report: write error: %s\n", strerror(errno));
            rc = 1;
        }
    }
    hp_table_list_release(&tables);
    hp_cube_profile_release(&cp);
    return rc;
}

const char hp_report_text_options[] =
    "options of text (the default):\n"
    "  --metric NAME            the metric of the flat profile and the call tree (a Cube\n"
    "                           metric name: time, visits, bytes_sent, ...; default time)\n"
    "  --rank R                 only MPI rank R's locations\n"
    "  --depth N                call tree depth (the root is depth 0; default 24)\n"
    "  --threshold PCT          hide call-tree subtrees below PCT % of the total\n"
    "                           (default 0.1)\n"
    "  --format text|csv|json   the output format (default text)\n";

int hp_report_text(int argc, char **argv)
{
    text_args a = { NULL, { 0 }, HP_FORMAT_TEXT };
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: hp-report [DIR|FILE.cubex] [--metric NAME] [--rank R] [--depth N] "
                   "[--threshold PCT] [--format text|csv|json]\n%s",
                   hp_report_text_options);
            return 0;
        }
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    hp_cube_profile cp;
    char *path = hp_report_load_profile(a.target, "", &cp);
    if (path == NULL)
        return 2;
    rc = report(&a, path, &cp);
    free(path);
    return rc;
}
