/*
 * The instrumentation section of summary.txt (and of hp-report's text): what the compiler
 * instrumented and what it left out, the calibrated probe cost, the share of the run time
 * it implies (the estimated dilation), the regions the overhead budget switched off
 * (overhead.h), and the translation units that hp-instrument compiled again without the
 * plug-in after it failed on them.
 */
#include "summary.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

/* Visits of region r over every call path and location. */
static uint64_t region_visits(const hp_profile *p, const hp_profile_metric *visits, size_t r)
{
    const uint64_t *v = visits->values;
    uint64_t sum = 0;
    for (size_t c = 0; c < p->ncnodes; c++)
        if (p->cnodes[c].region == r)
            for (size_t l = 0; l < p->nlocations; l++)
                sum += v[c * p->nlocations + l];
    return sum;
}

static void write_demoted(FILE *out, const hp_profile *p)
{
    const hp_profile_metric *visits = hp_profile_find_metric(p, "visits");
    size_t n = 0;
    for (size_t r = 0; r < p->nregions; r++)
        n += p->regions[r].demoted;
    fprintf(out, "  overhead budget: %" PRIu64 "%% of a region's time; %zu region%s switched off "
            "during the run%s\n", p->instrumentation.budget_percent, n, n == 1 ? "" : "s",
            n > 0 ? " (visits until then; demoted.filter leaves them out at the next build):"
                  : "");
    for (size_t r = 0; r < p->nregions; r++)
        if (p->regions[r].demoted)
            fprintf(out, "    %12" PRIu64 "  %s\n",
                    visits != NULL ? region_visits(p, visits, r) : 0, p->regions[r].name);
}

/*
 * The estimated dilation, as the share of the measured run time that went into probes
 * (probe cost x visits / measured time), which cannot exceed 100%. The estimate can: the
 * calibrated cost is of back-to-back probes, and a real call overlaps its probes with the
 * program's own work. Then the line says so instead of printing a share above 100%.
 * Returns the share in percent, capped at 100.
 */
static double write_dilation(FILE *out, double probe_ns, uint64_t visits, uint64_t measured_ns)
{
    double probes_ns = probe_ns * (double)visits;
    double share = measured_ns > 0 ? 100.0 * probes_ns / (double)measured_ns : 0.0;
    if (share <= 100.0) {
        fprintf(out, "  estimated dilation: %.1f%% of the measured run time went into probes "
                "(probe cost x visits / measured time)\n", share);
        return share;
    }
    fprintf(out, "  estimated dilation: ~100%% of the measured run time went into probes "
            "(probe cost x visits = %.3g s, more than the %.3g s measured: the calibrated "
            "cost overestimates a real call here)\n", probes_ns / 1e9, (double)measured_ns / 1e9);
    return 100.0;
}

/* The units that fell back, one line each (profile.h), under a line that counts them. */
static void write_fallback(FILE *out, const char *lines)
{
    size_t n = 0;
    for (const char *l = lines; *l != '\0'; l++)
        n += *l == '\n';
    if (lines[0] != '\0' && lines[strlen(lines) - 1] != '\n')
        n++;
    fprintf(out, "  fell back: the GCC plug-in failed on %zu translation unit%s at build time; "
            "hp-instrument compiled %s again with:\n", n, n == 1 ? "" : "s",
            n == 1 ? "it" : "them");
    while (*lines != '\0') {
        size_t len = strcspn(lines, "\n");
        fprintf(out, "    %.*s\n", (int)len, lines);
        lines += len + (lines[len] == '\n');
    }
}

void hp_summary_write_instrumentation(FILE *out, const hp_profile *p)
{
    const hp_profile_instrumentation *in = &p->instrumentation;
    bool fell_back = p->fallback_units != NULL && p->fallback_units[0] != '\0';
    if (in->units == 0 && in->probe_visits == 0 && !fell_back)
        return;
    fprintf(out, "Instrumentation\n");
    if (in->units > 0)
        fprintf(out, "  GCC plug-in: %" PRIu64 " functions instrumented in %" PRIu64
                " translation unit%s; left out: %" PRIu64 " declared inline, %" PRIu64
                " compiler-generated, %" PRIu64 " in system headers, %" PRIu64
                " by the compile-time filter\n",
                in->instrumented, in->units, in->units == 1 ? "" : "s", in->skipped_inline,
                in->skipped_artificial, in->skipped_system, in->filtered);
    else if (in->hooks == HP_HOOKS_CLANG_AFTER_INLINING)
        fprintf(out, "  compiler hooks of clang (-finstrument-functions-after-inlining): the "
                     "functions of the instrumented sources that remain calls after inlining\n");
    else
        fprintf(out, "  compiler hooks without the GCC plug-in (-finstrument-functions): every "
                     "function of the instrumented sources\n");
    if (fell_back)
        write_fallback(out, p->fallback_units);
    double probe_ns = (double)in->probe_ps / 1000.0;
    fprintf(out, "  probe cost: %.1f ns per call (calibrated at start); %" PRIu64
            " visits of instrumented functions\n", probe_ns, in->probe_visits);
    double share = write_dilation(out, probe_ns, in->probe_visits, in->measured_ns);
    /* The budget can only switch off what the plug-in built (overhead.h): without it, a
     * line about the budget would promise what cannot happen. */
    if (in->units == 0) {
        if (share > 10.0)
            fprintf(out, "  to lower it: build with the GCC plug-in (hp-instrument's default for "
                         "GCC), whose hot, short functions the overhead budget switches off "
                         "during the run; see doc/hp-instrument.md\n");
    } else if (in->budget_percent > 0) {
        write_demoted(out, p);
    } else if (share > 10.0) {
        fprintf(out, "  to lower it: HP_OVERHEAD_BUDGET (default 5, here 0 = off) switches hot, "
                     "short functions off during the run; see doc/hp-instrument.md\n");
    }
    fputc('\n', out);
}
