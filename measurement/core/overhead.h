/*
 * What instrumentation costs, and keeping it within a budget.
 *
 * - The probe cost (ticks of one enter/exit pair) is calibrated at start-up.
 * - Code built with the GCC plug-in reports, per translation unit, how many functions
 *   were instrumented and why others were not (plugin_abi.h); the totals go into the
 *   profile's note on instrumentation.
 * - With HP_OVERHEAD_BUDGET=P (percent, 0 = off), a region whose probe cost exceeds P% of
 *   its mean inclusive time is switched off once it has been visited often enough on one
 *   call path of one thread (HP_OVERHEAD_CHECK_VISITS, and every multiple): its time goes
 *   to its caller from then on, its visits so far stay in the profile, and the experiment
 *   lists it with a filter file for the next build. Only plug-in-built functions can be
 *   switched off (their descriptor holds the switch; -finstrument-functions hooks cannot
 *   be skipped without losing the exit of a frame already pushed).
 */
#ifndef HP_MEASUREMENT_OVERHEAD_H
#define HP_MEASUREMENT_OVERHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cct.h"
#include "region.h"
#include "util/compiler.h"

enum { HP_OVERHEAD_CHECK_VISITS = 1024 }; /* a power of two */

extern bool hp__overhead_budget_on; /* read-mostly: set once by hp_overhead_init */

/* Calibrates the probe cost (after hp_timer_init) and arms the budget (percent, 0 = off). */
void hp_overhead_init(uint64_t budget_percent);

/* True on the visits at which a region's cost is checked against the budget. */
static inline bool hp_overhead_check_due(const hp_cct_node *node)
{
    return (node->visits & (HP_OVERHEAD_CHECK_VISITS - 1)) == 0;
}

/* True when node's region costs more than the budget allows (cold: called on the visits
 * hp_overhead_check_due picks). The adapter then switches the region off and calls
 * hp_overhead_record_demotion once. */
bool hp__overhead_over_budget(const hp_cct_node *node);
void hp_overhead_record_demotion(hp_region *r);

/* Regions switched off by the budget, in the order it happened; *count is set. */
hp_region *const *hp_overhead_demoted(size_t *count);

/* What the compiler instrumented, summed over the translation units (GCC plug-in). */
typedef enum hp_instr_count {
    HP_INSTR_UNITS,        /* translation units that reported */
    HP_INSTR_INSTRUMENTED, /* functions given hooks */
    HP_INSTR_INLINE,       /* skipped: declared inline */
    HP_INSTR_ARTIFICIAL,   /* skipped: compiler-generated */
    HP_INSTR_SYSTEM,       /* skipped: defined in a system header */
    HP_INSTR_FILTERED,     /* skipped: compile-time filter */
    HP_INSTR_COUNTS
} hp_instr_count;

/* Adds one unit's counts (indexes HP_INSTR_INSTRUMENTED ... HP_INSTR_FILTERED). */
void hp_overhead_add_unit(const uint64_t counts[HP_INSTR_COUNTS]);
void hp_overhead_unit_totals(uint64_t out[HP_INSTR_COUNTS]);

/* Notes a translation unit that hp-instrument compiled again after the GCC plug-in
 * failed (its fallback): file, what failed, what was used instead. Copies the strings
 * (the unit may be unloaded before the end); called from constructors, not hot. */
void hp_overhead_add_fallback(const char *file, const char *failed, const char *used);

/* The fallen-back units as lines "file: used (failed)", in the order noted; *count is
 * how many units fell back, of which *kept have a line (the first few dozen). */
char *const *hp_overhead_fallback_units(size_t *count, size_t *kept);

/* Calibrated cost of one enter/exit pair, in timer ticks. */
uint64_t hp_overhead_probe_ticks(void);

#endif
