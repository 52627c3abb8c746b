/*
 * hp-report html: one self-contained HTML file for a profile. The page (template in
 * report_html_page.html, compiled in) carries its CSS, script and SVG inline and the
 * profile as JSON, so it opens from disk without a network and without a server; the
 * script renders the metric selector, call tree, flat profile, MPI-vs-computation chart
 * and rank x MPI-function table from that JSON.
 *
 * The JSON is the profile model itself (regions with their score type, cnodes as
 * [parent, region], locations, every metric's raw values with its kind), so the page
 * can derive inclusive and exclusive values for any metric and any location.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cube_reader.h"
#include "profile/summary.h"
#include "report.h"
#include "report_json.h"
#include "report_load.h"
#include "report_html_page.h"
#include "report_score.h"

enum { EXIT_WORK_FAILED = 1, EXIT_BAD_INPUT = 2 };

/* JSON has no NaN or infinity; a broken value shows as 0 rather than breaking the page. */
static void json_double(FILE *out, double v)
{
    fprintf(out, "%.9g", isfinite(v) ? v : 0.0);
}

static void write_regions(FILE *out, const hp_profile *p, const hp_score_type *types)
{
    fputs("\"regions\":[", out);
    for (size_t r = 0; r < p->nregions; r++) {
        const hp_profile_region *reg = &p->regions[r];
        fputs(r ? ",\n{\"name\":" : "\n{\"name\":", out);
        hp_json_string(out, reg->name);
        fputs(",\"paradigm\":", out);
        hp_json_string(out, reg->paradigm);
        fputs(",\"role\":", out);
        hp_json_string(out, reg->role);
        fputs(",\"file\":", out);
        hp_json_string(out, reg->file);
        fprintf(out, ",\"line\":%d,\"type\":\"%s\"}", reg->begin_line,
                hp_score_type_name(types[r]));
    }
    fputs("],\n", out);
}

static void write_cnodes(FILE *out, const hp_profile *p)
{
    fputs("\"cnodes\":[", out);
    for (size_t n = 0; n < p->ncnodes; n++) {
        const hp_profile_cnode *c = &p->cnodes[n];
        long parent = c->parent == HP_PROFILE_NO_PARENT ? -1L : (long)c->parent;
        fprintf(out, "%s[%ld,%" PRIu32 "]", n ? (n % 16 ? "," : ",\n") : "", parent, c->region);
    }
    fputs("],\n", out);
}

/* [name, rank, process index, thread] per location. */
static void write_locations(FILE *out, const hp_profile *p)
{
    fputs("\"locations\":[", out);
    for (size_t l = 0; l < p->nlocations; l++) {
        const hp_profile_location *loc = &p->locations[l];
        fputs(l ? ",[" : "[", out);
        hp_json_string(out, loc->name);
        fprintf(out, ",%d,%" PRIu32 ",%d]", p->processes[loc->process].rank, loc->process,
                loc->thread);
    }
    fprintf(out, "],\n\"nprocesses\":%zu,\n", p->nprocesses);
}

static const char *aggregation(hp_metric_dtype t)
{
    return t == HP_DTYPE_MINDOUBLE ? "min" : t == HP_DTYPE_MAXDOUBLE ? "max" : "sum";
}

static void write_metric(FILE *out, const hp_profile *p, const hp_profile_metric *m)
{
    fputs("{\"name\":", out);
    hp_json_string(out, m->uniq_name);
    fputs(",\"disp\":", out);
    hp_json_string(out, m->disp_name);
    fputs(",\"uom\":", out);
    hp_json_string(out, m->uom);
    fputs(",\"descr\":", out);
    hp_json_string(out, m->descr);
    fprintf(out, ",\"kind\":\"%s\",\"agg\":\"%s\",\"values\":[",
            m->kind == HP_METRIC_INCLUSIVE ? "incl" : "excl", aggregation(m->dtype));
    size_t count = p->ncnodes * p->nlocations;
    for (size_t i = 0; i < count; i++) {
        if (i)
            fputs(i % 32 ? "," : ",\n", out);
        if (m->dtype == HP_DTYPE_UINT64)
            fprintf(out, "%" PRIu64, ((const uint64_t *)m->values)[i]);
        else
            json_double(out, ((const double *)m->values)[i]);
    }
    fputs("]}", out);
}

