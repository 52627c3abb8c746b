/*
 * Subtree selection patterns (subtree.h). Each list becomes a filter with one region rule
 * per pattern, so the patterns mean what they mean in a filter file and are matched by
 * the same code (filter.c).
 */
#include "subtree.h"

#include <stdio.h>
#include <string.h>

#include "filter.h"

static hp_filter *select_filter;
static hp_filter *exclude_filter;
bool hp__subtree_selecting; /* select_filter != NULL */

/* Appends n bytes of s to the string in out (size bytes), escaping white space, '#' and
 * '\' for the filter lexer when escape is set. Returns 0, or -1 when out is too small. */
static int append(char *out, size_t size, const char *s, size_t n, bool escape)
{
    size_t used = strlen(out);
    for (size_t i = 0; i < n; i++) {
        bool special = escape && strchr(" \t\\#", s[i]) != NULL;
        if (used + special + 1 >= size)
            return -1;
        if (special)
            out[used++] = '\\';
        out[used++] = s[i];
    }
    out[used] = '\0';
    return 0;
}

/* The filter that matches the comma-separated patterns of list (name: its variable, for
 * messages); NULL for an empty list or on error (then *failed is set and err says why). */
static hp_filter *patterns_filter(const char *list, const char *name, char *err,
                                  size_t errlen, int *failed)
{
    static const char begin[] = "SCOREP_REGION_NAMES_BEGIN\n";
    static const char end[] = "SCOREP_REGION_NAMES_END\n";
    if (list[0] == '\0')
        return NULL;
    char text[8192] = "";
    int rc = append(text, sizeof(text), begin, strlen(begin), false);
    for (const char *p = list; rc == 0; p++) {
        size_t n = strcspn(p, ",");
        rc = append(text, sizeof(text), "EXCLUDE ", 8, false);
        rc = rc < 0 ? rc : append(text, sizeof(text), p, n, true);
        rc = rc < 0 ? rc : append(text, sizeof(text), "\n", 1, false);
        p += n;
        if (*p == '\0')
            break;
    }
    rc = rc < 0 ? rc : append(text, sizeof(text), end, strlen(end), false);
    hp_filter *f = NULL;
    if (rc < 0)
        snprintf(err, errlen, "%s: the patterns are too long", name);
    else
        f = hp_filter_parse(text, name, err, errlen);
    if (f == NULL)
        *failed = 1;
    return f;
}

int hp_subtree_setup(const char *select, const char *exclude, char *err, size_t errlen)
{
    int failed = 0;
    select_filter = patterns_filter(select, "HP_SELECT_SUBTREES", err, errlen, &failed);
    hp__subtree_selecting = select_filter != NULL;
    if (!failed)
        exclude_filter = patterns_filter(exclude, "HP_EXCLUDE_SUBTREES", err, errlen,
                                         &failed);
    return failed ? -1 : 0;
}

unsigned hp_subtree_flags(const char *name, const char *mangled)
{
    unsigned flags = 0;
    if (select_filter != NULL && hp_filter_excludes(select_filter, NULL, name, mangled))
        flags |= HP_SUBTREE_SELECT;
    if (exclude_filter != NULL && hp_filter_excludes(exclude_filter, NULL, name, mangled))
        flags |= HP_SUBTREE_EXCLUDE;
    return flags;
}

