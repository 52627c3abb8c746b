/*
 * The OpenMP workload of bench/run-threads-bench.sh (doc/bench.md): main enters and
 * leaves N parallel regions of 2 threads one after another, each thread calling the
 * instrumented work() once, so that the cost of a region's fork, barriers and join
 * under hpmeasure compares with the plain run. Only the loop is timed. Usage:
 * bench-omp [N] (default 20000). Prints "ns=<loop time> regions=<N>".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

volatile unsigned long bench_sink;

BENCH_KEEP void work(unsigned long x)
{
    __atomic_fetch_add(&bench_sink, x, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
    unsigned long long t0 = bench_now_ns(CLOCK_MONOTONIC);
    for (unsigned long i = 0; i < n; i++) {
#pragma omp parallel num_threads(2)
        work(i);
    }
    printf("ns=%llu regions=%lu\n", bench_now_ns(CLOCK_MONOTONIC) - t0, n);
    return 0;
}
