/*
 * Unit tests of hp-report score's computations (tools/report_score.h) on hand-built
 * profiles: region types (USR/COM/MPI/ART), visits and time whatever the time metric's
 * kind, recursion counted once, the trace and memory model, the filter suggestion and
 * that the suggested filter is accepted by our own parser and excludes what it says.
 *
 * The command's reader (hp_report_load_profile, tools/report_load.c) is not needed
 * here and is stubbed, so that this test links report_score.c and libhpcore only.
 */
#include <stdlib.h>

#include "measurement/core/filter.h"
#include "test.h"
#include "tools/cube_reader.h"
#include "tools/report_load.h"
#include "tools/report_score.h"

/* ---------------------------------------------------------------- stubs */

char *hp_report_load_profile(const char *arg, const char *who, hp_cube_profile *out)
{
    (void)arg;
    (void)who;
    (void)out;
    return NULL;
}

void hp_cube_profile_release(hp_cube_profile *p)
{
    (void)p;
}

/* ---------------------------------------------------------------- a profile
 *
 *   0 prog (artificial)
 *   1   main
 *   2     tiny()             100000 visits per rank, 0.01 s: 0.1 us per visit
 *   3     solve
 *   4       MPI_Send         10 visits
 *   5       tiny()           1000 visits
 *   6     MPI_Allreduce      5 visits
 *   7     rec                a recursive function, not leading to MPI
 *   8       rec
 * two processes with one location each; rank 1 calls tiny twice as often below main.
 */
enum { NCNODES = 9, NLOC = 2 };

static const hp_profile_region regions[] = {
    { "prog", "prog", "", -1, -1, "measurement", "artificial", false },
    { "main", "main", "a.c", 1, 9, "compiler", "function", false },
    { "tiny()", "_Z4tinyv", "a.cc", 3, 3, "compiler", "function", false },
    { "solve", "solve", "a.c", 5, 8, "compiler", "function", false },
    { "MPI_Send", "MPI_Send", "", -1, -1, "mpi", "point2point", false },
    { "MPI_Allreduce", "MPI_Allreduce", "", -1, -1, "mpi", "all2all", false },
    { "rec", "rec", "a.c", 10, 12, "compiler", "function", false },
};
enum { R_PROG, R_MAIN, R_TINY, R_SOLVE, R_SEND, R_ALLREDUCE, R_REC, NREGIONS };

static const hp_profile_cnode cnodes[NCNODES] = {
    { HP_PROFILE_NO_PARENT, R_PROG }, { 0, R_MAIN }, { 1, R_TINY },
    { 1, R_SOLVE },                   { 3, R_SEND }, { 3, R_TINY },
    { 1, R_ALLREDUCE },               { 1, R_REC },  { 7, R_REC },
};

static const uint64_t visits[NCNODES * NLOC] = {
    1, 1, 1, 1, 100000, 200000, 1, 1, 10, 10, 1000, 1000, 5, 5, 2, 2, 4, 4,
};

/* Inclusive seconds per (cnode, location). */
static const double time_incl[NCNODES * NLOC] = {
    10.0, 10.0, /* prog */
    9.0,  9.0,  /* main */
    0.01, 0.02, /* tiny */
    5.0,  5.0,  /* solve */
    1.0,  2.0,  /* MPI_Send */
    0.0001, 0.0001, /* tiny below solve */
    1.0,  1.0,  /* MPI_Allreduce */
    2.0,  2.0,  /* rec */
    1.5,  1.5,  /* rec/rec */
};

static const hp_profile_process processes[] = { { 0, 0 }, { 1, 0 } };
static const hp_profile_location locations[] = { { "Master thread", 0, 0 },
                                                 { "Master thread", 0, 1 } };
static const hp_profile_node nodes[] = { { "host" } };

static hp_profile_metric metrics[2];
static double time_excl[NCNODES * NLOC];

/* The profile with time stored INCLUSIVE (as we write it) or EXCLUSIVE. */
static hp_profile make_profile(hp_metric_kind time_kind)
{
    for (size_t i = 0; i < NCNODES * NLOC; i++)
        time_excl[i] = time_incl[i];
    for (size_t n = 1; n < NCNODES; n++)
        for (size_t l = 0; l < NLOC; l++)
            time_excl[cnodes[n].parent * NLOC + l] -= time_incl[n * NLOC + l];
    metrics[0] = (hp_profile_metric){ "visits", "Visits", "occ", "", HP_DTYPE_UINT64,
                                      HP_METRIC_EXCLUSIVE, visits, NULL };
    metrics[1] = (hp_profile_metric){ "time", "Time", "sec", "", HP_DTYPE_DOUBLE, time_kind,
                                      time_kind == HP_METRIC_INCLUSIVE ? (const void *)time_incl
                                                                       : (const void *)time_excl, NULL };
    return (hp_profile){ .creator = "test", .machine_name = "Linux", .regions = regions,
                         .nregions = NREGIONS, .cnodes = cnodes, .ncnodes = NCNODES,
                         .nodes = nodes, .nnodes = 1, .processes = processes, .nprocesses = 2,
                         .locations = locations, .nlocations = NLOC, .metrics = metrics,
                         .nmetrics = 2 };
}

