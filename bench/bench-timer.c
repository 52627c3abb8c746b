/*
 * The cost of one timestamp read, for the floor of `make bench` (see doc/bench.md).
 *
 * Times a loop of back-to-back reads with CLOCK_MONOTONIC and divides by the number of
 * reads: `rdtsc` (what the core reads on the hot path when the TSC is invariant) and
 * clock_gettime(CLOCK_MONOTONIC) (its fallback, and for reference). The reads are summed
 * into a volatile sink so none can be dropped; like the hooks, nothing serializes them.
 * Each figure is the minimum over several repetitions, since the machine is shared.
 *
 * Usage: bench-timer [reads [repetitions]]   (default 2000000 5).
 * Prints "rdtsc_ns=<x> clock_gettime_ns=<y>"; rdtsc_ns is "n/a" off x86.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long long sink;

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
static double rdtsc_loop(unsigned long n)
{
    unsigned long long sum = 0;
    unsigned long long t0 = now_ns();
    for (unsigned long i = 0; i < n; i++)
        sum += __builtin_ia32_rdtsc();
    unsigned long long t1 = now_ns();
    sink = sum;
    return (double)(t1 - t0) / (double)n;
}
#endif

static double clock_gettime_loop(unsigned long n)
{
    unsigned long long sum = 0;
    struct timespec ts;
    unsigned long long t0 = now_ns();
    for (unsigned long i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        sum += (unsigned long long)ts.tv_nsec;
    }
    unsigned long long t1 = now_ns();
    sink = sum;
    return (double)(t1 - t0) / (double)n;
}

static unsigned long parse(const char *s, const char *prog)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || v == 0) {
        fprintf(stderr, "usage: %s [reads [repetitions]]\n", prog);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    unsigned long n = 2000000ul, reps = 5;
    double best_cgt = 1e30;

    if (argc > 1)
        n = parse(argv[1], argv[0]);
    if (argc > 2)
        reps = parse(argv[2], argv[0]);
#if defined(__x86_64__) || defined(__i386__)
    double best_tsc = 1e30;
    for (unsigned long r = 0; r < reps; r++) {
        double t = rdtsc_loop(n);
        if (t < best_tsc)
            best_tsc = t;
        t = clock_gettime_loop(n);
        if (t < best_cgt)
            best_cgt = t;
    }
    printf("rdtsc_ns=%.2f clock_gettime_ns=%.2f\n", best_tsc, best_cgt);
#else
    for (unsigned long r = 0; r < reps; r++) {
        double t = clock_gettime_loop(n);
        if (t < best_cgt)
            best_cgt = t;
    }
    printf("rdtsc_ns=n/a clock_gettime_ns=%.2f\n", best_cgt);
#endif
    return 0;
}
