/*
 * Which MPI functions are measured (HP_MPI_ENABLE_GROUPS, HP_MPI_EXCLUDE) and which of
 * them unwind when sampling is on (HP_MPI_UNWIND_EXCLUDE): fills hp_mpi_measured[] and
 * hp_mpi_unwind[] from the generated table hp_mpi_functions[].
 *
 * A function is measured when any of its groups is enabled and it is not excluded.
 * Excluding MPI_X also excludes its large-count variant MPI_X_c. Names and groups are
 * case-insensitive; list items are separated by commas and/or blanks. An unset or blank
 * group list means "default".
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mpi_selection.h"
#include "mpi_adapter.h"
#include "mpi_functions.h"
#include "util/escape.h"

unsigned char hp_mpi_measured[HP_MPI_FN_COUNT];
unsigned char hp_mpi_unwind[HP_MPI_FN_COUNT];

static const struct {
    const char *name;
    unsigned bits;
} group_names[] = {
    { "cg", HP_MPI_GROUP_CG },       { "coll", HP_MPI_GROUP_COLL },
    { "env", HP_MPI_GROUP_ENV },     { "err", HP_MPI_GROUP_ERR },
    { "ext", HP_MPI_GROUP_EXT },     { "io", HP_MPI_GROUP_IO },
    { "misc", HP_MPI_GROUP_MISC },   { "p2p", HP_MPI_GROUP_P2P },
    { "rma", HP_MPI_GROUP_RMA },     { "spawn", HP_MPI_GROUP_SPAWN },
    { "topo", HP_MPI_GROUP_TOPO },   { "type", HP_MPI_GROUP_TYPE },
    { "xnonblock", HP_MPI_GROUP_XNONBLOCK }, { "xreqtest", HP_MPI_GROUP_XREQTEST },
};

#define GROUP_DEFAULT                                                                  \
    (HP_MPI_GROUP_CG | HP_MPI_GROUP_COLL | HP_MPI_GROUP_ENV | HP_MPI_GROUP_IO |        \
     HP_MPI_GROUP_P2P | HP_MPI_GROUP_RMA | HP_MPI_GROUP_TOPO | HP_MPI_GROUP_XNONBLOCK)
#define GROUP_ALL ((HP_MPI_GROUP_XREQTEST << 1) - 1u)

#define ACCEPTED_GROUPS                                                                \
    "all, default, cg, coll, env, err, ext, io, misc, p2p, rma, spawn, topo, type, "   \
    "xnonblock, xreqtest"

/* Next list item of *s into word (NUL-terminated, truncated to cap-1); 0 at the end. */
static int next_word(const char **s, char *word, size_t cap)
{
    const char *p = *s;
    while (*p == ',' || isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return 0;
    size_t n = 0;
    while (*p && *p != ',' && !isspace((unsigned char)*p)) {
        if (n + 1 < cap)
            word[n++] = *p;
        p++;
    }
    word[n] = '\0';
    *s = p;
    return 1;
}

static int parse_groups(const char *groups, unsigned *bits, char *err, size_t errlen)
{
    char word[64];
    const char *s = groups;
    *bits = 0;
    if (groups == NULL || !next_word(&s, word, sizeof word)) {
        *bits = GROUP_DEFAULT;
        return 0;
    }
    s = groups;
    while (next_word(&s, word, sizeof word)) {
        if (strcasecmp(word, "all") == 0) {
            *bits |= GROUP_ALL;
            continue;
        }
        if (strcasecmp(word, "default") == 0) {
            *bits |= GROUP_DEFAULT;
            continue;
        }
        size_t i;
        for (i = 0; i < sizeof group_names / sizeof group_names[0]; i++)
            if (strcasecmp(word, group_names[i].name) == 0)
                break;
        if (i == sizeof group_names / sizeof group_names[0]) {
            char shown_word[100], shown_groups[100]; /* escaped and cut */
            snprintf(err, errlen,
                     "HP_MPI_ENABLE_GROUPS: unknown MPI group '%s' in '%s'; accepted: %s",
                     hp_escape_text(shown_word, sizeof shown_word, word, strlen(word)),
                     hp_escape_text(shown_groups, sizeof shown_groups, groups, strlen(groups)),
                     ACCEPTED_GROUPS);
            return -1;
        }
        *bits |= group_names[i].bits;
    }
    return 0;
}

/* Index of the function called name, or -1. */
static int find_function(const char *name)
{
    for (unsigned i = 0; i < hp_mpi_function_count; i++)
        if (strcasecmp(hp_mpi_functions[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Sets sel[i] = 0 for every function named in list (and its large-count variant).
 * Returns 0, or -1 with a message naming the variable and the unknown name. */
static int clear_functions(const char *var, const char *list, unsigned char *sel, char *err,
                           size_t errlen)
{
    char word[128];
    const char *s = list ? list : "";
    while (next_word(&s, word, sizeof word)) {
        int i = find_function(word);
        if (i < 0) {
            char shown[100]; /* escaped and cut */
            snprintf(err, errlen,
                     "%s: unknown MPI function '%s'; accepted: names of MPI functions such "
                     "as MPI_Send or MPI_Allreduce (hp-info lists them)", var,
                     hp_escape_text(shown, sizeof shown, word, strlen(word)));
            return -1;
        }
        sel[i] = 0;
        char large[sizeof word + 2];
        snprintf(large, sizeof large, "%s_c", hp_mpi_functions[i].name);
        int j = find_function(large);
        if (j >= 0)
            sel[j] = 0;
    }
    return 0;
}

int hp_mpi_selection_init(const char *groups, const char *exclude, char *err, size_t errlen)
{
    unsigned bits;
    if (errlen > 0)
        err[0] = '\0';
    if (parse_groups(groups, &bits, err, errlen) != 0)
        return -1;
    unsigned char sel[HP_MPI_FN_COUNT];
    for (unsigned i = 0; i < hp_mpi_function_count; i++)
        sel[i] = (hp_mpi_functions[i].groups & bits) != 0;
    if (clear_functions("HP_MPI_EXCLUDE", exclude, sel, err, errlen) != 0)
        return -1;
    /* Publish only a complete, valid selection. */
    memcpy(hp_mpi_measured, sel, sizeof sel);
    return 0;
}

int hp_mpi_unwind_init(const char *exclude, char *err, size_t errlen)
{
    unsigned char sel[HP_MPI_FN_COUNT];
    memset(sel, 1, sizeof sel);
    if (clear_functions("HP_MPI_UNWIND_EXCLUDE", exclude, sel, err, errlen) != 0)
        return -1;
    memcpy(hp_mpi_unwind, sel, sizeof sel);
    return 0;
}
