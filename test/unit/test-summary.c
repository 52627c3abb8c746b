/* Unit tests of summary.txt's instrumentation section
 * (profile/summary_instrumentation.c): the estimated dilation is a share of the run
 * time, never above 100%, the overhead budget is only mentioned for code the GCC
 * plug-in built, and the units that fell back at build time are listed. */
#include "profile/summary.h"

#include <stdlib.h>

#include "test.h"

/* The instrumentation section of a profile with only p->instrumentation set, as a string
 * the caller frees. */
static char *section_with(const hp_profile_instrumentation *in, const char *fallback)
{
    hp_profile p;
    memset(&p, 0, sizeof(p));
    p.instrumentation = *in;
    p.fallback_units = fallback;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (f == NULL)
        return NULL;
    hp_summary_write_instrumentation(f, &p);
    fclose(f);
    return text;
}

static char *section(const hp_profile_instrumentation *in)
{
    return section_with(in, NULL);
}

/* 20 ns x 10M visits = 0.2 s of a 0.8 s run */
TEST(dilation_share)
{
    hp_profile_instrumentation in = { .units = 1, .instrumented = 3, .budget_percent = 5,
                                      .probe_ps = 20000, .probe_visits = 10000000,
                                      .measured_ns = 800000000 };
    char *s = section(&in);
    ASSERT(s != NULL);
    ASSERT_STR_CONTAINS(s, "  estimated dilation: 25.0% of the measured run time went into "
                           "probes (probe cost x visits / measured time)\n");
    ASSERT_STR_CONTAINS(s, "  overhead budget: 5% of a region's time; 0 regions switched off");
    free(s);
    return 0;
}

/* 20 ns x 100M visits = 2 s, more than the 1 s measured: capped and explained. */
TEST(dilation_capped)
{
    hp_profile_instrumentation in = { .units = 1, .instrumented = 3, .probe_ps = 20000,
                                      .probe_visits = 100000000, .measured_ns = 1000000000 };
    char *s = section(&in);
    ASSERT(s != NULL);
    ASSERT_STR_CONTAINS(s, "  estimated dilation: ~100% of the measured run time went into "
                           "probes (probe cost x visits = 2 s, more than the 1 s measured: "
                           "the calibrated cost overestimates a real call here)\n");
    ASSERT(strstr(s, "200.0%") == NULL);
    /* the budget is off here: the section suggests it */
    ASSERT_STR_CONTAINS(s, "to lower it: HP_OVERHEAD_BUDGET");
    free(s);
    return 0;
}

/* -finstrument-functions (no plug-in units): nothing the budget could switch off. */
TEST(no_budget_without_plugin)
{
    hp_profile_instrumentation in = { .budget_percent = 5, .probe_ps = 20000,
                                      .probe_visits = 20000000, .measured_ns = 1000000000 };
    char *s = section(&in);
    ASSERT(s != NULL);
    ASSERT(strstr(s, "overhead budget:") == NULL); /* no budget line */
    ASSERT(strstr(s, "HP_OVERHEAD_BUDGET") == NULL);
    ASSERT_STR_CONTAINS(s, "to lower it: build with the GCC plug-in");
    free(s);
    return 0;
}

/* Units that fell back: counted and listed one per line, also when nothing ran in them
 * (the section is written for the note alone) and without a final line break. */
TEST(fallback_units)
{
    hp_profile_instrumentation none = { 0 };
    char *s = section_with(&none, "/src/a.cc: -finstrument-functions (internal compiler "
                                  "error, exit status 1)\n/src/b.f90: -finstrument-functions "
                                  "(killed by signal 11, Segmentation fault)");
    ASSERT(s != NULL);
    ASSERT_STR_CONTAINS(s, "Instrumentation\n");
    ASSERT_STR_CONTAINS(s, "  fell back: the GCC plug-in failed on 2 translation units at build "
                           "time; hp-instrument compiled them again with:\n"
                           "    /src/a.cc: -finstrument-functions (internal compiler error, "
                           "exit status 1)\n"
                           "    /src/b.f90: -finstrument-functions (killed by signal 11, "
                           "Segmentation fault)\n  probe cost:");
    free(s);
    s = section_with(&none, "");
    ASSERT(s != NULL);
    ASSERT(strcmp(s, "") == 0); /* nothing fell back, nothing measured: no section */
    free(s);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(dilation_share), TEST_ENTRY(dilation_capped),
             TEST_ENTRY(no_budget_without_plugin), TEST_ENTRY(fallback_units));
