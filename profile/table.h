/*
 * A report table: typed columns and rows of cells, built once by the code that knows
 * what the table means (summary.c) and then rendered as aligned text (here, for
 * summary.txt and hp-report) or as CSV / JSON (tools/report_format.c). Keeping the
 * numbers typed until rendering is what lets one implementation of every table serve
 * people and scripts alike.
 */
#ifndef HP_PROFILE_TABLE_H
#define HP_PROFILE_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../util/compiler.h"

typedef enum hp_cell_kind {
    HP_CELL_UINT,    /* u, printed as an integer */
    HP_CELL_INT,     /* i */
    HP_CELL_REAL,    /* d, 6 decimals in text */
    HP_CELL_PERCENT, /* d in percent, "12.34%" in text */
    HP_CELL_RATIO,   /* d, 2 decimals in text */
    HP_CELL_TEXT     /* s, left-aligned, indented by 2 * indent spaces in text */
} hp_cell_kind;

typedef enum hp_column_flags {
    HP_COL_TEXT_ONLY = 1U << 0, /* shown in text, left out of CSV / JSON */
    HP_COL_DATA_ONLY = 1U << 1, /* in CSV / JSON only */
    /* in no output: a column that does not fit the table's metric (a percentage of a
     * maximum), kept so that the rows keep one layout for every metric */
    HP_COL_NOWHERE = HP_COL_TEXT_ONLY | HP_COL_DATA_ONLY
} hp_column_flags;

typedef struct hp_table_column {
    char *key;          /* CSV header / JSON key */
    char *header;       /* text header; NULL: covered by the previous column's header */
    hp_cell_kind kind;
    int width;          /* text width (0 for the last, unpadded text column) */
    const char *sep;    /* text separator before this column (a string literal) */
    unsigned flags;
} hp_table_column;

typedef struct hp_table_cell {
    uint64_t u;
    int64_t i;
    double d;
    char *s;
    int indent;
} hp_table_cell;

typedef struct hp_table {
    char *key;   /* names the table in CSV / JSON: "flat", "calltree", ... */
    char *title; /* text heading, NULL for none */
    char *note;  /* text line after the rows, NULL for none */
    hp_table_column *cols;
    size_t ncols;
    hp_table_cell *cells; /* nrows * ncols, row-major */
    size_t nrows;
    size_t cap_rows;
} hp_table;

/* Returns a new empty table, or NULL when out of memory. */
hp_table *hp_table_new(const char *key, const char *title);
void hp_table_free(hp_table *t);

/* Columns are added before the first row. Returns 0 or -1 (out of memory). */
int hp_table_add_column(hp_table *t, const char *key, const char *header, hp_cell_kind kind,
                        int width, const char *sep, unsigned flags);

/* A column as hp_table_add_column takes it: a table whose columns are known up front
 * lists them in an array of these (static where nothing depends on the metric). */
typedef struct hp_column_spec {
    const char *key;
    const char *header; /* NULL: covered by the previous column's header */
    hp_cell_kind kind;
    int width;
    const char *sep;
    unsigned flags;
} hp_column_spec;

/* A new empty table with the n columns of cols, in order; NULL when out of memory.
 * HP_TABLE_NEW(key, title, array) passes an array with its length. */
hp_table *hp_table_new_with_columns(const char *key, const char *title,
                                    const hp_column_spec *cols, size_t n);
#define HP_TABLE_NEW(key, title, cols) \
    hp_table_new_with_columns((key), (title), (cols), sizeof(cols) / sizeof((cols)[0]))

/* Appends a row of zeroed cells; returns its first cell, or NULL (out of memory). */
hp_table_cell *hp_table_add_row(hp_table *t);

/* Sets a text cell to a copy of s. Returns 0 or -1. */
int hp_table_cell_set_text(hp_table_cell *c, const char *s);

/* Sets t->note to a copy of the formatted text. Returns 0 or -1. */
HP_PRINTF(2, 3) int hp_table_set_note(hp_table *t, const char *fmt, ...);

static inline const hp_table_cell *hp_table_cell_at(const hp_table *t, size_t row,
                                                    size_t col)
{
    return &t->cells[row * t->ncols + col];
}

/* Writes the title, a header line, the rows and the note, then an empty line. */
void hp_table_write_text(FILE *out, const hp_table *t);

/* An ordered list of tables, as one report shows them. */
typedef struct hp_table_list {
    hp_table **tables;
    size_t n;
} hp_table_list;

/* Appends t (taking it over; t == NULL counts as out of memory). Returns 0 or -1. */
int hp_table_list_add(hp_table_list *l, hp_table *t);
void hp_table_list_release(hp_table_list *l);

#endif
