/*
 * The timer: raw ticks on the hot path, seconds only when writing.
 *
 * With an invariant TSC the tick is one `rdtsc` (~11 ns here, no system call); otherwise
 * it is CLOCK_MONOTONIC in nanoseconds. The tick rate is measured against
 * CLOCK_MONOTONIC between start-up and finalize, so it is exact over the run.
 */
#ifndef HP_MEASUREMENT_TIMER_H
#define HP_MEASUREMENT_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "util/compiler.h"

extern HP_HIDDEN bool hp__timer_tsc; /* read-mostly: set once by hp_timer_init */

static inline uint64_t hp_timer_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* hp_timer_monotonic_ns out of line: the fallback of hp_timer_now, so that the callers'
 * fast paths keep no timespec on their stack (the MPI wrappers' are leaves). */
uint64_t hp__timer_monotonic_now(void);

static inline uint64_t hp_timer_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(hp__timer_tsc, 1))
        return __builtin_ia32_rdtsc();
#endif
    return hp__timer_monotonic_now();
}

/* hp_timer_now for fast paths that keep the fallback's call out of line themselves (a
 * tail call then needs no saved registers): with the TSC as the timer, reads it into
 * *ticks and returns true; otherwise reads nothing and returns false. */
static inline bool hp_timer_read_tsc(uint64_t *ticks)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(hp__timer_tsc, 1)) {
        *ticks = __builtin_ia32_rdtsc();
        return true;
    }
#endif
    (void)ticks;
    return false;
}

/* Chooses the timer (kind requested; TSC falls back to monotonic without an invariant
 * TSC, then *fell_back is set) and records the start reference. */
void hp_timer_init(hp_timer_kind kind, bool *fell_back);

/* Ticks per second, measured from start-up until the first call of this function
 * (at least 10 ms are waited for precision). Later calls return the same value. */
double hp_timer_ticks_per_second(void);

/* The reference taken at start-up: timer ticks and CLOCK_MONOTONIC nanoseconds read
 * together, to map ticks onto the monotonic clock (shared by all processes of a node). */
void hp_timer_reference(uint64_t *ticks, uint64_t *ns);

/* Name of the timer in use: "tsc" or "monotonic". */
const char *hp_timer_name(void);

#endif
