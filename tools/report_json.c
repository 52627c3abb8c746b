/*
 * The JSON string escaper of report_json.h.
 */
#include "report_json.h"

#include <string.h>

#include "util/escape.h"

void hp_json_string(FILE *out, const char *s)
{
    const unsigned char *c = (const unsigned char *)(s ? s : "");
    size_t left = strlen((const char *)c);
    fputc('"', out);
    while (left > 0) {
        size_t take = 1;
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&')
            fprintf(out, "\\u%04x", *c);
        else if (*c < 0x80)
            fputc(*c, out);
        else if ((take = hp_escape_utf8_length(c, left)) > 0)
            fwrite(c, 1, take, out);
        else if (left >= 2 && c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
            fprintf(out, "\\u%04x", c[1]);  /* a C1 control: valid, but not printable */
            take = 2;
        } else {
            fputs("\\ufffd", out);
            take = 1;
        }
        c += take;
        left -= take;
    }
    fputc('"', out);
}
