/* A call chain main -> level x 6 whose innermost call spins through 100 million loop
 * iterations (a tenth of a second or more) without calling anything: with
 * HP_PROFILING_MAX_DEPTH=3 the spin and the four deeper levels are below the limit,
 * so their time must show up as the own time of main/level/level. */
#include <stdio.h>

__attribute__((noinline)) long spin(void)
{
    volatile long n = 0;
    for (long i = 0; i < 100000000; i++)
        n += i & 1;
    return n > 0;
}

__attribute__((noinline)) long level(int n)
{
    return n == 0 ? spin() : 1 + level(n - 1);
}

int main(void)
{
    printf("%ld\n", level(5));
    return 0;
}
