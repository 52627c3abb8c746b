/*
 * JSON strings for hp-report's pages and trace files (report_html.c,
 * report_timeline_write.c): one escaper, so that every name from a profile or a trace
 * reaches a JSON parser and a <script> element in the same safe form.
 */
#ifndef HP_TOOLS_REPORT_JSON_H
#define HP_TOOLS_REPORT_JSON_H

#include <stdio.h>

/* Writes s (NULL: "") as a JSON string that is also safe inside <script>: '"' and '\'
 * escaped, control characters (C0 and C1) and '<', '>', '&' as \uXXXX (no "</script>",
 * no comment), valid UTF-8 copied, and each byte that is not part of valid UTF-8 as
 * \ufffd, so that the output is always valid JSON. */
void hp_json_string(FILE *out, const char *s);

#endif
