/* Unit tests of the HP_* configuration parser (measurement/core/config.c). */
#include "measurement/core/config.h"

#include "test.h"

static const char *const *fake_env;

static const char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = fake_env; *e != NULL; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static int load(const char *const *env, char *err, size_t errlen)
{
    fake_env = env;
    return hp_config_load(fake_getenv, err, errlen);
}

TEST(defaults)
{
    const char *env[] = { NULL };
    char err[256];
    ASSERT_INT_EQ(load(env, err, sizeof(err)), 0);
    ASSERT(hp_cfg.enable_profiling);
    ASSERT(!hp_cfg.enable_tracing);
    ASSERT_UINT_EQ(hp_cfg.total_memory, 16u << 20);
    ASSERT_INT_EQ(hp_cfg.timer, HP_TIMER_TSC);
    ASSERT_UINT_EQ(hp_cfg.sampling_frequency, 0);
    ASSERT_STR_EQ(hp_cfg.experiment_directory, "");
    return 0;
}

TEST(sizes)
{
    uint64_t v;
    ASSERT_INT_EQ(hp_config_parse_size("4096", &v), 0);
    ASSERT_UINT_EQ(v, 4096);
    ASSERT_INT_EQ(hp_config_parse_size("64k", &v), 0);
    ASSERT_UINT_EQ(v, 65536);
    ASSERT_INT_EQ(hp_config_parse_size("16M", &v), 0);
    ASSERT_UINT_EQ(v, 16u << 20);
    ASSERT_INT_EQ(hp_config_parse_size("2GB", &v), 0);
    ASSERT_UINT_EQ(v, 2ull << 30);
    ASSERT_INT_EQ(hp_config_parse_size("", &v), -1);
    ASSERT_INT_EQ(hp_config_parse_size("-1M", &v), -1);
    ASSERT_INT_EQ(hp_config_parse_size("12Q", &v), -1);
    ASSERT_INT_EQ(hp_config_parse_size("1M2", &v), -1);
    ASSERT_INT_EQ(hp_config_parse_size("99999999999999999999", &v), -1);
    return 0;
}

TEST(booleans)
{
    bool b;
    const char *yes[] = { "true", "TRUE", "yes", "1", "on" };
    const char *no[] = { "false", "No", "0", "off" };
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        ASSERT_INT_EQ(hp_config_parse_bool(yes[i], &b), 0);
        ASSERT(b);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        ASSERT_INT_EQ(hp_config_parse_bool(no[i], &b), 0);
        ASSERT(!b);
    }
    ASSERT_INT_EQ(hp_config_parse_bool("maybe", &b), -1);
    ASSERT_INT_EQ(hp_config_parse_bool("", &b), -1);
    return 0;
}

