/*
 * Report tables (profile/table.h) for scripts: CSV and JSON. The text form lives
 * with the tables themselves, because summary.txt needs it inside the measurement core.
 */
#ifndef HP_TOOLS_REPORT_FORMAT_H
#define HP_TOOLS_REPORT_FORMAT_H

#include <stdio.h>

#include "profile/profile.h"
#include "profile/table.h"

/* The forms a report can take (--format). */
typedef enum hp_report_format { HP_FORMAT_TEXT, HP_FORMAT_CSV, HP_FORMAT_JSON } hp_report_format;

/* Reads a --format value: "text", "csv" or "json". Returns 0, or -1 for anything else. */
int hp_report_format_parse(const char *s, hp_report_format *out);

/* Each table as a block: a line "# <key>", the header line, the rows, an empty line.
 * Fields with a comma, quote or newline are quoted (RFC 4180). */
void hp_report_write_csv(FILE *out, const hp_table_list *tables);

/* One JSON object: {"profile": source, "metric": metric, "tables": {key: [row objects]}}. */
void hp_report_write_json(FILE *out, const char *source, const char *metric,
                          const hp_table_list *tables);

#endif
