/*
 * Unit tests of the signal names and lists of HP_FINALIZE_SIGNALS and HP_DUMP_SIGNAL
 * (measurement/core/signal_names.c): every number 1 to 64 against its name, real-time
 * signals from either end, and what is refused with which reason, sampling's own signal
 * in every spelling included.
 */
#include "measurement/core/signal_names.h"

#include <signal.h>
#include <stdio.h>

#include "test.h"

static char why[256];

/* The set of one item, or 0 with why set. */
static hp_signal_set parse(const char *s)
{
    hp_signal_set set = 0;
    why[0] = '\0';
    return hp_signal_parse_list(s, &set, why, sizeof(why)) == 0 ? set : 0;
}

/* Every signal 1..64: the named ones as `kill -l` prints them, 32 and 33 unnamed, the
 * real-time ones counted from the nearer end. */
TEST(names_of_every_number)
{
    static const char *const low[32] = {
        NULL,   "HUP",  "INT",  "QUIT", "ILL",    "TRAP", "ABRT", "BUS",
        "FPE",  "KILL", "USR1", "SEGV", "USR2",   "PIPE", "ALRM", "TERM",
        "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
        "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO",  "PWR",  "SYS" };
    for (int sig = 1; sig < 32; sig++)
        ASSERT_STR_EQ(hp_signal_name(sig), low[sig]);
    ASSERT(hp_signal_name(32) == NULL);
    ASSERT(hp_signal_name(33) == NULL);
    char expect[16];
    int mid = SIGRTMIN + (SIGRTMAX - SIGRTMIN) / 2;
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
        if (sig == SIGRTMIN)
            snprintf(expect, sizeof(expect), "RTMIN");
        else if (sig == SIGRTMAX)
            snprintf(expect, sizeof(expect), "RTMAX");
        else if (sig <= mid)
            snprintf(expect, sizeof(expect), "RTMIN+%d", sig - SIGRTMIN);
        else
            snprintf(expect, sizeof(expect), "RTMAX-%d", SIGRTMAX - sig);
        ASSERT_STR_EQ(hp_signal_name(sig), expect);
    }
    ASSERT(hp_signal_name(0) == NULL);
    ASSERT(hp_signal_name(65) == NULL);
    return 0;
}

TEST(lists_and_spellings)
{
    ASSERT_UINT_EQ(parse("TERM,sigint, Usr1"),
                   hp_signal_bit(SIGTERM) | hp_signal_bit(SIGINT) | hp_signal_bit(SIGUSR1));
    ASSERT_UINT_EQ(parse("15"), hp_signal_bit(SIGTERM));
    ASSERT_UINT_EQ(parse("SIGRTMIN+3"), hp_signal_bit(SIGRTMIN + 3));
    ASSERT_UINT_EQ(parse("rtmax-1"), hp_signal_bit(SIGRTMAX - 1));
    ASSERT_UINT_EQ(parse("RTMIN"), hp_signal_bit(SIGRTMIN));
    ASSERT_UINT_EQ(parse("SIGRTMAX"), hp_signal_bit(SIGRTMAX));
    ASSERT_UINT_EQ(parse("64"), hp_signal_bit(64));
    hp_signal_set set = 1;
    ASSERT_INT_EQ(hp_signal_parse_list("none", &set, why, sizeof(why)), 0);
    ASSERT_UINT_EQ(set, 0);
    set = 1;
    ASSERT_INT_EQ(hp_signal_parse_list("", &set, why, sizeof(why)), 0);
    ASSERT_UINT_EQ(set, 0);
    return 0;
}

TEST(bad_names_say_why)
{
    static const struct {
        const char *list, *why; /* why: the start of the reason */
    } bad[] = {
        { "TERMINATE", "TERMINATE is not a signal name" },
        { "65", "65 is not a signal number (1 to 64)" },
        { "0", "0 is not a signal number (1 to 64)" },
        { "15x", "15x is not a signal number (1 to 64)" },
        { "RTMIN+31", "RTMIN+31 is not a real-time signal (SIGRTMIN+0 to SIGRTMIN+" },
        { "RTMIN-1", "RTMIN-1 is not a real-time signal" },
        { "TERM,,INT", "'' is not a signal" },
        { "KILL", "KILL " },
        { "SEGV", "SEGV " },
        { "32", "32 is taken by the C library for its threads (below SIGRTMIN)" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_UINT_EQ(parse(bad[i].list), 0);
        if (strncmp(why, bad[i].why, strlen(bad[i].why)) != 0)
            HP_TEST_FAIL("%s: \"%s\" does not start with \"%s\"", bad[i].list, why,
                         bad[i].why);
    }
    return 0;
}

/* HP_DUMP_SIGNAL (and HP_FINALIZE_SIGNALS) can never be sampling's signal: the sampler
 * installs its handler with the C library's sigaction, past signals.c's wrapper, so a
 * list that held it would lose its handler to sampling. Every spelling is refused. */
TEST(sampling_signal_refused_in_every_spelling)
{
    int sample = SIGRTMIN + HP_SAMPLE_SIGNAL_OFFSET;
    char number[16], from_max[16];
    snprintf(number, sizeof(number), "%d", sample);
    snprintf(from_max, sizeof(from_max), "RTMAX-%d", SIGRTMAX - sample);
    const char *spellings[] = { "SIGRTMIN+6", "rtmin+6", "RTMIN+06", number, from_max,
                                "USR1,SIGRTMIN+6" };
    for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
        ASSERT_UINT_EQ(parse(spellings[i]), 0);
        ASSERT_STR_CONTAINS(why, "is the signal of hpmeasure's sampling (SIGRTMIN+6)");
    }
    ASSERT_UINT_EQ(parse("SIGRTMIN+5,SIGRTMIN+7"),
                   hp_signal_bit(sample - 1) | hp_signal_bit(sample + 1));
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(names_of_every_number), TEST_ENTRY(lists_and_spellings),
             TEST_ENTRY(bad_names_say_why), TEST_ENTRY(sampling_signal_refused_in_every_spelling));
