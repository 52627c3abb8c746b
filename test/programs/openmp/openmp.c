/*
 * OpenMP constructs for t017: parallel for (static and dynamic schedule), a parallel
 * region with a barrier and critical sections (unnamed and named), and nested parallel
 * regions of 2 x 2 threads. The sum printed at the end checks that the results are
 * the program's own. Functions are noinline so that the GCC plug-in instruments them.
 */
#include <omp.h>
#include <stdio.h>

static long sum;

__attribute__((noinline)) void work(int i)
{
    __atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void static_loop(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 12; i++)
        work(i);
}

__attribute__((noinline)) void dynamic_loop(void)
{
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < 12; i++)
        work(i);
}

__attribute__((noinline)) void synchronized(void)
{
#pragma omp parallel
    {
        work(1);
#pragma omp barrier
#pragma omp critical
        work(2);
#pragma omp critical(named)
        work(3);
    }
}

__attribute__((noinline)) void inner(void)
{
#pragma omp parallel num_threads(2)
    work(omp_get_thread_num());
}

__attribute__((noinline)) void nested(void)
{
#pragma omp parallel num_threads(2)
    inner();
}

int main(void)
{
    omp_set_max_active_levels(2);
    static_loop();
    dynamic_loop();
    synchronized();
    nested();
    printf("%ld %d\n", sum, omp_get_max_threads());
    return 0;
}
