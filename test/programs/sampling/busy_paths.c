/* A serial program with a known, busy call structure for samples in traces: main calls
 * outer() which calls spin_deep() (about 60% of the time) and spin_shallow() directly
 * from main (about 40%). No instrumentation is needed: built with --nocompiler, every
 * path below main is learned by sampling. Argument: milliseconds to run (default 400). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile double sink;

__attribute__((noinline)) void spin_deep(double until)
{
    double x = 1.0;
    while (now_ms() < until)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

__attribute__((noinline)) void outer(double until)
{
    spin_deep(until);
    sink += 1.0;
}

__attribute__((noinline)) void spin_shallow(double until)
{
    double x = 2.0;
    while (now_ms() < until)
        for (int i = 0; i < 1000; i++)
            x = x * 0.9999999 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 400;
    double start = now_ms();
    for (int round = 0; round < 4; round++) {
        double slice = ms / 4;
        outer(start + round * slice + 0.6 * slice);
        spin_shallow(start + (round + 1) * slice);
    }
    printf("done %.0f ms\n", now_ms() - start);
    return 0;
}
