/*
 * Edge cases of a fork whose path sampling unwinds, for t098:
 *   fork_edges exit     compute() forks a region in which thread 0 calls exit() while
 *                       the others still spin: measurement ends with the forking path
 *                       and the region open in every thread;
 *   fork_edges recurse  a(1) -> b(0) -> a(0) forks: the unwound path holds a twice,
 *                       which HP_PROFILING_RECURSION=collapse folds in team threads;
 *   fork_edges exclude  outer() -> inner() forks, for HP_EXCLUDE_SUBTREES=outer.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) void spin(double length)
{
    double end = seconds() + length;
    while (seconds() < end)
        ;
}

__attribute__((noinline)) void compute(void)
{
#pragma omp parallel
    {
        spin(0.05);
        if (omp_get_thread_num() == 0)
            exit(0);
        spin(1.0);
    }
}

void b(int n);

__attribute__((noinline)) void a(int n)
{
    if (n > 0) {
        b(n - 1);
        return;
    }
#pragma omp parallel
    spin(0.03);
}

__attribute__((noinline)) void b(int n)
{
    a(n);
}

__attribute__((noinline)) void inner(void)
{
#pragma omp parallel
    spin(0.03);
}

__attribute__((noinline)) void outer(void)
{
    inner();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "recurse";
    if (strcmp(mode, "exit") == 0)
        compute();
    else if (strcmp(mode, "exclude") == 0)
        outer();
    else
        a(1);
    return 0;
}
