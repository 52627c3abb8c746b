/*
 * The measured function of the program of prehook_main.c (built with hp-instrument):
 * work computes for ms milliseconds of wall time.
 */
#include <time.h>

__attribute__((noinline)) double work(int ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double end = t.tv_sec * 1e3 + t.tv_nsec / 1e6 + ms, x = 1.0;
    for (;;) {
        x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec * 1e3 + t.tv_nsec / 1e6 >= end)
            return x;
    }
}
