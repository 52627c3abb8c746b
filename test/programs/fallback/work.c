/* t101-instrument-fallback: the unit that the GCC plug-in fails on (on purpose, with
 * HP_INSTRUMENT_TEST_FAIL), which hp-instrument compiles again with
 * -finstrument-functions. main calls work 10 times, work calls leaf twice and part
 * (part.c, built with the plug-in) once: sum 209. */
#include <stdio.h>

int part(int i);

__attribute__((noinline)) static int leaf(int i)
{
    return i * 2;
}

__attribute__((noinline)) int work(int i)
{
    return leaf(i) + leaf(i + 1) + part(i);
}

int main(void)
{
    int sum = 0;
    for (int i = 0; i < 10; i++)
        sum += work(i);
    printf("sum %d\n", sum);
    return 0;
}
