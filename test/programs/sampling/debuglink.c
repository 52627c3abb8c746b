/*
 * A program whose function names live only in a separate debug file: t104 strips it
 * (no .symtab left) and points to debuglink.debug with a .gnu_debuglink section, as
 * `objcopy --only-keep-debug` workflows do. spin_in_static is not exported (not in
 * .dynsym), so a sampled profile can name it only from the debug file. Runs about half
 * a second (clock-bounded) and prints "done".
 */
#include <stdio.h>
#include <time.h>

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) * 1e-9;
}

static __attribute__((noinline)) double spin_in_static(void)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    volatile double sum = 0;
    do {
        for (int k = 0; k < 100000; k++)
            sum = sum + k * VARIANT;
    } while (seconds_since(&start) < 0.5);
    return sum;
}

int main(void)
{
    printf("%s\n", spin_in_static() >= 0 ? "done" : "negative");
    return 0;
}
