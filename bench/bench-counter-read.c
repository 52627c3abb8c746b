/*
 * The cost of one counter read alone (`make bench`, run-counters-bench.sh; see
 * doc/counters.md): a perf group of 1 and of 4 software events read with one read()
 * (PERF_FORMAT_GROUP, as measurement/core/metrics.c does), one getrusage(RUSAGE_THREAD), and
 * for scale the cheapest system call there is (getppid).
 *
 * Usage: bench-counter-read [N]   (default 1000000 reads each). Prints
 * "perf1_ns=X perf4_ns=Y rusage_ns=Z syscall_ns=S" (ns per call), "n/a" for a group that
 * perf_event_open refuses here.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

static int event_open(uint64_t config, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = config;
    a.read_format = PERF_FORMAT_GROUP;
    a.exclude_hv = 1; /* kernel context counted, as the core does where permitted */
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* ns per read() of a group of n events, or -1 when it cannot be opened. */
static double perf_read_ns(int n, unsigned long reps)
{
    static const uint64_t events[4] = { PERF_COUNT_SW_PAGE_FAULTS,
                                        PERF_COUNT_SW_PAGE_FAULTS_MIN,
                                        PERF_COUNT_SW_CONTEXT_SWITCHES,
                                        PERF_COUNT_SW_CPU_MIGRATIONS };
    int fd[4];
    for (int i = 0; i < n; i++)
        if ((fd[i] = event_open(events[i], i == 0 ? -1 : fd[0])) < 0)
            return -1;
    uint64_t buf[5];
    unsigned long long t0 = bench_now_ns(CLOCK_MONOTONIC);
    for (unsigned long r = 0; r < reps; r++)
        if (read(fd[0], buf, (size_t)(n + 1) * sizeof(uint64_t)) < 0)
            return -1;
    unsigned long long t1 = bench_now_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++)
        close(fd[i]);
    return (double)(t1 - t0) / (double)reps;
}

static double rusage_ns(unsigned long reps)
{
    struct rusage u;
    unsigned long long t0 = bench_now_ns(CLOCK_MONOTONIC);
    for (unsigned long r = 0; r < reps; r++)
        getrusage(RUSAGE_THREAD, &u);
    return (double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / (double)reps;
}

static double syscall_ns(unsigned long reps)
{
    unsigned long long t0 = bench_now_ns(CLOCK_MONOTONIC);
    for (unsigned long r = 0; r < reps; r++)
        syscall(SYS_getppid);
    return (double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / (double)reps;
}

static void print(const char *name, double ns)
{
    if (ns < 0)
        printf("%s=n/a ", name);
    else
        printf("%s=%.1f ", name, ns);
}

int main(int argc, char **argv)
{
    unsigned long reps = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
    print("perf1_ns", perf_read_ns(1, reps));
    print("perf4_ns", perf_read_ns(4, reps));
    print("rusage_ns", rusage_ns(reps));
    print("syscall_ns", syscall_ns(reps));
    putchar('\n');
    return 0;
}