static int near(double a, double b)
{
    return a - b < 1e-9 && b - a < 1e-9;
}

#define ASSERT_NEAR(a, b)                                                              \
    do {                                                                               \
        double a_ = (a), b_ = (b);                                                     \
        if (!near(a_, b_))                                                             \
            HP_TEST_FAIL("%s == %s failed: %.9f != %.9f", #a, #b, a_, b_);             \
    } while (0)

/* ---------------------------------------------------------------- tests */

TEST(region_types)
{
    hp_profile p = make_profile(HP_METRIC_INCLUSIVE);
    hp_score s;
    char err[128];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    ASSERT_STR_EQ(hp_score_type_name(s.regions[R_PROG].type), "ART");
    ASSERT_STR_EQ(hp_score_type_name(s.regions[R_MAIN].type), "COM");
    ASSERT_STR_EQ(hp_score_type_name(s.regions[R_SOLVE].type), "COM");
    /* tiny() is called below solve, too, but has no path to MPI itself. */
    ASSERT_STR_EQ(hp_score_type_name(s.regions[R_TINY].type), "USR");
    ASSERT_STR_EQ(hp_score_type_name(s.regions[R_REC].type), "USR");
    ASSERT_STR_EQ(hp_score_type_name(s.regions[R_SEND].type), "MPI");
    ASSERT_STR_EQ(hp_score_type_name(s.regions[R_ALLREDUCE].type), "MPI");
    hp_score_release(&s);
    return 0;
}

/* The same numbers whether the file stores time inclusive or exclusive. */
static int check_visits_and_time(hp_metric_kind kind)
{
    hp_profile p = make_profile(kind);
    hp_score s;
    char err[128];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    ASSERT_UINT_EQ(s.regions[R_TINY].visits, 302000);
    ASSERT_UINT_EQ(s.regions[R_TINY].cnodes, 2);
    ASSERT_NEAR(s.regions[R_TINY].time_excl, 0.0302);
    ASSERT_NEAR(s.regions[R_SOLVE].time_excl, 10.0 - 3.0 - 0.0002);
    ASSERT_NEAR(s.regions[R_MAIN].time_excl, 18.0 - 0.03 - 10.0 - 2.0 - 4.0);
    /* rec's inclusive time counts its outermost calls only. */
    ASSERT_NEAR(s.regions[R_REC].time_incl, 4.0);
    ASSERT_NEAR(s.regions[R_REC].time_excl, 4.0);
    ASSERT_NEAR(s.all.time_excl, 20.0);
    ASSERT_NEAR(s.all.time_incl, 20.0);
    ASSERT_UINT_EQ(s.types[HP_SCORE_MPI].visits, 30);
    ASSERT_NEAR(s.types[HP_SCORE_MPI].time_excl, 5.0);
    ASSERT_UINT_EQ(s.all.visits, 2 + 2 + 302000 + 2 + 30 + 12);
    hp_score_release(&s);
    return 0;
}

TEST(visits_and_time_inclusive_metric)
{
    return check_visits_and_time(HP_METRIC_INCLUSIVE);
}

TEST(visits_and_time_exclusive_metric)
{
    return check_visits_and_time(HP_METRIC_EXCLUSIVE);
}

TEST(trace_bytes)
{
    ASSERT_UINT_EQ(hp_score_visit_bytes(&regions[R_MAIN]), 24);
    ASSERT_UINT_EQ(hp_score_visit_bytes(&regions[R_SEND]), 24 + 16);
    ASSERT_UINT_EQ(hp_score_visit_bytes(&regions[R_ALLREDUCE]), 24 + 24);
    hp_profile p = make_profile(HP_METRIC_INCLUSIVE);
    hp_score s;
    char err[128];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    ASSERT_UINT_EQ(s.regions[R_TINY].trace_bytes, 302000u * 24);
    ASSERT_UINT_EQ(s.regions[R_TINY].max_buf, 201000u * 24); /* rank 1 */
    ASSERT_UINT_EQ(s.regions[R_SEND].trace_bytes, 20u * 40);
    ASSERT_UINT_EQ(s.regions[R_ALLREDUCE].max_buf, 5u * 48);
    uint64_t rank0 = (1 + 1 + 100000 + 1 + 1000 + 2 + 4) * 24u + 10 * 40u + 5 * 48u;
    uint64_t rank1 = rank0 + 100000 * 24u;
    ASSERT_UINT_EQ(s.process_trace_bytes[0], rank0);
    ASSERT_UINT_EQ(s.process_trace_bytes[1], rank1);
    ASSERT_UINT_EQ(s.all.max_buf, rank1);
    ASSERT_UINT_EQ(s.all.trace_bytes, rank0 + rank1);
    /* The buffer of the largest process: its events in whole pages plus a spare page. */
    uint64_t pages = (rank1 + HP_SCORE_TRACE_PAGE_BYTES - 1) / HP_SCORE_TRACE_PAGE_BYTES + 1;
    ASSERT_UINT_EQ(s.max_trace_buffer, pages * HP_SCORE_TRACE_PAGE_BYTES);
    uint64_t profile = HP_SCORE_PROCESS_BYTES + NREGIONS * HP_SCORE_REGION_BYTES +
                       HP_SCORE_LOCATION_BYTES + NCNODES * HP_SCORE_CNODE_BYTES;
    ASSERT_UINT_EQ(s.memory_profiling, profile);
    ASSERT_UINT_EQ(s.memory_tracing, profile + s.max_trace_buffer);
    hp_score_release(&s);
    return 0;
}

TEST(suggest_memory_rounds_up_with_headroom)
{
    const uint64_t mib = 1024 * 1024;
    ASSERT_UINT_EQ(hp_score_suggest_memory(1), mib);
    ASSERT_UINT_EQ(hp_score_suggest_memory(4 * mib), 5 * mib);
    ASSERT_UINT_EQ(hp_score_suggest_memory(4 * mib + 1), 6 * mib);
    return 0;
}

TEST(suggestion_thresholds)
{
    hp_profile p = make_profile(HP_METRIC_INCLUSIVE);
    hp_score s;
    char err[128];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    hp_score_thresholds t = HP_SCORE_THRESHOLDS_DEFAULT;
    ASSERT(hp_score_suggests(&s, R_TINY, &t));
    for (uint32_t r = 0; r < NREGIONS; r++)
        if (r != R_TINY)
            ASSERT(!hp_score_suggests(&s, r, &t));
    t.max_us_per_visit = 0.05; /* tiny() takes 0.1 us */
    ASSERT(!hp_score_suggests(&s, R_TINY, &t));
    t = (hp_score_thresholds)HP_SCORE_THRESHOLDS_DEFAULT;
    t.min_visits = 302001;
    ASSERT(!hp_score_suggests(&s, R_TINY, &t));
    t = (hp_score_thresholds)HP_SCORE_THRESHOLDS_DEFAULT;
    t.min_share_pct = 99.99; /* tiny() has 99.98% */
    ASSERT(!hp_score_suggests(&s, R_TINY, &t));
    hp_score_release(&s);
    return 0;
}

/* Writes the suggested filter into a string. */
static char *filter_text(const hp_score *s, const hp_score_thresholds *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return NULL;
    int rc = hp_score_write_filter(f, s, t, "test.cubex");
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

TEST(suggested_filter_is_accepted_by_our_parser)
{
    hp_profile p = make_profile(HP_METRIC_INCLUSIVE);
    hp_score s;
    char err[256];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    hp_score_thresholds t = HP_SCORE_THRESHOLDS_DEFAULT;
    char *text = filter_text(&s, &t);
    ASSERT(text != NULL);
    ASSERT_STR_CONTAINS(text, "EXCLUDE MANGLED _Z4tinyv");
    ASSERT_STR_CONTAINS(text, "# Predicted cut: 1 regions, 604000 of");
    hp_filter *f = hp_filter_parse(text, "suggested", err, sizeof(err));
    if (f == NULL)
        HP_TEST_FAIL("parser rejected the filter: %s\n%s", err, text);
    ASSERT(hp_filter_excludes(f, "a.cc", "tiny()", "_Z4tinyv"));
    for (uint32_t r = 0; r < NREGIONS; r++)
        if (r != R_TINY)
            ASSERT(!hp_filter_excludes(f, regions[r].file, regions[r].name, regions[r].mangled_name));
    hp_filter_free(f);
    free(text);
    hp_score_release(&s);
    return 0;
}

TEST(empty_suggestion_is_a_valid_filter)
{
    hp_profile p = make_profile(HP_METRIC_INCLUSIVE);
    hp_score s;
    char err[256];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    hp_score_thresholds t = { 0.0, 100.0, 1 };
    char *text = filter_text(&s, &t);
    ASSERT(text != NULL);
    ASSERT_STR_CONTAINS(text, "no region meets the thresholds");
    hp_filter *f = hp_filter_parse(text, "suggested", err, sizeof(err));
    if (f == NULL)
        HP_TEST_FAIL("parser rejected the filter: %s\n%s", err, text);
    for (uint32_t r = 0; r < NREGIONS; r++)
        ASSERT(!hp_filter_excludes(f, regions[r].file, regions[r].name, regions[r].mangled_name));
    hp_filter_free(f);
    free(text);
    hp_score_release(&s);
    return 0;
}

/* A C name with wildcard characters, '#' and blanks must match itself only. */
TEST(special_characters_are_escaped)
{
    static const hp_profile_region odd[] = {
        { "prog", "prog", "", -1, -1, "measurement", "artificial", false },
        { "op*[x] #1?", "op*[x] #1?", "", -1, -1, "user", "function", false },
    };
    static const hp_profile_cnode tree[] = { { HP_PROFILE_NO_PARENT, 0 }, { 0, 1 } };
    static const uint64_t v[] = { 1, 50000 };
    static const double tm[] = { 1.0, 0.001 };
    hp_profile_metric m[2] = {
        { "visits", "Visits", "occ", "", HP_DTYPE_UINT64, HP_METRIC_EXCLUSIVE, v, NULL },
        { "time", "Time", "sec", "", HP_DTYPE_DOUBLE, HP_METRIC_INCLUSIVE, tm, NULL },
    };
    hp_profile p = { .regions = odd, .nregions = 2, .cnodes = tree, .ncnodes = 2,
                     .nodes = nodes, .nnodes = 1, .processes = processes, .nprocesses = 1,
                     .locations = locations, .nlocations = 1, .metrics = m, .nmetrics = 2 };
    hp_score s;
    char err[256];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    hp_score_thresholds t = HP_SCORE_THRESHOLDS_DEFAULT;
    char *text = filter_text(&s, &t);
    ASSERT(text != NULL);
    hp_filter *f = hp_filter_parse(text, "suggested", err, sizeof(err));
    if (f == NULL)
        HP_TEST_FAIL("parser rejected the filter: %s\n%s", err, text);
    ASSERT(hp_filter_excludes(f, "", "op*[x] #1?", NULL));
    ASSERT(!hp_filter_excludes(f, "", "opX[x] #1?", NULL));
    ASSERT(!hp_filter_excludes(f, "", "op*x #1?", NULL));
    ASSERT(!hp_filter_excludes(f, "", "prog", NULL));
    hp_filter_free(f);
    free(text);
    hp_score_release(&s);
    return 0;
}

TEST(missing_metric_is_an_error)
{
    hp_profile p = make_profile(HP_METRIC_INCLUSIVE);
    p.nmetrics = 1; /* visits only */
    hp_score s;
    char err[128];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "no metric 'time'");
    return 0;
}

TEST(table_lists_types_and_regions)
{
    hp_profile p = make_profile(HP_METRIC_INCLUSIVE);
    hp_score s;
    char err[128];
    ASSERT_INT_EQ(hp_score_compute(&p, &s, err, sizeof(err)), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ASSERT(f != NULL);
    ASSERT_INT_EQ(hp_score_write_table(f, &s, "test.cubex"), 0);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "HP_TOTAL_MEMORY=");
    ASSERT_STR_CONTAINS(buf, "  USR ");
    ASSERT_STR_CONTAINS(buf, "  COM ");
    ASSERT_STR_CONTAINS(buf, "  MPI ");
    ASSERT_STR_CONTAINS(buf, "  ART ");
    ASSERT_STR_CONTAINS(buf, "  MPI_Allreduce\n");
    ASSERT_STR_CONTAINS(buf, "  tiny()\n");
    free(buf);
    hp_score_release(&s);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(region_types), TEST_ENTRY(visits_and_time_inclusive_metric),
             TEST_ENTRY(visits_and_time_exclusive_metric), TEST_ENTRY(trace_bytes),
             TEST_ENTRY(suggest_memory_rounds_up_with_headroom), TEST_ENTRY(suggestion_thresholds),
             TEST_ENTRY(suggested_filter_is_accepted_by_our_parser),
             TEST_ENTRY(empty_suggestion_is_a_valid_filter),
             TEST_ENTRY(special_characters_are_escaped), TEST_ENTRY(missing_metric_is_an_error),
             TEST_ENTRY(table_lists_types_and_regions));