TEST(values_from_environment)
{
    const char *env[] = { "HP_TOTAL_MEMORY=1G", "HP_TIMER=monotonic", "HP_VERBOSE=2",
                          "HP_EXPERIMENT_DIRECTORY=run1", "HP_ENABLE_TRACING=yes", NULL };
    char err[256];
    ASSERT_INT_EQ(load(env, err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_cfg.total_memory, 1ull << 30);
    ASSERT_INT_EQ(hp_cfg.timer, HP_TIMER_MONOTONIC);
    ASSERT_INT_EQ(hp_cfg.verbose, 2);
    ASSERT_STR_EQ(hp_cfg.experiment_directory, "run1");
    ASSERT(hp_cfg.enable_tracing);
    return 0;
}

TEST(every_bad_value_is_reported)
{
    const char *env[] = { "HP_TOTAL_MEMORY=12X", "HP_ENABLE_PROFILING=perhaps",
                          "HP_SAMPLING_FREQUENCY=fast", "HP_TIMER=hpet", NULL };
    char err[1024];
    ASSERT_INT_EQ(load(env, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_TOTAL_MEMORY='12X' is not valid: expected a byte count "
                             "with optional K, M or G suffix, e.g. 16M\n");
    ASSERT_STR_CONTAINS(err, "HP_ENABLE_PROFILING='perhaps' is not valid: expected true, "
                             "false, yes, no, 1, 0\n");
    ASSERT_STR_CONTAINS(err, "HP_SAMPLING_FREQUENCY='fast' is not valid: expected a "
                             "non-negative whole number\n");
    ASSERT_STR_CONTAINS(err, "HP_TIMER='hpet' is not valid: expected tsc or monotonic\n");
    return 0;
}

TEST(ranges)
{
    const char *env[] = { "HP_TOTAL_MEMORY=100K", "HP_SAMPLING_FREQUENCY=1000000", NULL };
    char err[1024];
    ASSERT_INT_EQ(load(env, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_TOTAL_MEMORY='100K' is out of range: expected at least 256K");
    ASSERT_STR_CONTAINS(err, "HP_SAMPLING_FREQUENCY='1000000' is out of range");
    return 0;
}

TEST(choices_and_subtree_patterns)
{
    const char *env[] = { "HP_THREAD_LOCATIONS=EACH", "HP_PROFILING_RECURSION=collapse",
                          "HP_SELECT_SUBTREES=solve,io_*", NULL };
    char err[256], buf[4096] = "";
    ASSERT_INT_EQ(load(env, err, sizeof(err)), 0);
    ASSERT_INT_EQ(hp_cfg.thread_locations, HP_THREAD_LOCATIONS_EACH);
    ASSERT_INT_EQ(hp_cfg.profiling_recursion, HP_RECURSION_COLLAPSE);
    ASSERT_STR_EQ(hp_cfg.select_subtrees, "solve,io_*");
    FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
    hp_config_print_effective(f);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "HP_THREAD_LOCATIONS=each\n");
    ASSERT_STR_CONTAINS(buf, "HP_PROFILING_RECURSION=collapse\n");

    const char *bad[] = { "HP_EXCLUDE_SUBTREES=,io", "HP_SELECT_SUBTREES=a,,b",
                          "HP_PROFILING_RECURSION=fold", NULL };
    char msg[1024];
    ASSERT_INT_EQ(load(bad, msg, sizeof(msg)), -1);
    ASSERT_STR_CONTAINS(msg, "HP_EXCLUDE_SUBTREES=',io' is not valid (an empty pattern)");
    ASSERT_STR_CONTAINS(msg, "HP_SELECT_SUBTREES='a,,b' is not valid (an empty pattern)");
    ASSERT_STR_CONTAINS(msg, "HP_PROFILING_RECURSION='fold' is not valid: expected keep or "
                             "collapse\n");
    return 0;
}

TEST(effective_configuration_lists_every_variable)
{
    const char *env[] = { "HP_TOTAL_MEMORY=32M", NULL };
    char err[256], buf[4096] = "";
    ASSERT_INT_EQ(load(env, err, sizeof(err)), 0);
    FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
    hp_config_print_effective(f);
    fclose(f);
    ASSERT_STR_CONTAINS(buf, "HP_TOTAL_MEMORY=33554432\n");
    ASSERT_STR_CONTAINS(buf, "HP_ENABLE_PROFILING=true\n");
    ASSERT_STR_CONTAINS(buf, "HP_TIMER=tsc\n");
    ASSERT_STR_CONTAINS(buf, "HP_FILTERING_FILE=\n");
    return 0;
}

TEST(trace_buffer_and_adaptive_mode)
{
    const char *none[] = { NULL };
    char err[1024];
    ASSERT_INT_EQ(load(none, err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_cfg.trace_buffer, 0);
    ASSERT(!hp_cfg.trace_adaptive);

    const char *good[] = { "HP_TOTAL_MEMORY=64M", "HP_TRACE_BUFFER=32M",
                           "HP_TRACE_ADAPTIVE=yes", NULL };
    ASSERT_INT_EQ(load(good, err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_cfg.trace_buffer, 32u << 20);
    ASSERT(hp_cfg.trace_adaptive);

    const char *big[] = { "HP_TRACE_BUFFER=9M", "HP_TRACE_ADAPTIVE=maybe", NULL };
    ASSERT_INT_EQ(load(big, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_TRACE_BUFFER='9M' is out of range: expected 0 (a quarter of "
                             "HP_TOTAL_MEMORY), or from 256K up to half of HP_TOTAL_MEMORY\n");
    ASSERT_STR_CONTAINS(err, "HP_TRACE_ADAPTIVE='maybe' is not valid: expected true, false, "
                             "yes, no, 1, 0\n");

    const char *bad[] = { "HP_TRACE_BUFFER=100K", NULL };
    ASSERT_INT_EQ(load(bad, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_TRACE_BUFFER='100K' is out of range");
    const char *junk[] = { "HP_TRACE_BUFFER=1X", NULL };
    ASSERT_INT_EQ(load(junk, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_TRACE_BUFFER='1X' is not valid: expected a byte count");
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(defaults), TEST_ENTRY(sizes), TEST_ENTRY(booleans),
             TEST_ENTRY(values_from_environment), TEST_ENTRY(every_bad_value_is_reported),
             TEST_ENTRY(ranges), TEST_ENTRY(choices_and_subtree_patterns),
             TEST_ENTRY(effective_configuration_lists_every_variable),
             TEST_ENTRY(trace_buffer_and_adaptive_mode));