/* One table of the text report as {"key","title","columns":[[header,kind]...],"rows":
 * [[cell...]...]}: the page shows the same numbers as `hp-report`. */
static void write_table(FILE *out, const hp_table *t)
{
    static const char *const kinds[] = { [HP_CELL_UINT] = "uint", [HP_CELL_INT] = "int",
                                         [HP_CELL_REAL] = "real", [HP_CELL_PERCENT] = "percent",
                                         [HP_CELL_RATIO] = "ratio", [HP_CELL_TEXT] = "text" };
    fputs("{\"key\":", out);
    hp_json_string(out, t->key);
    fputs(",\"title\":", out);
    hp_json_string(out, t->title);
    fputs(",\"columns\":[", out);
    const char *sep = "";
    for (size_t c = 0; c < t->ncols; c++) {
        if (t->cols[c].flags & HP_COL_DATA_ONLY)
            continue;
        fprintf(out, "%s[", sep);
        hp_json_string(out, t->cols[c].header ? t->cols[c].header : t->cols[c].key);
        fprintf(out, ",\"%s\"]", kinds[t->cols[c].kind]);
        sep = ",";
    }
    fputs("],\"rows\":[", out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(r ? ",\n[" : "\n[", out);
        sep = "";
        for (size_t c = 0; c < t->ncols; c++) {
            const hp_table_cell *cell = hp_table_cell_at(t, r, c);
            if (t->cols[c].flags & HP_COL_DATA_ONLY)
                continue;
            fputs(sep, out);
            sep = ",";
            switch (t->cols[c].kind) {
            case HP_CELL_UINT: fprintf(out, "%" PRIu64, cell->u); break;
            case HP_CELL_INT: fprintf(out, "%" PRId64, cell->i); break;
            case HP_CELL_TEXT: hp_json_string(out, cell->s); break;
            default: json_double(out, cell->d); break;
            }
        }
        fputc(']', out);
    }
    fputs("]}", out);
}

/* The counters' split into MPI and application, and the derived metrics, per rank, as
 * the text report has them; empty lists when the profile has no counters. */
static void write_counter_tables(FILE *out, const hp_profile *p)
{
    hp_table_list tables = { NULL, 0 };
    if (hp_report_counter_table(p, NULL, &tables) != 0 ||
        hp_report_derived_table(p, NULL, &tables) != 0)
        hp_table_list_release(&tables); /* out of memory: the page says "no counters" */
    fputs("\"tables\":[", out);
    for (size_t i = 0; i < tables.n; i++) {
        if (i)
            fputs(",\n", out);
        write_table(out, tables.tables[i]);
    }
    fputs("],\n", out);
    hp_table_list_release(&tables);
}

static void write_json(FILE *out, const hp_profile *p, const hp_score_type *types,
                       const char *source, bool has_trace)
{
    fputs("{\"source\":", out);
    hp_json_string(out, source);
    fputs(",\"creator\":", out);
    hp_json_string(out, p->creator ? p->creator : "unknown");
    fprintf(out, ",\"trace\":%s,\n", has_trace ? "true" : "false");
    write_regions(out, p, types);
    write_cnodes(out, p);
    write_locations(out, p);
    write_counter_tables(out, p);
    fputs("\"metrics\":[", out);
    for (size_t m = 0; m < p->nmetrics; m++) {
        if (m)
            fputs(",\n", out);
        write_metric(out, p, &p->metrics[m]);
    }
    fputs("]}", out);
}

/* Writes the page: the template with the JSON in place of its marker. Returns 0 or -1
 * on a write error. */
