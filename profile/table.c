/*
 * Report tables (table.h): building them and writing them as aligned text. The text
 * layout is fixed by the columns: each cell is right-aligned in its width, text cells
 * left-aligned, and a header may span the columns after it that have none (a "calls /
 * percent" pair under one function name).
 */
#include "table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

hp_table *hp_table_new(const char *key, const char *title)
{
    hp_table *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->key = strdup(key);
    t->title = title != NULL ? strdup(title) : NULL;
    if (t->key == NULL || (title != NULL && t->title == NULL)) {
        hp_table_free(t);
        return NULL;
    }
    return t;
}

void hp_table_free(hp_table *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i].s);
    for (size_t c = 0; c < t->ncols; c++)
        free(t->cols[c].key), free(t->cols[c].header);
    free(t->cells);
    free(t->cols);
    free(t->key);
    free(t->title);
    free(t->note);
    free(t);
}

int hp_table_add_column(hp_table *t, const char *key, const char *header, hp_cell_kind kind,
                        int width, const char *sep, unsigned flags)
{
    if (t->nrows > 0)
        return -1;
    hp_table_column *cols = realloc(t->cols, (t->ncols + 1) * sizeof(*cols));
    if (cols == NULL)
        return -1;
    t->cols = cols;
    hp_table_column *c = &cols[t->ncols];
    *c = (hp_table_column){ strdup(key), header ? strdup(header) : NULL, kind, width, sep,
                            flags };
    if (c->key == NULL || (header != NULL && c->header == NULL)) {
        free(c->key), free(c->header);
        return -1;
    }
    t->ncols++;
    return 0;
}

hp_table *hp_table_new_with_columns(const char *key, const char *title,
                                    const hp_column_spec *cols, size_t n)
{
    hp_table *t = hp_table_new(key, title);
    for (size_t i = 0; t != NULL && i < n; i++) {
        const hp_column_spec *c = &cols[i];
        if (hp_table_add_column(t, c->key, c->header, c->kind, c->width, c->sep, c->flags)) {
            hp_table_free(t);
            t = NULL;
        }
    }
    return t;
}

hp_table_cell *hp_table_add_row(hp_table *t)
{
    if (t->nrows == t->cap_rows) {
        size_t cap = t->cap_rows ? 2 * t->cap_rows : 16;
        hp_table_cell *cells = realloc(t->cells, cap * t->ncols * sizeof(*cells));
        if (cells == NULL)
            return NULL;
        t->cells = cells;
        t->cap_rows = cap;
    }
    hp_table_cell *row = &t->cells[t->nrows++ * t->ncols];
    memset(row, 0, t->ncols * sizeof(*row));
    return row;
}

int hp_table_cell_set_text(hp_table_cell *c, const char *s)
{
    free(c->s);
    c->s = strdup(s);
    return c->s != NULL ? 0 : -1;
}

int hp_table_set_note(hp_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(t->note);
    int n = vasprintf(&t->note, fmt, ap);
    va_end(ap);
    if (n < 0)
        t->note = NULL;
    return n < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ text */

static int shown(const hp_table *t, size_t c)
{
    return !(t->cols[c].flags & HP_COL_DATA_ONLY);
}

/* The text width of column c's header: its own and that of the header-less shown
 * columns after it. */
static int header_width(const hp_table *t, size_t c)
{
    int w = t->cols[c].width;
    for (size_t k = c + 1; k < t->ncols && (!shown(t, k) || t->cols[k].header == NULL); k++)
        if (shown(t, k))
            w += (int)strlen(t->cols[k].sep) + t->cols[k].width;
    return w;
}

static void write_header(FILE *out, const hp_table *t)
{
    int first = 1;
    for (size_t c = 0; c < t->ncols; c++) {
        const hp_table_column *col = &t->cols[c];
        if (!shown(t, c) || col->header == NULL)
            continue;
        if (!first)
            fputs(col->sep, out);
        first = 0;
        int w = header_width(t, c);
        if (col->kind == HP_CELL_TEXT)
            fprintf(out, "%-*s", w, col->header);
        else
            fprintf(out, "%*.*s", w, w, col->header);
    }
    fputc('\n', out);
}

static void write_cell(FILE *out, const hp_table_column *col, const hp_table_cell *cell)
{
    int w = col->width;
    switch (col->kind) {
    case HP_CELL_UINT:
        fprintf(out, "%*llu", w, (unsigned long long)cell->u);
        break;
    case HP_CELL_INT:
        fprintf(out, "%*lld", w, (long long)cell->i);
        break;
    case HP_CELL_REAL:
        fprintf(out, "%*.6f", w, cell->d);
        break;
    case HP_CELL_PERCENT:
        fprintf(out, "%*.2f%%", w > 0 ? w - 1 : 0, cell->d);
        break;
    case HP_CELL_RATIO:
        fprintf(out, "%*.2f", w, cell->d);
        break;
    case HP_CELL_TEXT: {
        int indent = 2 * cell->indent;
        const char *s = cell->s != NULL ? cell->s : "";
        fprintf(out, "%*s%-*s", indent, "", w > indent ? w - indent : 0, s);
        break;
    }
    }
}

void hp_table_write_text(FILE *out, const hp_table *t)
{
    if (t->title != NULL)
        fprintf(out, "%s\n\n", t->title);
    write_header(out, t);
    for (size_t r = 0; r < t->nrows; r++) {
        int first = 1;
        for (size_t c = 0; c < t->ncols; c++) {
            if (!shown(t, c))
                continue;
            if (!first)
                fputs(t->cols[c].sep, out);
            first = 0;
            write_cell(out, &t->cols[c], hp_table_cell_at(t, r, c));
        }
        fputc('\n', out);
    }
    if (t->note != NULL)
        fprintf(out, "%s\n", t->note);
    fputc('\n', out);
}

/* ------------------------------------------------------------------ lists */

int hp_table_list_add(hp_table_list *l, hp_table *t)
{
    if (t == NULL)
        return -1;
    hp_table **tables = realloc(l->tables, (l->n + 1) * sizeof(*tables));
    if (tables == NULL) {
        hp_table_free(t);
        return -1;
    }
    l->tables = tables;
    l->tables[l->n++] = t;
    return 0;
}

void hp_table_list_release(hp_table_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        hp_table_free(l->tables[i]);
    free(l->tables);
    l->tables = NULL;
    l->n = 0;
}
