/*
 * Filter files: parser and matcher for Score-P's filter syntax (formats/FILTER.md).
 *
 * The parser is a small lexer (words separated by white space, '#' comments, backslash
 * escapes) feeding a state machine with three states: outside any block, inside a block
 * before the first rule, inside a rule. Every pattern is stored with the action and the
 * name kind (displayed or mangled) of the rule it belongs to, one flat list per block, so
 * the matcher only has to find the last pattern that matches. Parsing runs once at
 * start-up and may allocate; matching runs once per new region and neither allocates nor
 * writes anything but its own stack, so concurrent readers need no lock.
 */
#if !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* strdup(), fnmatch() under -std=c11 */
#endif

#include "filter.h"

#include "util/escape.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* File names longer than this are matched as given, without normalisation; PATH_MAX on
 * Linux is the same, so real source files always fit. */
enum { NORMALIZED_PATH_MAX = 4096 };

struct pattern {
    char *text;   /* fnmatch(3) pattern, backslash escapes included */
    bool exclude; /* action of the rule the pattern belongs to */
    bool mangled; /* matches the mangled name (region block only) */
};

struct pattern_list {
    struct pattern *items;
    size_t count;
    size_t capacity;
};

struct hp_filter {
    struct pattern_list files;
    struct pattern_list regions;
};

/* ---------------------------------------------------------------------------------- */
/* Messages                                                                            */

static void write_message(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------------------- */
/* Lexer                                                                               */

struct lexer {
    const char *text; /* start of the whole text, to know what precedes the end */
    const char *pos;
    int line;
    const char *origin;
    char *err;
    size_t errlen;
};

/* One word of the text, backslash escapes kept for fnmatch. A word that contained an
 * escape is never a keyword, so "\INCLUDE" is a pattern matching the name INCLUDE. */
struct word {
    char *text;
    size_t length;
    size_t capacity;
    bool escaped;
    int line;
};

static int out_of_memory(const struct lexer *lx)
{
    write_message(lx->err, lx->errlen, "%s: out of memory", lx->origin);
    return -1;
}

static int word_append(struct word *w, char c)
{
    if (w->length + 1 >= w->capacity) {
        size_t capacity = w->capacity ? 2 * w->capacity : 64;
        char *text = realloc(w->text, capacity);
        if (text == NULL)
            return -1;
        w->text = text;
        w->capacity = capacity;
    }
    w->text[w->length++] = c;
    w->text[w->length] = '\0';
    return 0;
}

/* White space other than the line break, which the lexer counts. */
static bool is_blank(char c)
{
    return c != '\n' && isspace((unsigned char)c);
}

static bool at_line_break(const char *s)
{
    return s[0] == '\n' || (s[0] == '\r' && s[1] == '\n');
}

static void skip_blanks_and_comments(struct lexer *lx)
{
    for (;;) {
        char c = *lx->pos;
        if (c == '\n') {
            lx->line++;
            lx->pos++;
        } else if (is_blank(c)) {
            lx->pos++;
        } else if (c == '#') {
            /* The comment ends before the line break so that the line is counted. */
            while (*lx->pos != '\0' && *lx->pos != '\n')
                lx->pos++;
        } else {
            return;
        }
    }
}

/* The line the end of the text is on: a final line break ends the last line rather than
 * starting a new, empty one, so "found end of file" points at a line the user can see. */
static int end_of_text_line(const struct lexer *lx)
{
    if (lx->pos > lx->text && lx->pos[-1] == '\n')
        return lx->line - 1;
    return lx->line;
}

/* Handles the backslash at lx->pos. The backslash stays in the word: fnmatch(3) reads
 * "\ ", "\#" and "\*" as the literal characters, which is exactly what an escape means
 * here. A backslash cannot join lines: that is an error, as in Score-P. */
static int read_escape(struct lexer *lx, struct word *w)
{
    const char *next = lx->pos + 1;
    if (*next == '\0' || at_line_break(next)) {
        write_message(lx->err, lx->errlen,
                      "%s:%d: found '\\' at end of %s, expected a character to escape after it",
                      lx->origin, lx->line, *next == '\0' ? "file" : "line");
        return -1;
    }
    if (word_append(w, '\\') != 0 || word_append(w, *next) != 0)
        return out_of_memory(lx);
    w->escaped = true;
    lx->pos += 2;
    return 0;
}

/* Reads the next word into w. Returns 1 for a word, 0 at the end of the text, -1 after
 * writing an error message. */
static int next_word(struct lexer *lx, struct word *w)
{
    skip_blanks_and_comments(lx);
    w->length = 0;
    w->escaped = false;
    w->line = lx->line;
    if (*lx->pos == '\0')
        return 0;
    for (;;) {
        char c = *lx->pos;
        if (c == '\0' || c == '#' || isspace((unsigned char)c))
            break;
        if (c == '\\') {
            if (read_escape(lx, w) != 0)
                return -1;
            continue;
        }
        if (word_append(w, c) != 0)
            return out_of_memory(lx);
        lx->pos++;
    }
    return 1;
}

/* ---------------------------------------------------------------------------------- */
/* Parser                                                                              */

enum keyword {
    KEYWORD_NONE, /* a pattern */
    KEYWORD_FILE_BEGIN,
    KEYWORD_FILE_END,
    KEYWORD_REGION_BEGIN,
    KEYWORD_REGION_END,
    KEYWORD_INCLUDE,
    KEYWORD_EXCLUDE,
    KEYWORD_MANGLED,
    KEYWORD_DEMANGLED
};

static const struct {
    const char *text;
    enum keyword keyword;
} keywords[] = {
    { "SCOREP_FILE_NAMES_BEGIN", KEYWORD_FILE_BEGIN },
    { "SCOREP_FILE_NAMES_END", KEYWORD_FILE_END },
    { "SCOREP_REGION_NAMES_BEGIN", KEYWORD_REGION_BEGIN },
    { "SCOREP_REGION_NAMES_END", KEYWORD_REGION_END },
    { "INCLUDE", KEYWORD_INCLUDE },
    { "EXCLUDE", KEYWORD_EXCLUDE },
    { "MANGLED", KEYWORD_MANGLED },
    { "DEMANGLED", KEYWORD_DEMANGLED },
};

enum block { BLOCK_NONE, BLOCK_FILES, BLOCK_REGIONS };

struct parser {
    struct lexer lexer;
    hp_filter *filter;
    enum block block;
    bool in_rule;  /* an INCLUDE or EXCLUDE was seen in the current block */
    bool exclude;  /* the current rule's action */
    bool mangled;  /* the current rule's patterns match mangled names */
};

/* Keywords are case-sensitive and never escaped. */
static enum keyword keyword_of(const struct word *w)
{
    if (w->escaped)
        return KEYWORD_NONE;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(w->text, keywords[i].text) == 0)
            return keywords[i].keyword;
    return KEYWORD_NONE;
}

