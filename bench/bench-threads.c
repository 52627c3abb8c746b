/*
 * The thread workload of bench/run-threads-bench.sh (doc/bench.md): main starts and
 * joins N threads one after another, each calling the instrumented work() once. Only
 * the loop is timed. Usage: bench-threads [N] (default 2000). Prints "ns=<loop time>
 * threads=<N>".
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long bench_sink;

__attribute__((noinline)) void work(unsigned long x)
{
    bench_sink += x;
}

__attribute__((noinline)) static void *thread_main(void *arg)
{
    work((unsigned long)arg);
    return NULL;
}

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
    unsigned long long t0 = now_ns();
    for (unsigned long i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, thread_main, (void *)i) != 0)
            return 1;
        pthread_join(t, NULL);
    }
    unsigned long long t1 = now_ns();
    printf("ns=%llu threads=%lu\n", t1 - t0, n);
    return 0;
}