static int write_page(FILE *out, const hp_profile *p, const hp_score_type *types,
                      const char *source, bool has_trace)
{
    const char *marker = strstr(hp__report_html_page, HP_REPORT_HTML_DATA_MARKER);
    if (marker == NULL)
        return -1; /* a broken build; the unit of work fails, not the input */
    fwrite(hp__report_html_page, 1, (size_t)(marker - hp__report_html_page), out);
    write_json(out, p, types, source, has_trace);
    fputs(marker + strlen(HP_REPORT_HTML_DATA_MARKER), out);
    return ferror(out) ? -1 : 0;
}

/* The experiment holds a trace when traces.otf2 sits next to the profile. */
static bool experiment_has_trace(const char *profile_path)
{
    const char *slash = strrchr(profile_path, '/');
    size_t dirlen = slash ? (size_t)(slash - profile_path) + 1 : 0;
    char *path = malloc(dirlen + sizeof("traces.otf2"));
    if (path == NULL)
        return false;
    memcpy(path, profile_path, dirlen);
    strcpy(path + dirlen, "traces.otf2");
    struct stat st;
    bool found = stat(path, &st) == 0;
    free(path);
    return found;
}

typedef struct html_options {
    const char *profile_arg;
    const char *output;
} html_options;

const char hp_report_html_options[] =
    "options of html:\n"
    "  -o, --output FILE   the page to write (default report.html; -o -: standard output)\n";

/* argv[0] may be the subcommand's own name (getopt's convention); it is skipped. */
static int parse_options(int argc, char **argv, html_options *o)
{
    *o = (html_options){ NULL, "report.html" };
    int first = argc > 0 && strcmp(argv[0], "html") == 0 ? 1 : 0;
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                fprintf(stderr, "hp-report html: %s needs a file name\n", argv[i]);
                return -1;
            }
            o->output = argv[++i];
        } else if (strncmp(argv[i], "--output=", 9) == 0 && argv[i][9] != '\0') {
            o->output = argv[i] + 9;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: hp-report html [DIR|FILE.cubex] [-o report.html]   (-o - : stdout)\n"
                   "%s", hp_report_html_options);
            exit(0);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "hp-report html: unknown option '%s'\n", argv[i]);
            return -1;
        } else if (o->profile_arg != NULL) {
            fprintf(stderr, "hp-report html: more than one profile given ('%s', '%s')\n",
                    o->profile_arg, argv[i]);
            return -1;
        } else {
            o->profile_arg = argv[i];
        }
    }
    return 0;
}

/* Writes the page to o->output ("-" = stdout); a partial file is removed. */
static int write_output(const html_options *o, const hp_profile *p,
                        const hp_score_type *types, const char *source)
{
    bool to_stdout = strcmp(o->output, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(o->output, "w");
    if (out == NULL) {
        fprintf(stderr, "hp-report html: %s: cannot write: %s\n", o->output, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    int rc = write_page(out, p, types, source, experiment_has_trace(source));
    rc |= to_stdout ? fflush(out) : fclose(out);
    if (rc != 0) {
        fprintf(stderr, "hp-report html: %s: writing failed\n", o->output);
        if (!to_stdout)
            remove(o->output);
        return EXIT_WORK_FAILED;
    }
    if (!to_stdout)
        printf("hp-report html: wrote %s\n", o->output);
    return 0;
}

int hp_report_html(int argc, char **argv)
{
    html_options o;
    if (parse_options(argc, argv, &o) != 0)
        return EXIT_BAD_INPUT;
    hp_cube_profile cube;
    char *path = hp_report_load_profile(o.profile_arg, "hp-report html", &cube);
    if (path == NULL)
        return EXIT_BAD_INPUT;
    /* Only the region types are needed: a profile without visits or time still gets a
     * page (its metrics are what the selector offers). */
    size_t nregions = cube.profile.nregions;
    hp_score_type *types = malloc((nregions ? nregions : 1) * sizeof(hp_score_type));
    int status;
    if (types == NULL || hp_score_classify(&cube.profile, types) != 0) {
        fprintf(stderr, "hp-report html: %s: out of memory\n", path);
        status = EXIT_WORK_FAILED;
    } else {
        status = write_output(&o, &cube.profile, types, path);
    }
    free(types);
    hp_cube_profile_release(&cube);
    free(path);
    return status;
}
