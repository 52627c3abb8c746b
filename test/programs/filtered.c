/* A filtered function's time must count to its caller. busy() spins for a known time
 * that the program measures itself and prints; hidden() calls busy() and leaf(). */
#include <stdio.h>
#include <time.h>

static volatile long sink;

__attribute__((no_instrument_function)) static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) void busy(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        sink++;
}

__attribute__((noinline)) void hidden(void)
{
    busy(0.05);
    leaf();
}

__attribute__((noinline)) void caller(void)
{
    for (int i = 0; i < 2; i++)
        hidden();
}

int main(void)
{
    double t0 = now();
    caller();
    printf("caller_seconds=%.6f\n", now() - t0);
    return 0;
}
