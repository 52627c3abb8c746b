/*
 * An OpenMP program that calls no omp_* function, for t082: its only references to
 * libgomp are GOMP_parallel and GOMP_barrier, which libhpmeasure defines, so a link with
 * --as-needed leaves libgomp out and the wrappers must load it for the team to have
 * its 2 threads. Prints 2: one call of work per thread.
 */
#include <stdio.h>

static long sum;

__attribute__((noinline)) void work(long i)
{
    __atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
}

int main(void)
{
    long calls = 0;
#pragma omp parallel num_threads(2)
    {
        __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
        work(1);
    }
    printf("%ld\n", sum * calls / 2);
    return 0;
}