/* What the parser accepts in its current state, for "found X, expected Y". */
static const char *expected_now(const struct parser *p)
{
    switch (p->block) {
    case BLOCK_NONE:
        return "SCOREP_FILE_NAMES_BEGIN or SCOREP_REGION_NAMES_BEGIN";
    case BLOCK_FILES:
        return p->in_rule ? "a pattern, INCLUDE, EXCLUDE or SCOREP_FILE_NAMES_END"
                          : "INCLUDE, EXCLUDE or SCOREP_FILE_NAMES_END";
    case BLOCK_REGIONS:
        return p->in_rule
                   ? "a pattern, INCLUDE, EXCLUDE, MANGLED, DEMANGLED or SCOREP_REGION_NAMES_END"
                   : "INCLUDE, EXCLUDE or SCOREP_REGION_NAMES_END";
    }
    return "";
}

/* The word is echoed escaped and cut: the file may hold anything, terminal escapes too. */
static int unexpected_word(const struct parser *p, const struct word *w)
{
    const struct lexer *lx = &p->lexer;
    char shown[100];
    write_message(lx->err, lx->errlen, "%s:%d: found '%s', expected %s", lx->origin, w->line,
                  hp_escape_text(shown, sizeof(shown), w->text, w->length), expected_now(p));
    return -1;
}

static int add_pattern(struct parser *p, const char *text)
{
    struct pattern_list *list =
        p->block == BLOCK_FILES ? &p->filter->files : &p->filter->regions;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 16;
        struct pattern *items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            return out_of_memory(&p->lexer);
        list->items = items;
        list->capacity = capacity;
    }
    char *copy = strdup(text);
    if (copy == NULL)
        return out_of_memory(&p->lexer);
    list->items[list->count++] = (struct pattern){
        .text = copy,
        .exclude = p->exclude,
        .mangled = p->mangled,
    };
    return 0;
}

static int parse_outside_block(struct parser *p, enum keyword kw, const struct word *w)
{
    if (kw == KEYWORD_FILE_BEGIN)
        p->block = BLOCK_FILES;
    else if (kw == KEYWORD_REGION_BEGIN)
        p->block = BLOCK_REGIONS;
    else
        return unexpected_word(p, w);
    p->in_rule = false;
    return 0;
}

/* An INCLUDE or EXCLUDE directly followed by another keyword is an empty rule; Score-P
 * accepts it, so we do too (it changes nothing). */
