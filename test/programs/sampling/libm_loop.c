/*
 * Time in the C math library, reached through the program's PLT: sampled without hooks,
 * the profile shows main -> sin (libm) and the PLT stubs as "<program>@plt". Runs for
 * one second of its CPU time, so that a loaded machine, which stretches the run, does not
 * cut the samples it takes (a sample in the stubs is a matter of their number); prints
 * the sum so a changed result shows.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    struct timespec start, now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    double sum = 0;
    long i = 0;
    do {
        for (int k = 0; k < 100000; k++, i++)
            sum += sin((double)i * 1e-3);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while (now.tv_sec - start.tv_sec + (now.tv_nsec - start.tv_nsec) * 1e-9 < 1.0);
    printf("%s\n", sum == sum ? "done" : "nan");
    return 0;
}
