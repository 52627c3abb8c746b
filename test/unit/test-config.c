/* Unit tests of the HP_* configuration parser (measurement/core/config.c). */
#include "measurement/core/config.h"
#include "measurement/core/signal_names.h"

#include <signal.h>

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
    ASSERT(hp_cfg.trace_adaptive);        /* unset: it follows sampling (runtime.c) */
    ASSERT(!hp_cfg.trace_adaptive_set);

    const char *good[] = { "HP_TOTAL_MEMORY=64M", "HP_TRACE_BUFFER=32M",
                           "HP_TRACE_ADAPTIVE=yes", NULL };
    ASSERT_INT_EQ(load(good, err, sizeof(err)), 0);
    ASSERT_UINT_EQ(hp_cfg.trace_buffer, 32u << 20);
    ASSERT(hp_cfg.trace_adaptive && hp_cfg.trace_adaptive_set);
    const char *off[] = { "HP_TRACE_ADAPTIVE=false", NULL };
    ASSERT_INT_EQ(load(off, err, sizeof(err)), 0);
    ASSERT(!hp_cfg.trace_adaptive && hp_cfg.trace_adaptive_set);

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

/* ---------------------------------------------------------------- signal lists */

static int parse_signals(const char *s, hp_signal_set *set, char *why)
{
    return hp_signal_parse_list(s, set, why, 128);
}

TEST(signal_numbers_up_to_64_and_realtime_names)
{
    hp_signal_set set;
    char why[128];
    ASSERT_INT_EQ(parse_signals("64", &set, why), 0);
    ASSERT_UINT_EQ(set, hp_signal_bit(64));
    ASSERT(hp_signal_set_has(set, 64));
    ASSERT(!hp_signal_set_has(set, 63));
    ASSERT_INT_EQ(parse_signals("1,15", &set, why), 0);
    ASSERT_UINT_EQ(set, hp_signal_bit(SIGHUP) | hp_signal_bit(SIGTERM));
    ASSERT_INT_EQ(parse_signals("SIGRTMIN+3, rtmax-1 ,SIGRTMIN,RTMAX", &set, why), 0);
    ASSERT_UINT_EQ(set, hp_signal_bit(SIGRTMIN + 3) | hp_signal_bit(SIGRTMAX - 1) |
                            hp_signal_bit(SIGRTMIN) | hp_signal_bit(SIGRTMAX));
    ASSERT_INT_EQ(parse_signals("none", &set, why), 0);
    ASSERT_UINT_EQ(set, 0);
    return 0;
}

TEST(signal_names_of_numbers)
{
    ASSERT_STR_EQ(hp_signal_name(SIGTERM), "TERM");
    ASSERT_STR_EQ(hp_signal_name(SIGRTMIN), "RTMIN");
    ASSERT_STR_EQ(hp_signal_name(SIGRTMIN + 15), "RTMIN+15");
    ASSERT_STR_EQ(hp_signal_name(SIGRTMIN + 16), "RTMAX-14");
    ASSERT_STR_EQ(hp_signal_name(64), "RTMAX");
    ASSERT(hp_signal_name(32) == NULL);
    return 0;
}

TEST(signals_refused_with_the_reason)
{
    hp_signal_set set;
    char why[128];
    ASSERT_INT_EQ(parse_signals("65", &set, why), -1);
    ASSERT_STR_EQ(why, "65 is not a signal number (1 to 64)");
    ASSERT_INT_EQ(parse_signals("0", &set, why), -1);
    ASSERT_STR_EQ(why, "0 is not a signal number (1 to 64)");
    ASSERT_INT_EQ(parse_signals("32", &set, why), -1);
    ASSERT_STR_EQ(why, "32 is taken by the C library for its threads (below SIGRTMIN)");
    ASSERT_INT_EQ(parse_signals("SIGRTMIN+6", &set, why), -1);
    ASSERT_STR_EQ(why, "SIGRTMIN+6 is the signal of hpmeasure's sampling (SIGRTMIN+6)");
    ASSERT_INT_EQ(parse_signals("SIGRTMIN+31", &set, why), -1);
    ASSERT_STR_EQ(why, "SIGRTMIN+31 is not a real-time signal (SIGRTMIN+0 to SIGRTMIN+30, "
                       "or SIGRTMAX-30 to SIGRTMAX)");
    ASSERT_INT_EQ(parse_signals("RTMAX+1", &set, why), -1);
    ASSERT_STR_CONTAINS(why, "RTMAX+1 is not a real-time signal");
    ASSERT_INT_EQ(parse_signals("RTMINx", &set, why), -1);
    ASSERT_STR_CONTAINS(why, "RTMINx is not a real-time signal");
    ASSERT_INT_EQ(parse_signals("9", &set, why), -1);
    ASSERT_STR_EQ(why, "9 cannot be caught");
    return 0;
}

