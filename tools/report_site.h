/*
 * hp-report site's summary table (report_site.c) and its HTML page (report_site_html.c):
 * the columns both agree on.
 */
#ifndef HP_TOOLS_REPORT_SITE_H
#define HP_TOOLS_REPORT_SITE_H

#include <stdio.h>

#include "profile/table.h"

enum hp_site_column {
    HP_SITE_COL_PERIOD,
    HP_SITE_COL_KEY,
    HP_SITE_COL_JOBS,
    HP_SITE_COL_NODE_HOURS,
    HP_SITE_COL_RANK_HOURS,
    HP_SITE_COL_MPI_HOURS,
    HP_SITE_COL_MPI_PERCENT,
    HP_SITE_COL_INSTR_JOBS,
    HP_SITE_COL_GINSTR,
    HP_SITE_COL_INSTR_MPI_PERCENT,
    HP_SITE_COL_TOP_MPI
};

/* Writes the page for the summary table t (grouped by "user" or "app") to out. */
void hp__report_site_html(FILE *out, const hp_table *t, const char *by);

#endif
