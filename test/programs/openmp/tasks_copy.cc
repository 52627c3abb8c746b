/*
 * Tasks whose data libgomp copies with the compiler's copy function (cpyfn) for t082:
 * a firstprivate C++ object whose copy constructor adds 1 (so the result counts the
 * copies made), a large over-aligned array, and an undeferred task. Prints 67 unless
 * a copy is made more or less often than without measurement.
 */
#include <cstdio>
#include <omp.h>

struct counted {
    long v;
    explicit counted(long x) : v(x) {}
    counted(const counted &o) : v(o.v + 1) {}
};

static long sum;

__attribute__((noinline)) void work(long i)
{
    __atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
}

int main()
{
#pragma omp parallel
#pragma omp single
    {
        counted o(10);
        for (int i = 0; i < 5; i++) {
#pragma omp task firstprivate(o)
            work(o.v);
        }
        alignas(64) double big[300] = { 1 };
#pragma omp task firstprivate(big)
        work((long)big[0]);
#pragma omp task if (0) firstprivate(o)
        work(o.v);
    }
    std::printf("%ld\n", sum);
    return 0;
}
