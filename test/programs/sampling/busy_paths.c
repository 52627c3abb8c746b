/* A program with a known, busy call structure for samples in traces: rounds() calls
 * outer() which calls spin_deep() (about 60% of the time), and spin_shallow() directly
 * (about 40%). No instrumentation is needed: built with --nocompiler, every path below
 * main is learned by sampling. Arguments: milliseconds to run (default 400), threads
 * (default 1: main alone; n > 1: main and n - 1 pthreads run rounds() at once; build
 * with -pthread), and "cpu" to count each thread's CPU time instead of the wall clock's
 * (a loaded machine then stretches the run instead of cutting what it samples). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static clockid_t run_clock = CLOCK_MONOTONIC;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(run_clock, &ts);
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

static double run_ms;

__attribute__((noinline)) void *rounds(void *arg)
{
    (void)arg;
    double start = now_ms();
    for (int round = 0; round < 4; round++) {
        double slice = run_ms / 4;
        outer(start + round * slice + 0.6 * slice);
        spin_shallow(start + (round + 1) * slice);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    run_ms = argc > 1 ? atof(argv[1]) : 400;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    pthread_t th[16];
    if (threads < 1 || threads > 16)
        threads = 1;
    struct timespec wall;
    clock_gettime(CLOCK_MONOTONIC, &wall);
    double start = wall.tv_sec * 1e3 + wall.tv_nsec / 1e6;
    if (argc > 3 && strcmp(argv[3], "cpu") == 0)
        run_clock = CLOCK_THREAD_CPUTIME_ID;
    for (int t = 1; t < threads; t++)
        pthread_create(&th[t], NULL, rounds, NULL);
    rounds(NULL);
    for (int t = 1; t < threads; t++)
        pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &wall);
    printf("done %.0f ms\n", wall.tv_sec * 1e3 + wall.tv_nsec / 1e6 - start);
    return 0;
}
