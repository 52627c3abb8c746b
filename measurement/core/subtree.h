/*
 * Subtree selection (HP_SELECT_SUBTREES, HP_EXCLUDE_SUBTREES): which regions start a
 * measured subtree and which end one.
 *
 * With HP_SELECT_SUBTREES=f,g only calls of f and g and everything they call are
 * measured; the rest is switched off and its time stays with the program root. With
 * HP_EXCLUDE_SUBTREES=h a call of h is measured (with its inclusive time) but nothing it
 * calls. Both lists take the filter file's wildcard patterns, matched against a region's
 * displayed name when the region is defined; the result is a flag in the region
 * (hp_region.subtree), which the enter path reads. The switching itself is per location,
 * in the cold half of enter (event.c), through the location's depth limit: outside a
 * selected subtree the limit is 0, inside an excluded one it is the excluded frame's
 * depth, so a switched-off call costs what a call below HP_PROFILING_MAX_DEPTH costs.
 */
#ifndef HP_MEASUREMENT_SUBTREE_H
#define HP_MEASUREMENT_SUBTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

enum {
    HP_SUBTREE_SELECT = 1u << 0, /* a call starts a measured subtree */
    HP_SUBTREE_EXCLUDE = 1u << 1 /* a call is measured, its callees are not */
};

/* Start-up: the two comma-separated pattern lists (empty = none). Returns 0, or -1 with
 * a message in err. */
int hp_subtree_setup(const char *select, const char *exclude, char *err, size_t errlen);

/* HP_SUBTREE_* flags of a region with this displayed and mangled name (0 = neither). */
unsigned hp_subtree_flags(const char *name, const char *mangled);

/* True when HP_SELECT_SUBTREES is set: locations start switched off. Inline: every pop
 * of a location's outermost frame asks (hp_event_pop), which is every MPI call of a
 * program built without function hooks. */
extern HP_HIDDEN bool hp__subtree_selecting;

static inline bool hp_subtree_selecting(void)
{
    return hp__subtree_selecting;
}

#endif
