/*
 * Probe cost, the overhead budget, and what the compiler instrumented (overhead.h).
 *
 * Demotions are rare (at most one per region), so they are recorded in a fixed array by
 * an atomic index; the regions themselves live as long as the registry. Units that fell
 * back at build time are noted the same way, as copied lines.
 */
#include "overhead.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timer.h"

enum { MAX_DEMOTED = 4096, CALIBRATION_ROUNDS = 7, CALIBRATION_PAIRS = 256 };
enum { MAX_FALLBACK_LINES = 64 };

bool hp__overhead_budget_on;
static uint64_t budget_percent;
static uint64_t probe_ticks;
static hp_region *demoted[MAX_DEMOTED];
static _Atomic size_t demoted_count;
static _Atomic uint64_t unit_totals[HP_INSTR_COUNTS];
static char *fallback_lines[MAX_FALLBACK_LINES];
static _Atomic size_t fallback_count;

/*
 * An enter/exit pair costs two time-stamp reads plus a little bookkeeping, and the reads
 * are nearly all of it (doc/bench.md: 20.0 of 20.2 ns per call on the reference VM). The
 * fastest of a few rounds of back-to-back read pairs is the estimate: a preempted round
 * only makes a round slower.
 */
static uint64_t calibrate_probe(void)
{
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < CALIBRATION_ROUNDS; round++) {
        volatile uint64_t sink = 0;
        uint64_t start = hp_timer_now();
        for (int i = 0; i < CALIBRATION_PAIRS; i++)
            sink += hp_timer_now() - hp_timer_now();
        uint64_t ticks = hp_timer_now() - start;
        (void)sink;
        if (ticks < best)
            best = ticks;
    }
    uint64_t per_pair = best / CALIBRATION_PAIRS;
    return per_pair > 0 ? per_pair : 1;
}

void hp_overhead_init(uint64_t percent)
{
    probe_ticks = calibrate_probe();
    budget_percent = percent;
    hp__overhead_budget_on = percent > 0;
}

uint64_t hp_overhead_probe_ticks(void)
{
    return probe_ticks;
}

/* probe / mean > budget%, i.e. probe * visits * 100 > budget * inclusive ticks. */
bool hp__overhead_over_budget(const hp_cct_node *node)
{
    if (node->visits == 0)
        return false;
    return (double)probe_ticks * (double)node->visits * 100.0 >
           (double)budget_percent * (double)node->incl_ticks;
}

void hp_overhead_record_demotion(hp_region *r)
{
    r->demoted = true;
    size_t i = atomic_fetch_add(&demoted_count, 1);
    if (i < MAX_DEMOTED)
        demoted[i] = r;
}

hp_region *const *hp_overhead_demoted(size_t *count)
{
    size_t n = atomic_load(&demoted_count);
    *count = n < MAX_DEMOTED ? n : MAX_DEMOTED;
    return demoted;
}

void hp_overhead_add_unit(const uint64_t counts[HP_INSTR_COUNTS])
{
    atomic_fetch_add(&unit_totals[HP_INSTR_UNITS], 1);
    for (int i = HP_INSTR_INSTRUMENTED; i < HP_INSTR_COUNTS; i++)
        atomic_fetch_add(&unit_totals[i], counts[i]);
}

void hp_overhead_add_fallback(const char *file, const char *failed, const char *used)
{
    size_t i = atomic_fetch_add(&fallback_count, 1);
    if (i >= MAX_FALLBACK_LINES)
        return;
    size_t size = strlen(file) + strlen(used) + strlen(failed) + sizeof(":  ()");
    char *line = malloc(size);
    if (line != NULL)
        snprintf(line, size, "%s: %s (%s)", file, used, failed);
    fallback_lines[i] = line; /* NULL when out of memory: counted, not shown */
}

char *const *hp_overhead_fallback_units(size_t *count, size_t *kept)
{
    *count = atomic_load(&fallback_count);
    *kept = *count < MAX_FALLBACK_LINES ? *count : MAX_FALLBACK_LINES;
    return fallback_lines;
}

void hp_overhead_unit_totals(uint64_t out[HP_INSTR_COUNTS])
{
    for (int i = 0; i < HP_INSTR_COUNTS; i++)
        out[i] = atomic_load(&unit_totals[i]);
}
