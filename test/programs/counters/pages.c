/* Known counter values per call path (t070): touch_pages() touches N fresh pages of an
 * anonymous mapping (one write per page: N page faults), spin() burns about 50 ms of
 * this thread's CPU time and touches nothing new (about 0 page faults). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "touch_pages.h"

static volatile unsigned long sink;

__attribute__((no_instrument_function)) static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static void spin(double seconds)
{
    double end = cpu_seconds() + seconds;
    while (cpu_seconds() < end)
        for (int i = 0; i < 1000; i++)
            sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    spin(0.001); /* the first clock read and loop pages fault here, not in spin below */
    touch_pages(n);
    spin(0.05);
    printf("touched %ld pages\n", n);
    return 0;
}
