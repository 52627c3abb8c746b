/*
 * The sample handler's throttle (sampling.c): from how long a handler took, by the
 * clock and by its thread's CPU time, whether the following samples are skipped and
 * for how long. A pure function, so that the rule is tested apart from signals
 * (test/unit/test-throttle.c).
 *
 * A handler that takes more than half an interval (libunwind's slow path, e.g. in the
 * dynamic linker's lazy binding) would leave the program no time between signals, so
 * the samples of four times its duration are skipped: a handler's share of the thread's
 * CPU time stays at most 1/5 once it throttles. By the clock alone a handler that was
 * descheduled looks as slow (on a loaded machine that silenced sampling for four times
 * the wait), so a handler slow by the clock only arms a CPU-time check of the next one
 * (reading the thread's CPU clock is a system call, taken only then). A checked handler
 * that used more than half an interval of CPU throttles for four times its CPU time
 * (never more than four times its clock time) and keeps the check armed, so that a run
 * of slow handlers throttles at every one after the first.
 */
#ifndef HP_SAMPLING_THROTTLE_H
#define HP_SAMPLING_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

/* hp_throttle_decide's cpu_ns when the handler did not read its CPU time (no check was
 * armed), or when reading it failed: then the clock alone decides, as before the check. */
#define HP_THROTTLE_CPU_UNREAD UINT64_MAX
#define HP_THROTTLE_CPU_FAILED (UINT64_MAX - 1)

typedef struct hp_throttle {
    bool check_cpu;       /* the next handler reads its CPU time */
    uint64_t quiet_ticks; /* samples skipped for this long after the handler; 0: none */
} hp_throttle;

/* The verdict on a handler that took wall_ticks by the clock and cpu_ns of CPU time (or
 * HP_THROTTLE_CPU_UNREAD/_FAILED), with the sampling interval in ticks and in ns. */
static inline hp_throttle hp_throttle_decide(uint64_t wall_ticks, uint64_t cpu_ns,
                                             uint64_t interval_ticks, uint64_t interval_ns)
{
    hp_throttle t = { wall_ticks > interval_ticks / 2, 0 };
    if (!t.check_cpu || cpu_ns == HP_THROTTLE_CPU_UNREAD)
        return t; /* fast, or slow by the clock only so far: the next one checks */
    if (cpu_ns == HP_THROTTLE_CPU_FAILED || interval_ns == 0) {
        t.quiet_ticks = 4 * wall_ticks;
        return t;
    }
    if (cpu_ns <= interval_ns / 2)
        return t; /* descheduled, not slow */
    /* in double: the product of two long intervals overflows 64 bits */
    uint64_t cpu_ticks = (uint64_t)((double)cpu_ns * (double)interval_ticks / (double)interval_ns);
    t.quiet_ticks = 4 * (cpu_ticks < wall_ticks ? cpu_ticks : wall_ticks);
    return t;
}

#endif