TEST(finalize_signals_empty_none_and_dump_signal)
{
    char err[1024];
    const char *empty[] = { "HP_FINALIZE_SIGNALS=", NULL };
    ASSERT_INT_EQ(load(empty, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_FINALIZE_SIGNALS='' is not valid (empty; none means no "
                             "signal): expected signal names");
    const char *none[] = { "HP_FINALIZE_SIGNALS=none", "HP_DUMP_SIGNAL=TERM", NULL };
    ASSERT_INT_EQ(load(none, err, sizeof(err)), 0);
    const char *rt[] = { "HP_FINALIZE_SIGNALS=TERM,64,SIGRTMIN+3", "HP_DUMP_SIGNAL=RTMAX-2",
                         NULL };
    ASSERT_INT_EQ(load(rt, err, sizeof(err)), 0);

    /* A dump signal that is also a finalize signal: by default, or named. */
    const char *term[] = { "HP_DUMP_SIGNAL=TERM", NULL };
    ASSERT_INT_EQ(load(term, err, sizeof(err)), -1);
    ASSERT_STR_EQ(err, "HP_DUMP_SIGNAL='TERM' is not valid (it is also a finalize signal: "
                       "HP_FINALIZE_SIGNALS=TERM,INT,XCPU,USR2 by default): expected a "
                       "signal that is not in HP_FINALIZE_SIGNALS, e.g. USR1, or leave it out "
                       "of HP_FINALIZE_SIGNALS\n");
    const char *usr1[] = { "HP_DUMP_SIGNAL=SIGUSR1", "HP_FINALIZE_SIGNALS=TERM,10", NULL };
    ASSERT_INT_EQ(load(usr1, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_DUMP_SIGNAL='SIGUSR1' is not valid (it is also a finalize "
                             "signal: HP_FINALIZE_SIGNALS=TERM,10): expected");
    const char *sampling[] = { "HP_DUMP_SIGNAL=RTMIN+6", NULL };
    ASSERT_INT_EQ(load(sampling, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_DUMP_SIGNAL='RTMIN+6' is not valid (RTMIN+6 is the signal "
                             "of hpmeasure's sampling (SIGRTMIN+6))");
    return 0;
}

/* ---------------------------------------------------------------- names and echoes */

TEST(unknown_names_warned_with_the_closest_known_one)
{
    char *env[] = { "HP_ENABLE_TRACNG=true", "HP_FOO=1", "PATH=/bin", "HP_TIMER=tsc",
                    "HP_TOTAL_MEMROY=1G", "hp_verbose=1", "HP_VERBOSE", NULL };
    char out[1024];
    ASSERT_INT_EQ(hp_config_check_names(env, out, sizeof(out)), 3);
    ASSERT_STR_EQ(out, "HP_ENABLE_TRACNG is not a configuration variable; did you mean "
                       "HP_ENABLE_TRACING? It is ignored.\n"
                       "HP_FOO is not a configuration variable; it is ignored ('hp-info "
                       "config-vars' lists them).\n"
                       "HP_TOTAL_MEMROY is not a configuration variable; did you mean "
                       "HP_TOTAL_MEMORY? It is ignored.\n");
    return 0;
}

TEST(names_of_the_other_tools_are_not_warned)
{
    char *env[] = { "HP_WRAPPER=mpicc", "HP_WRAPPER_ARGS=-O2", "HP_INSTRUMENT_LIBDIR=/x",
                    "HP_INSTRUMENT_STRICT=1", "HP_RUN_PROGRAM=12", "HP_RUN_LIBDIR=/y",
                    "HP_CSV_CALLS=MPI_Send", "HP_ITER_FROM=1", "HP_SRCDIR=/s",
                    "HP_BUILDDIR=/b", "HP_MPI_TIMEOUT=60", "HP_ASAN_RUNTIME=",
                    "HP_TEST_DENY_RANK=1", "HP_BENCH_MPI_RANKS=2", NULL };
    char out[256];
    ASSERT_INT_EQ(hp_config_check_names(env, out, sizeof(out)), 0);
    ASSERT_STR_EQ(out, "");
    return 0;
}

TEST(echoed_values_are_escaped)
{
    const char *env[] = { "HP_TIMER=x\033[2J\033]0;t\007\xc2\x9b\xff\xc3\xa9", NULL };
    char err[1024];
    ASSERT_INT_EQ(load(env, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "HP_TIMER='x\\x1b[2J\\x1b]0;t\\x07\\xc2\\x9b\\xff\xc3\xa9' is "
                             "not valid: expected tsc or monotonic\n");
    char *names[] = { "HP_\033[31mRED=1", NULL };
    char out[256];
    ASSERT_INT_EQ(hp_config_check_names(names, out, sizeof(out)), 1);
    ASSERT_STR_CONTAINS(out, "HP_\\x1b[31mRED is not a configuration variable");
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(defaults), TEST_ENTRY(sizes), TEST_ENTRY(booleans),
             TEST_ENTRY(values_from_environment), TEST_ENTRY(every_bad_value_is_reported),
             TEST_ENTRY(ranges), TEST_ENTRY(choices_and_subtree_patterns),
             TEST_ENTRY(effective_configuration_lists_every_variable),
             TEST_ENTRY(trace_buffer_and_adaptive_mode),
             TEST_ENTRY(signal_numbers_up_to_64_and_realtime_names),
             TEST_ENTRY(signal_names_of_numbers), TEST_ENTRY(signals_refused_with_the_reason),
             TEST_ENTRY(finalize_signals_empty_none_and_dump_signal),
             TEST_ENTRY(unknown_names_warned_with_the_closest_known_one),
             TEST_ENTRY(names_of_the_other_tools_are_not_warned),
             TEST_ENTRY(echoed_values_are_escaped));
