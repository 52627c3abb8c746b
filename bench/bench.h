/*
 * What the benchmark programs of bench/ share: a way to keep a tiny function a real,
 * separately called function, and a clock read in nanoseconds. C and C++.
 */
#ifndef HP_BENCH_BENCH_H
#define HP_BENCH_BENCH_H

#include <time.h> /* clock_gettime; C needs _POSIX_C_SOURCE 200809L or more */

/*
 * noinline alone still lets gcc clone a function (f.constprop.0) or drop calls to it by
 * interprocedural analysis; noipa forbids both. clang has no noipa, and noinline is
 * enough there.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_KEEP __attribute__((noipa, noinline))
#else
#define BENCH_KEEP __attribute__((noinline))
#endif

/* clock (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, ...) in nanoseconds. */
static inline unsigned long long bench_now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

#endif
