/*
 * OpenMP tasks and worksharing for t082: one thread creates 8 tasks
 * (plain data) and waits for them, every thread creates 2 tasks with a larger copy
 * (firstprivate array, memcpy'd by libgomp), an undeferred task (if(0)), a taskgroup of
 * 4 tasks, and a worksharing loop with a dynamic schedule whose end barrier is
 * implicit. The printed sum checks that every task ran once with its own data.
 */
#include <omp.h>
#include <stdio.h>

static long sum;

__attribute__((noinline)) void work(long i)
{
    __atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void producer(void)
{
#pragma omp single
    {
        for (int i = 0; i < 8; i++) {
#pragma omp task firstprivate(i)
            work(i + 1);
        }
#pragma omp taskwait
    }
}

__attribute__((noinline)) void each_thread(void)
{
    long v[4] = { 1, 2, 3, omp_get_thread_num() };
    for (int i = 0; i < 2; i++) {
#pragma omp task firstprivate(v)
        work(v[0] + v[1] + v[2] - v[3] + v[3]); /* 6, whichever thread runs it */
    }
#pragma omp task if (0)
    work(100);
}

__attribute__((noinline)) void grouped(void)
{
#pragma omp single nowait
#pragma omp taskgroup
    {
        for (int i = 0; i < 4; i++) {
#pragma omp task
            work(1000);
        }
    }
}

__attribute__((noinline)) void loop(void)
{
#pragma omp for schedule(dynamic)
    for (int i = 0; i < 12; i++)
        work(10000);
}

int main(void)
{
#pragma omp parallel
    {
        producer();
        each_thread();
        grouped();
        loop();
    }
    /* 36 + (12 + 100) per thread + 4000 + 120000 */
    printf("%ld %d\n", sum, omp_get_max_threads());
    return 0;
}
