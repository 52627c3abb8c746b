/* Unit tests of the counter framework (measurement/core/metrics.c with the perf and rusage
 * sources) and of the counters table (profile/summary_counters.c). */
#include "measurement/core/metrics.h"
#include "profile/summary.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "test.h"

static char err[512];

/* The test links the core statically, which pulls in no counter source by itself. */
__attribute__((constructor)) static void register_sources(void)
{
    hp_metrics_register(HP_METRIC_SOURCE_PERF, &hp__metric_perf_ops);
    hp_metrics_register(HP_METRIC_SOURCE_RUSAGE, &hp__metric_rusage_ops);
}

TEST(resolves_perf_and_rusage_names_in_order)
{
    ASSERT_INT_EQ(hp_metrics_setup("page-faults, task-clock,page-faults", "ru_minflt", NULL,
                                   err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_metrics_count(), 3); /* listed twice: recorded once */
    ASSERT_STR_EQ(hp_metrics_info(0)->uniq_name, "perf_page_faults");
    ASSERT_STR_EQ(hp_metrics_info(0)->unit, "occ");
    ASSERT_STR_EQ(hp_metrics_info(1)->uniq_name, "perf_task_clock");
    ASSERT_STR_EQ(hp_metrics_info(1)->unit, "nsec");
    ASSERT_STR_EQ(hp_metrics_info(2)->name, "ru_minflt");
    ASSERT_INT_EQ(hp_metrics_info(2)->source, HP_METRIC_SOURCE_RUSAGE);
    return 0;
}

TEST(rusage_all_is_every_field)
{
    ASSERT_INT_EQ(hp_metrics_setup("", "all", "", err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_metrics_count(), 9);
    ASSERT_STR_EQ(hp_metrics_info(0)->name, "ru_utime");
    ASSERT_STR_EQ(hp_metrics_info(8)->name, "ru_nivcsw");
    return 0;
}

TEST(unknown_name_is_an_error_naming_variable_name_and_hp_info)
{
    ASSERT_INT_EQ(hp_metrics_setup("task-clock,bogus", NULL, NULL, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_METRIC_PERF");
    ASSERT_STR_CONTAINS(err, "'bogus'");
    ASSERT_STR_CONTAINS(err, "hp-info metrics");
    ASSERT_INT_EQ(hp_metrics_setup(NULL, "ru_bogus", NULL, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_METRIC_RUSAGE: unknown counter 'ru_bogus'");
    ASSERT_INT_EQ(hp_metrics_setup("\033]0;x\007", NULL, NULL, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_METRIC_PERF: unknown counter '\\x1b]0;x\\x07'");
    return 0;
}

/* The core reaches the sources only through the table the adapters fill: a source that
 * is not registered lists nothing and refuses names, saying which variable. */
TEST(unregistered_source_is_an_error_naming_the_variable)
{
    ASSERT_INT_EQ(hp_metrics_setup(NULL, NULL, "PAPI_TOT_INS", err, sizeof(err)), -1);
    ASSERT_STR_EQ(err, "HP_METRIC_PAPI: this build has no such counter source (it is not "
                  "linked in); run 'hp-info metrics' to list the counters it offers");
    ASSERT_INT_EQ(hp_metrics_setup("task-clock", ", ", "", err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_metrics_count(), 1);
    hp_metrics_register(HP_METRIC_SOURCE_PERF, NULL);
    ASSERT_INT_EQ(hp_metrics_setup("task-clock", NULL, NULL, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_METRIC_PERF: this build has no such counter source");
    return 0;
}

TEST(too_many_counters_is_an_error)
{
    ASSERT_INT_EQ(hp_metrics_setup("task-clock,cpu-clock,page-faults,minor-faults,major-faults",
                                   "all", "", err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_metrics_count(), 14);
    ASSERT_INT_EQ(hp_metrics_setup("task-clock,cpu-clock,page-faults,minor-faults,major-faults,"
                                   "context-switches,cpu-migrations,alignment-faults",
                                   "all", "", err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "too many counters");
    return 0;
}

/* A counter that exists but may have no hardware here: left out with a note, or used. */
TEST(unavailable_counter_is_left_out_with_a_note)
{
    ASSERT_INT_EQ(hp_metrics_setup("instructions,page-faults", NULL, NULL, err, sizeof(err)),
                  0);
    if (hp_metrics_count() == 2)
        return 0; /* this machine has a PMU */
    ASSERT_UINT_EQ(hp_metrics_count(), 1);
    ASSERT_STR_EQ(hp_metrics_info(0)->name, "page-faults");
    ASSERT_STR_CONTAINS(hp_metrics_note(0), "counter instructions (HP_METRIC_PERF) not recorded");
    return 0;
}

/* Enter subtracts, exit adds: a node's counters hold what happened in between; while the
 * visit is open, hp_metrics_value adds the last values read. */
/* Page faults beyond the touched pages: a few of the process's own, and under
 * AddressSanitizer those of the shadow memory that its checks of the stores read (one
 * shadow page per 8 pages, first touched here). */
#ifdef __SANITIZE_ADDRESS__
enum { FAULT_SLACK = 4 + 64 / 8 * 2 };
#else
enum { FAULT_SLACK = 4 };
#endif

TEST(enter_exit_accumulate_page_faults)
{
    enum { PAGES = 64 };
    ASSERT_INT_EQ(hp_metrics_setup("page-faults", "ru_minflt", NULL, err, sizeof(err)), 0);
    hp_metrics m;
    ASSERT(hp_metrics_thread_start(&m));
    uint64_t counters[2] = { 0, 0 };
    for (int visit = 0; visit < 2; visit++) {
        hp__metrics_enter(&m, counters);
        ASSERT((int64_t)counters[0] < 0); /* open */
        char *p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT(p != MAP_FAILED);
        madvise(p, PAGES * 4096, MADV_NOHUGEPAGE);
        for (int i = 0; i < PAGES; i++)
            p[i * 4096] = 1;
        munmap(p, PAGES * 4096);
        hp_metrics_read(&m);
        uint64_t open = hp_metrics_value(&m, counters, 0);
        ASSERT(open >= (uint64_t)PAGES * (visit + 1) &&
               open <= (uint64_t)PAGES * (visit + 1) + FAULT_SLACK);
        hp__metrics_exit(&m, counters);
    }
    ASSERT(counters[0] >= 2 * PAGES && counters[0] <= 2 * PAGES + FAULT_SLACK);
    ASSERT_UINT_EQ(counters[1], counters[0]); /* getrusage agrees with perf */
    hp_metrics_thread_stop(&m);
    return 0;
}

/* Two ranks, tree root -> main -> {MPI_Send, work}: the split adds up exactly. */
TEST(counter_table_splits_in_mpi_and_application)
{
    hp_profile_region regions[4] = {
        { "app", "app", "", -1, -1, "measurement", "artificial", false },
        { "main", "main", "a.c", 3, -1, "compiler", "function", false },
        { "MPI_Send", "MPI_Send", "", -1, -1, "mpi", "point2point", false },
        { "work", "work", "a.c", 9, -1, "compiler", "function", false },
    };
    hp_profile_cnode cnodes[4] = { { HP_PROFILE_NO_PARENT, 0 }, { 0, 1 }, { 1, 2 }, { 1, 3 } };
    hp_profile_node node = { "host" };
    hp_profile_process procs[2] = { { 0, 0 }, { 1, 0 } };
    hp_profile_location locs[2] = { { "Master thread", 0, 0 }, { "Master thread", 0, 1 } };
    /* values[cnode * 2 + location], inclusive */
    uint64_t faults[8] = { 1000, 2000, 990, 1990, 300, 700, 600, 1200 };
    hp_profile_metric metrics[1] = { { "perf_page_faults", "page-faults", "occ", "",
                                       HP_DTYPE_UINT64, HP_METRIC_INCLUSIVE, faults } };
    hp_profile p = { .regions = regions, .nregions = 4, .cnodes = cnodes, .ncnodes = 4,
                     .nodes = &node, .nnodes = 1, .processes = procs, .nprocesses = 2,
                     .locations = locs, .nlocations = 2, .metrics = metrics, .nmetrics = 1 };
    hp_table_list tables = { NULL, 0 };
    ASSERT_INT_EQ(hp_report_counter_table(&p, NULL, &tables), 0);
    ASSERT_UINT_EQ(tables.n, 1);
    const hp_table *t = tables.tables[0];
    ASSERT_UINT_EQ(t->nrows, 2);
    for (size_t r = 0; r < 2; r++) {
        ASSERT_INT_EQ(hp_table_cell_at(t, r, 0)->i, (int64_t)r);
        ASSERT_STR_EQ(hp_table_cell_at(t, r, 1)->s, "page-faults");
        ASSERT_UINT_EQ(hp_table_cell_at(t, r, 2)->u, faults[r]);
        ASSERT_UINT_EQ(hp_table_cell_at(t, r, 3)->u, faults[4 + r]);
        ASSERT_UINT_EQ(hp_table_cell_at(t, r, 4)->u, faults[r] - faults[4 + r]);
    }
    hp_table_list_release(&tables);
    metrics[0].kind = HP_METRIC_EXCLUSIVE; /* not a counter: no table */
    ASSERT_INT_EQ(hp_report_counter_table(&p, NULL, &tables), 0);
    ASSERT_UINT_EQ(tables.n, 0);
    return 0;
}

/* One rank: root -> main -> {MPI_Recv, work}; IPC and CPU use where measured. */
TEST(derived_table_only_where_inputs_were_measured)
{
    hp_profile_region regions[4] = {
        { "app", "app", "", -1, -1, "measurement", "artificial", false },
        { "main", "main", "a.c", 3, -1, "compiler", "function", false },
        { "MPI_Recv", "MPI_Recv", "", -1, -1, "mpi", "point2point", false },
        { "work", "work", "a.c", 9, -1, "compiler", "function", false },
    };
    hp_profile_cnode cnodes[4] = { { HP_PROFILE_NO_PARENT, 0 }, { 0, 1 }, { 1, 2 }, { 1, 3 } };
    hp_profile_node node = { "host" };
    hp_profile_process proc = { 0, 0 };
    hp_profile_location loc = { "Master thread", 0, 0 };
    uint64_t ins[4] = { 5000, 5000, 1000, 4000 }, cyc[4] = { 4000, 4000, 2000, 2000 };
    double time[4] = { 2.0, 2.0, 0.5, 1.5 };
    uint64_t task_clock[4] = { 1500000000, 1500000000, 500000000, 1000000000 };
    hp_profile_metric metrics[4] = {
        { "time", "Time", "sec", "", HP_DTYPE_DOUBLE, HP_METRIC_INCLUSIVE, time },
        { "PAPI_TOT_INS", "PAPI_TOT_INS", "occ", "", HP_DTYPE_UINT64, HP_METRIC_INCLUSIVE, ins },
        { "perf_cycles", "cycles", "occ", "", HP_DTYPE_UINT64, HP_METRIC_INCLUSIVE, cyc },
        { "perf_task_clock", "task-clock", "nsec", "", HP_DTYPE_UINT64, HP_METRIC_INCLUSIVE,
          task_clock },
    };
    hp_profile p = { .regions = regions, .nregions = 4, .cnodes = cnodes, .ncnodes = 4,
                     .nodes = &node, .nnodes = 1, .processes = &proc, .nprocesses = 1,
                     .locations = &loc, .nlocations = 1, .metrics = metrics, .nmetrics = 1 };
    hp_table_list tables = { NULL, 0 };
    ASSERT_INT_EQ(hp_report_derived_table(&p, NULL, &tables), 0); /* time alone: none */
    ASSERT_UINT_EQ(tables.n, 0);
    p.nmetrics = 4;
    ASSERT_INT_EQ(hp_report_derived_table(&p, NULL, &tables), 0);
    ASSERT_UINT_EQ(tables.n, 1);
    const hp_table *t = tables.tables[0];
    ASSERT_UINT_EQ(t->nrows, 2);
    ASSERT_STR_EQ(hp_table_cell_at(t, 0, 1)->s, "instructions per cycle");
    ASSERT(hp_table_cell_at(t, 0, 2)->d == 2.0);  /* application: 4000 / 2000 */
    ASSERT(hp_table_cell_at(t, 0, 3)->d == 0.5);  /* in MPI: 1000 / 2000 */
    ASSERT(hp_table_cell_at(t, 0, 4)->d == 1.25); /* all: 5000 / 4000 */
    ASSERT_STR_EQ(hp_table_cell_at(t, 1, 1)->s, "CPU use (task-clock / time)");
    ASSERT(hp_table_cell_at(t, 1, 2)->d > 0.6666 && hp_table_cell_at(t, 1, 2)->d < 0.6667);
    ASSERT(hp_table_cell_at(t, 1, 3)->d > 0.9999 && hp_table_cell_at(t, 1, 3)->d < 1.0001);
    hp_table_list_release(&tables);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(resolves_perf_and_rusage_names_in_order),
             TEST_ENTRY(rusage_all_is_every_field),
             TEST_ENTRY(unknown_name_is_an_error_naming_variable_name_and_hp_info),
             TEST_ENTRY(unregistered_source_is_an_error_naming_the_variable),
             TEST_ENTRY(too_many_counters_is_an_error),
             TEST_ENTRY(unavailable_counter_is_left_out_with_a_note),
             TEST_ENTRY(enter_exit_accumulate_page_faults),
             TEST_ENTRY(counter_table_splits_in_mpi_and_application),
             TEST_ENTRY(derived_table_only_where_inputs_were_measured));
