/*
 * The call-overhead workload of `make bench` (see doc/bench.md).
 *
 * main() calls mid() N times and mid() calls the tiny leaf() 10 times, so a build with
 * -finstrument-functions makes 11 * N enter/exit pairs (plus one for main). The same
 * source is built plain, against the no-op hooks and against the core; the driver
 * subtracts the plain time and divides by the number of calls. Only the loop is timed,
 * so process start-up, the core's start-up and its finalize (writing the experiment)
 * stay outside the figure.
 *
 * Usage: bench-calls [N]   (default 10000000). Prints "ns=<loop time> calls=<11 N>".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/*
 * leaf and mid must stay real, separately instrumented functions named "leaf" and
 * "mid" (the filtered run excludes "leaf" by name). noinline alone still lets gcc clone
 * them (leaf.constprop.0) or drop the calls by interprocedural analysis; noipa forbids
 * both. clang has no noipa, and noinline is enough there.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_KEEP __attribute__((noipa, noinline))
#else
#define BENCH_KEEP __attribute__((noinline))
#endif

/* Every leaf() stores here, so its body and the calls to it cannot be removed. */
volatile unsigned long bench_sink;

BENCH_KEEP void leaf(unsigned long x);
BENCH_KEEP void mid(unsigned long x);

BENCH_KEEP void leaf(unsigned long x)
{
    bench_sink += x;
}

BENCH_KEEP void mid(unsigned long x)
{
    for (unsigned long i = 0; i < 10; i++)
        leaf(x + i);
}

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned long n = 10000000ul;

    if (argc > 1) {
        char *end;
        n = strtoul(argv[1], &end, 10);
        if (*end != '\0' || n == 0) {
            fprintf(stderr, "usage: %s [number of mid() calls]\n", argv[0]);
            return 2;
        }
    }
    unsigned long long t0 = now_ns();
    for (unsigned long i = 0; i < n; i++)
        mid(i);
    unsigned long long t1 = now_ns();
    printf("ns=%llu calls=%lu\n", t1 - t0, 11 * n);
    return 0;
}
