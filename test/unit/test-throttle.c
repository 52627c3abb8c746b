/*
 * Unit tests of measurement/sampling/throttle.h, the sample handler's throttle: a handler
 * slow by the clock only arms a CPU-time check of the next one; a descheduled handler
 * (slow by the clock, little CPU time) skips no samples; a run of handlers slow in CPU
 * time throttles at each one after the first; the quiet time is four times the CPU time,
 * never more than four times the clock time; a failed CPU clock falls back to the clock.
 * The interval: 1 ms, 3 000 000 ticks (a 3 GHz TSC).
 */
#include "measurement/sampling/throttle.h"

#include "test.h"

enum { TICKS = 3000000, NS = 1000000 }; /* one interval */

static hp_throttle decide(uint64_t wall_ticks, uint64_t cpu_ns)
{
    return hp_throttle_decide(wall_ticks, cpu_ns, TICKS, NS);
}

TEST(a_fast_handler_changes_nothing)
{
    hp_throttle t = decide(TICKS / 2, HP_THROTTLE_CPU_UNREAD); /* half is not slow */
    ASSERT(!t.check_cpu);
    ASSERT_UINT_EQ(t.quiet_ticks, 0);
    t = decide(1000, 300); /* checked and fast: the check ends */
    ASSERT(!t.check_cpu);
    ASSERT_UINT_EQ(t.quiet_ticks, 0);
    return 0;
}

TEST(slow_by_the_clock_only_arms_the_check)
{
    hp_throttle t = decide(TICKS / 2 + 1, HP_THROTTLE_CPU_UNREAD);
    ASSERT(t.check_cpu);
    ASSERT_UINT_EQ(t.quiet_ticks, 0);
    return 0;
}

/* 10 ms by the clock, 0.1 ms of CPU: the thread waited for a core, not for libunwind. */
TEST(a_descheduled_handler_does_not_throttle)
{
    hp_throttle t = decide(10 * TICKS, NS / 10);
    ASSERT_UINT_EQ(t.quiet_ticks, 0);
    ASSERT(t.check_cpu); /* slow by the clock again: the next one checks too */
    t = decide(10 * TICKS, NS / 2); /* exactly half an interval of CPU is not slow */
    ASSERT_UINT_EQ(t.quiet_ticks, 0);
    return 0;
}

/* Three handlers of 1 ms by the clock and 0.9 ms of CPU each: the first arms the check,
 * the second and the third throttle, each for 4 x 0.9 ms. */
TEST(consecutive_cpu_slow_handlers_throttle_at_once)
{
    hp_throttle t = decide(TICKS, HP_THROTTLE_CPU_UNREAD);
    ASSERT(t.check_cpu);
    ASSERT_UINT_EQ(t.quiet_ticks, 0);
    for (int i = 0; i < 2; i++) {
        t = decide(TICKS, NS * 9 / 10);
        ASSERT_UINT_EQ(t.quiet_ticks, 4 * (TICKS * 9 / 10));
        ASSERT(t.check_cpu);
    }
    return 0;
}

/* 10 ms by the clock of which 0.6 ms CPU: quiet for 4 x 0.6 ms, not 4 x 10 ms; and never
 * more than four times the clock time when the two clocks disagree. */
TEST(the_quiet_time_is_bounded_by_cpu_and_clock_time)
{
    hp_throttle t = decide(10 * TICKS, NS * 6 / 10);
    ASSERT_UINT_EQ(t.quiet_ticks, 4 * (TICKS * 6 / 10));
    t = decide(TICKS * 6 / 10, NS); /* 0.6 ms by the clock, 1 ms of CPU */
    ASSERT_UINT_EQ(t.quiet_ticks, 4 * (TICKS * 6 / 10));
    return 0;
}

/* A CPU clock that cannot be read leaves the clock's rule: slow by it throttles for
 * four times the clock time, instead of never. */
TEST(a_failed_cpu_clock_falls_back_to_the_clock)
{
    hp_throttle t = decide(2 * TICKS, HP_THROTTLE_CPU_FAILED);
    ASSERT_UINT_EQ(t.quiet_ticks, 8 * (uint64_t)TICKS);
    ASSERT(t.check_cpu);
    t = decide(TICKS / 4, HP_THROTTLE_CPU_FAILED);
    ASSERT_UINT_EQ(t.quiet_ticks, 0);
    ASSERT(!t.check_cpu);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(a_fast_handler_changes_nothing),
             TEST_ENTRY(slow_by_the_clock_only_arms_the_check),
             TEST_ENTRY(a_descheduled_handler_does_not_throttle),
             TEST_ENTRY(consecutive_cpu_slow_handlers_throttle_at_once),
             TEST_ENTRY(the_quiet_time_is_bounded_by_cpu_and_clock_time),
             TEST_ENTRY(a_failed_cpu_clock_falls_back_to_the_clock));
