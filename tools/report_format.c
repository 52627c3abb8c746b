/*
 * CSV and JSON renderings of report tables (report_format.h). Both show every column
 * except the text-only ones (indented names), with numbers at full precision: these
 * outputs are for scripts, which should not have to parse aligned text.
 */
#include "report_format.h"

#include <math.h>
#include <string.h>

int hp_report_format_parse(const char *s, hp_report_format *out)
{
    static const char *const names[] = { [HP_FORMAT_TEXT] = "text", [HP_FORMAT_CSV] = "csv",
                                         [HP_FORMAT_JSON] = "json" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (hp_report_format)i;
            return 0;
        }
    return -1;
}

static int exported(const hp_table_column *c)
{
    return !(c->flags & HP_COL_TEXT_ONLY);
}

static void csv_text(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* One cell in either syntax: text through that syntax's quoting, numbers unrounded (scripts
 * compare values). A non-finite double is written as nonfinite where the syntax has no
 * spelling for it (JSON: null), or as printf spells it when nonfinite is NULL (CSV). */
static void write_cell(FILE *out, const hp_table_column *col, const hp_table_cell *cell,
                       void (*text)(FILE *, const char *), const char *nonfinite)
{
    switch (col->kind) {
    case HP_CELL_UINT:
        fprintf(out, "%llu", (unsigned long long)cell->u);
        break;
    case HP_CELL_INT:
        fprintf(out, "%lld", (long long)cell->i);
        break;
    case HP_CELL_TEXT:
        text(out, cell->s != NULL ? cell->s : "");
        break;
    default:
        if (nonfinite != NULL && !isfinite(cell->d))
            fputs(nonfinite, out);
        else
            fprintf(out, "%.17g", cell->d);
        break;
    }
}

void hp_report_write_csv(FILE *out, const hp_table_list *tables)
{
    for (size_t i = 0; i < tables->n; i++) {
        const hp_table *t = tables->tables[i];
        fprintf(out, "# %s\n", t->key);
        const char *sep = "";
        for (size_t c = 0; c < t->ncols; c++)
            if (exported(&t->cols[c])) {
                fputs(sep, out);
                csv_text(out, t->cols[c].key);
                sep = ",";
            }
        fputc('\n', out);
        for (size_t r = 0; r < t->nrows; r++) {
            sep = "";
            for (size_t c = 0; c < t->ncols; c++)
                if (exported(&t->cols[c])) {
                    fputs(sep, out);
                    write_cell(out, &t->cols[c], hp_table_cell_at(t, r, c), csv_text, NULL);
                    sep = ",";
                }
            fputc('\n', out);
        }
        fputc('\n', out);
    }
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void json_table(FILE *out, const hp_table *t)
{
    json_string(out, t->key);
    fputs(": [", out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(r ? ",\n    {" : "\n    {", out);
        const char *sep = "";
        for (size_t c = 0; c < t->ncols; c++) {
            if (!exported(&t->cols[c]))
                continue;
            fputs(sep, out);
            json_string(out, t->cols[c].key);
            fputs(": ", out);
            write_cell(out, &t->cols[c], hp_table_cell_at(t, r, c), json_string, "null");
            sep = ", ";
        }
        fputc('}', out);
    }
    fputs(t->nrows ? "\n  ]" : "]", out);
}

void hp_report_write_json(FILE *out, const char *source, const char *metric,
                          const hp_table_list *tables)
{
    fputs("{\n  \"profile\": ", out);
    json_string(out, source);
    fputs(",\n  \"metric\": ", out);
    json_string(out, metric);
    fputs(",\n  \"tables\": {", out);
    for (size_t i = 0; i < tables->n; i++) {
        fputs(i ? ",\n  " : "\n  ", out);
        json_table(out, tables->tables[i]);
    }
    fputs("\n  }\n}\n", out);
}
