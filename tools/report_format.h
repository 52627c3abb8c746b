/*
 * Report tables (measurement/table.h) for scripts: CSV and JSON. The text form lives
 * with the tables themselves, because summary.txt needs it inside the measurement core.
 */
#ifndef HP_TOOLS_REPORT_FORMAT_H
#define HP_TOOLS_REPORT_FORMAT_H

#include <stdio.h>

#include "measurement/profile.h"
#include "measurement/table.h"

/* Each table as a block: a line "# <key>", the header line, the rows, an empty line.
 * Fields with a comma, quote or newline are quoted (RFC 4180). */
void hp_report_write_csv(FILE *out, const hp_table_list *tables);

/* One JSON object: {"profile": source, "metric": metric, "tables": {key: [row objects]}}. */
void hp_report_write_json(FILE *out, const char *source, const char *metric,
                          const hp_table_list *tables);

#endif
