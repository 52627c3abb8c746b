/*
 * hp-report site --format html: the site summary as one self-contained page. Above the
 * table of report_site.c, an SVG plot puts every group (user or application, in a
 * period) that counted instructions at its instruction rate per rank (x) and MPI share
 * (y), as the accounting paper's figure does: groups low on the right compute well,
 * groups high on the left wait in MPI. With no such group (no instruction counter on
 * the machine) the plot and the text above it say so. No script, no network, no other
 * file.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report_site.h"

enum { PLOT_W = 640, PLOT_H = 400, MARGIN = 50 };

/* Writes s with the characters HTML gives a meaning escaped. */
static void html_text(FILE *out, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* Number of groups that counted instructions, i.e. the points of the plot. */
static size_t plotted_groups(const hp_table *t)
{
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++)
        n += t->cells[r * t->ncols + HP_SITE_COL_INSTR_JOBS].u > 0;
    return n;
}

/* An empty plot says why it is empty, inside the plot and in the text above it. */
static const char no_data[] =
    "No data to plot: no job counted instructions (HP_METRIC_PERF=instructions or "
    "HP_METRIC_PAPI=PAPI_TOT_INS), as on a machine without an instruction counter, "
    "such as most virtual machines. The table below has the jobs' other numbers.";

static void write_no_data(FILE *out)
{
    fprintf(out, "<text class='nodata' x='%d' y='%d' text-anchor='middle' fill='#a94442'>"
                 "No data: no job counted instructions</text>\n", PLOT_W / 2, PLOT_H / 2);
}

/* The largest instruction rate of the plotted groups (1 when none, to keep the axis). */
static double max_rate(const hp_table *t)
{
    double most = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const hp_table_cell *c = &t->cells[r * t->ncols];
        if (c[HP_SITE_COL_INSTR_JOBS].u > 0 && c[HP_SITE_COL_GINSTR].d > most)
            most = c[HP_SITE_COL_GINSTR].d;
    }
    return most > 0 ? most : 1;
}

static void write_axes(FILE *out, double xmax)
{
    fprintf(out, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n", MARGIN,
            PLOT_H - MARGIN, PLOT_W - MARGIN / 2, PLOT_H - MARGIN);
    fprintf(out, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n", MARGIN,
            MARGIN / 2, MARGIN, PLOT_H - MARGIN);
    fprintf(out, "<text x='%d' y='%d' text-anchor='middle'>instructions per rank-second "
                 "(10^9), 0 to %.3g</text>\n", PLOT_W / 2, PLOT_H - 12, xmax);
    fprintf(out, "<text x='14' y='%d' transform='rotate(-90 14 %d)' text-anchor='middle'>"
                 "MPI share (%%), 0 to 100</text>\n", PLOT_H / 2, PLOT_H / 2);
}

static void write_points(FILE *out, const hp_table *t, double xmax)
{
    double w = PLOT_W - 1.5 * MARGIN, h = PLOT_H - 1.5 * MARGIN;
    for (size_t r = 0; r < t->nrows; r++) {
        const hp_table_cell *c = &t->cells[r * t->ncols];
        if (c[HP_SITE_COL_INSTR_JOBS].u == 0)
            continue;
        double x = MARGIN + w * c[HP_SITE_COL_GINSTR].d / xmax;
        double share = c[HP_SITE_COL_MPI_PERCENT].d;
        double y = PLOT_H - MARGIN - h * (share < 0 ? 0 : share > 100 ? 100 : share) / 100;
        fprintf(out, "<g class='group'><circle cx='%.1f' cy='%.1f' r='4' fill='steelblue'>"
                     "<title>", x, y);
        html_text(out, c[HP_SITE_COL_KEY].s);
        fprintf(out, " %s: %.3g Gins/rank-s, MPI %.1f%%</title></circle>"
                     "<text x='%.1f' y='%.1f' font-size='11'>", c[HP_SITE_COL_PERIOD].s,
                c[HP_SITE_COL_GINSTR].d, share, x + 6, y - 4);
        html_text(out, c[HP_SITE_COL_KEY].s);
        fputs("</text></g>\n", out);
    }
}

static void write_table(FILE *out, const hp_table *t)
{
    fputs("<table>\n<tr>", out);
    for (size_t i = 0; i < t->ncols; i++) {
        fputs("<th>", out);
        html_text(out, t->cols[i].key);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs("<tr>", out);
        for (size_t i = 0; i < t->ncols; i++) {
            const hp_table_cell *c = &t->cells[r * t->ncols + i];
            fputs("<td>", out);
            switch (t->cols[i].kind) {
            case HP_CELL_TEXT: html_text(out, c->s != NULL ? c->s : ""); break;
            case HP_CELL_UINT: fprintf(out, "%llu", (unsigned long long)c->u); break;
            case HP_CELL_PERCENT: fprintf(out, "%.2f%%", c->d); break;
            default: fprintf(out, "%.6g", c->d); break;
            }
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

void hp__report_site_html(FILE *out, const hp_table *t, const char *by)
{
    double xmax = max_rate(t);
    fputs("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>hp-report site</title>\n"
          "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:2px 6px}</style></head><body>\n", out);
    fprintf(out, "<h1>Jobs by %s</h1>\n<p>MPI share against instruction rate per rank, one "
                 "point per %s and period that counted instructions.</p>\n", by, by);
    bool empty = plotted_groups(t) == 0;
    if (empty)
        fprintf(out, "<p class='nodata' id='nodata'>%s</p>\n", no_data);
    fprintf(out, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d'>\n", PLOT_W,
            PLOT_H);
    write_axes(out, xmax);
    if (empty)
        write_no_data(out);
    else
        write_points(out, t, xmax);
    fputs("</svg>\n", out);
    write_table(out, t);
    fputs("</body></html>\n", out);
}