static int parse_inside_block(struct parser *p, enum keyword kw, const struct word *w)
{
    enum keyword end = p->block == BLOCK_FILES ? KEYWORD_FILE_END : KEYWORD_REGION_END;
    switch (kw) {
    case KEYWORD_INCLUDE:
    case KEYWORD_EXCLUDE:
        p->in_rule = true;
        p->exclude = kw == KEYWORD_EXCLUDE;
        p->mangled = false; /* each rule starts in demangled mode */
        return 0;
    case KEYWORD_MANGLED:
    case KEYWORD_DEMANGLED:
        /* File names have no mangled form, so the switch exists only for regions. */
        if (!p->in_rule || p->block != BLOCK_REGIONS)
            return unexpected_word(p, w);
        p->mangled = kw == KEYWORD_MANGLED;
        return 0;
    case KEYWORD_NONE:
        if (!p->in_rule)
            return unexpected_word(p, w);
        return add_pattern(p, w->text);
    default:
        if (kw != end) /* a nested BEGIN or the other block's END */
            return unexpected_word(p, w);
        p->block = BLOCK_NONE;
        p->in_rule = false;
        return 0;
    }
}

static int parse_word(struct parser *p, const struct word *w)
{
    enum keyword kw = keyword_of(w);
    if (p->block == BLOCK_NONE)
        return parse_outside_block(p, kw, w);
    return parse_inside_block(p, kw, w);
}

static int check_end_of_text(const struct parser *p)
{
    const struct lexer *lx = &p->lexer;
    if (p->block == BLOCK_NONE)
        return 0;
    write_message(lx->err, lx->errlen, "%s:%d: found end of file, expected %s", lx->origin,
                  end_of_text_line(lx), expected_now(p));
    return -1;
}

static int parse_all(struct parser *p)
{
    struct word w = { 0 };
    int rc;
    while ((rc = next_word(&p->lexer, &w)) == 1) {
        rc = parse_word(p, &w);
        if (rc != 0)
            break;
    }
    free(w.text);
    if (rc != 0)
        return -1;
    return check_end_of_text(p);
}

/* ---------------------------------------------------------------------------------- */
/* Public: construction                                                                */

static void pattern_list_release(struct pattern_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].text);
    free(list->items);
}

void hp_filter_free(hp_filter *f)
{
    if (f == NULL)
        return;
    pattern_list_release(&f->files);
    pattern_list_release(&f->regions);
    free(f);
}

hp_filter *hp_filter_parse(const char *text, const char *origin, char *err, size_t errlen)
{
    struct parser p = {
        .lexer = { .text = text, .pos = text, .line = 1,
                   .origin = origin ? origin : "(filter)", .err = err, .errlen = errlen },
        .block = BLOCK_NONE,
    };
    p.filter = calloc(1, sizeof *p.filter);
    if (p.filter == NULL) {
        out_of_memory(&p.lexer);
        return NULL;
    }
    if (parse_all(&p) != 0) {
        hp_filter_free(p.filter);
        return NULL;
    }
    write_message(err, errlen, "%s", "");
    return p.filter;
}

/* Reads the whole file into a NUL-terminated buffer and its length into *size. Returns
 * it, or NULL with *error set to an errno value. fopen succeeds on a directory; the read
 * then fails with EISDIR. */
static char *read_whole_file(const char *path, size_t *size, int *error)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        *error = errno;
        return NULL;
    }
    size_t length = 0, capacity = 0;
    char *buffer = NULL;
    for (;;) {
        if (capacity - length < 2) {
            size_t grown = capacity ? 2 * capacity : 4096;
            char *bigger = realloc(buffer, grown);
            if (bigger == NULL) {
                *error = ENOMEM;
                goto fail;
            }
            buffer = bigger;
            capacity = grown;
        }
        errno = 0;
        size_t n = fread(buffer + length, 1, capacity - length - 1, fp);
        length += n;
        if (n == 0) {
            if (ferror(fp)) {
                *error = errno ? errno : EIO;
                goto fail;
            }
            break;
        }
    }
    fclose(fp);
    buffer[length] = '\0';
    *size = length;
    return buffer;
fail:
    fclose(fp);
    free(buffer);
    return NULL;
}

/* A NUL byte would end the text early and be reported as "found end of file": a filter
 * file is text, so a NUL anywhere is the error, named by line and column (1-based). */
static int check_no_nul(const char *text, size_t length, const char *path, char *err,
                        size_t errlen)
{
    const char *nul = memchr(text, '\0', length);
    if (nul == NULL)
        return 0;
    int line = 1;
    const char *line_start = text;
    for (const char *c = text; c < nul; c++)
        if (*c == '\n') {
            line++;
            line_start = c + 1;
        }
    write_message(err, errlen, "%s:%d:%d: found a NUL byte, expected text (a filter file is "
                  "a text file)", path, line, (int)(nul - line_start) + 1);
    return -1;
}

