/*
 * Filter files: which regions to leave out of the measurement (HP_FILTERING_FILE).
 *
 * The syntax is Score-P's, so that users' existing filter files work unchanged (see
 * doc/formats/FILTER.md): an optional file block (SCOREP_FILE_NAMES_BEGIN ...
 * _END) and an optional region block (SCOREP_REGION_NAMES_BEGIN ... _END), each holding
 * INCLUDE and EXCLUDE rules with shell wildcard patterns. A filter is parsed once at
 * start-up; afterwards it is immutable.
 *
 * Invariants: everything starts included; within a block the last matching pattern
 * decides; a region whose source file is excluded by the file block is excluded whatever
 * the region block says.
 *
 * Thread safety: hp_filter_excludes and hp_filter_is_empty only read the filter and keep
 * no state of their own, so any number of threads may call them at once. They are not
 * async-signal-safe (fnmatch(3) may allocate).
 */
#ifndef HP_MEASUREMENT_FILTER_H
#define HP_MEASUREMENT_FILTER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hp_filter hp_filter; /* opaque */

/* Parses the filter file at path. Returns the filter, or NULL after writing one line
 * "PATH:LINE: found X, expected Y" (syntax error) or "PATH: cannot read: REASON" into err
 * (truncated to errlen; err may be NULL when errlen is 0). An empty file gives an empty
 * filter, not an error. The caller frees the result with hp_filter_free. */
hp_filter *hp_filter_load(const char *path, char *err, size_t errlen);

/* Same as hp_filter_load for text in memory; origin names the text in messages. */
hp_filter *hp_filter_parse(const char *text, const char *origin, char *err, size_t errlen);

/* True when the region must be left out. file: the region's source file, NULL or "" when
 * unknown (then only the region block applies); it is normalised before matching.
 * name: displayed (demangled) name. mangled: mangled name, NULL or equal to name when
 * there is none. A NULL filter excludes nothing. */
bool hp_filter_excludes(const hp_filter *f, const char *file, const char *name,
                        const char *mangled);

/* What the filter says of a region: nothing (no rule matches), or the action of the rule
 * that decides. The GCC plug-in uses it to tell "included because a rule names it" from
 * "included by default". INCLUDED needs a matching INCLUDE rule in the region block, or
 * in the file block when no region rule matches. */
typedef enum hp_filter_verdict {
    HP_FILTER_DEFAULT,
    HP_FILTER_INCLUDED,
    HP_FILTER_EXCLUDED
} hp_filter_verdict;

hp_filter_verdict hp_filter_decide(const hp_filter *f, const char *file, const char *name,
                                   const char *mangled);

/* True when the filter has no patterns at all (or f is NULL), so callers can skip it. */
bool hp_filter_is_empty(const hp_filter *f);

/* Frees the filter; NULL is allowed. */
void hp_filter_free(hp_filter *f);

/* Writes path into out with "/./", "dir/../" and duplicate slashes removed (purely
 * lexical: symbolic links are not resolved; ".." that climbs above the start of a
 * relative path is kept, above "/" it is dropped). Returns 0, or -1 when out (outlen
 * bytes) is too small. Exposed for unit tests. */
int hp_filter_normalize_path(const char *path, char *out, size_t outlen);

#endif