hp_filter *hp_filter_load(const char *path, char *err, size_t errlen)
{
    int error = 0;
    size_t length = 0;
    char shown[NORMALIZED_PATH_MAX + 100]; /* the path as messages show it: escaped */
    hp_escape_text(shown, sizeof shown, path, strlen(path));
    char *text = read_whole_file(path, &length, &error);
    if (text == NULL) {
        write_message(err, errlen, "%s: cannot read: %s", shown, strerror(error));
        return NULL;
    }
    if (check_no_nul(text, length, shown, err, errlen) < 0) {
        free(text);
        return NULL;
    }
    hp_filter *f = hp_filter_parse(text, shown, err, errlen);
    free(text);
    return f;
}

/* ---------------------------------------------------------------------------------- */
/* Public: matching                                                                    */

static int append_bytes(char *out, size_t outlen, size_t *length, const char *s, size_t n)
{
    if (*length + n + 1 > outlen)
        return -1;
    memcpy(out + *length, s, n);
    *length += n;
    out[*length] = '\0';
    return 0;
}

/* Removes the last component of out (and the '/' before it), never going below keep
 * characters: keep covers the leading "/" of an absolute path or the leading ".."s of a
 * relative one, which cannot be removed. */
static void drop_last_component(char *out, size_t *length, size_t keep)
{
    while (*length > keep && out[*length - 1] != '/')
        (*length)--;
    if (*length > keep)
        (*length)--;
    out[*length] = '\0';
}

int hp_filter_normalize_path(const char *path, char *out, size_t outlen)
{
    if (outlen == 0)
        return -1;
    bool absolute = path[0] == '/';
    size_t root = absolute ? 1 : 0;
    size_t length = 0, keep = root;
    out[0] = '\0';
    if (absolute && append_bytes(out, outlen, &length, "/", 1) != 0)
        return -1;
    for (const char *s = path; *s != '\0';) {
        while (*s == '/')
            s++;
        const char *name = s;
        while (*s != '\0' && *s != '/')
            s++;
        size_t n = (size_t)(s - name);
        if (n == 0 || (n == 1 && name[0] == '.'))
            continue;
        if (n == 2 && name[0] == '.' && name[1] == '.') {
            if (length > keep) {
                drop_last_component(out, &length, keep);
                continue;
            }
            if (absolute) /* "/.." is "/" */
                continue;
        }
        if (length > root && append_bytes(out, outlen, &length, "/", 1) != 0)
            return -1;
        if (append_bytes(out, outlen, &length, name, n) != 0)
            return -1;
        if (n == 2 && name[0] == '.' && name[1] == '.')
            keep = length;
    }
    if (length == 0)
        return append_bytes(out, outlen, &length, ".", 1);
    return 0;
}

/* The decision of one block: the last pattern that matches decides, so the list is read
 * backwards and the first match wins. Without FNM_PATHNAME, '*' also matches '/'. */
/* The verdict of the last pattern of list that matches. */
static hp_filter_verdict list_verdict(const struct pattern_list *list, const char *name,
                                      const char *mangled)
{
    for (size_t i = list->count; i-- > 0;) {
        const struct pattern *pt = &list->items[i];
        const char *subject = pt->mangled ? mangled : name;
        if (fnmatch(pt->text, subject, 0) == 0)
            return pt->exclude ? HP_FILTER_EXCLUDED : HP_FILTER_INCLUDED;
    }
    return HP_FILTER_DEFAULT;
}

static hp_filter_verdict file_verdict(const hp_filter *f, const char *file)
{
    if (file == NULL || file[0] == '\0' || f->files.count == 0)
        return HP_FILTER_DEFAULT;
    char normalized[NORMALIZED_PATH_MAX];
    const char *subject = file;
    if (hp_filter_normalize_path(file, normalized, sizeof normalized) == 0)
        subject = normalized;
    return list_verdict(&f->files, subject, subject);
}

hp_filter_verdict hp_filter_decide(const hp_filter *f, const char *file, const char *name,
                                   const char *mangled)
{
    if (f == NULL)
        return HP_FILTER_DEFAULT;
    if (name == NULL)
        name = "";
    /* MANGLED patterns fall back to the displayed name when there is no other. */
    if (mangled == NULL || mangled[0] == '\0')
        mangled = name;
    hp_filter_verdict by_file = file_verdict(f, file);
    if (by_file == HP_FILTER_EXCLUDED)
        return by_file; /* an excluded file cannot be re-included by the region block */
    hp_filter_verdict by_region = list_verdict(&f->regions, name, mangled);
    return by_region != HP_FILTER_DEFAULT ? by_region : by_file;
}

bool hp_filter_excludes(const hp_filter *f, const char *file, const char *name,
                        const char *mangled)
{
    return hp_filter_decide(f, file, name, mangled) == HP_FILTER_EXCLUDED;
}

bool hp_filter_is_empty(const hp_filter *f)
{
    return f == NULL || (f->files.count == 0 && f->regions.count == 0);
}
