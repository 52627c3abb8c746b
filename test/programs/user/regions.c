/* User regions, a phase, a function scope and parameters with known visits
 * (t090-user-regions.sh). Helpers are not instrumented so the call paths hold only
 * main and the user's regions. */
#include <hp/user.h>
#include <stdio.h>
#include <stdlib.h>

HP_USER_REGION_DEFINE(solve);

__attribute__((noinline, no_instrument_function)) static void work(int n)
{
    volatile double x = 0;
    for (int i = 0; i < n * 1000; i++)
        x += i;
}

/* The scope ends on both returns. */
__attribute__((noinline, no_instrument_function)) static int scoped(int k)
{
    HP_USER_SCOPE("scoped", HP_USER_REGION_TYPE_COMMON);
    if (k % 2)
        return 1;
    work(1);
    return 0;
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : 5;
    int odd = 0;
    HP_USER_REGION_DEFINE(init);

    HP_USER_PHASE_BEGIN(init, "init");
    work(1);
    HP_USER_PHASE_END(init);
    HP_USER_REGION_BEGIN(solve, "solve", HP_USER_REGION_TYPE_COMMON);
    for (int it = 0; it < iterations; it++) {
        HP_USER_REGION_DEFINE(iteration);
        HP_USER_REGION_BEGIN(iteration, "iteration", HP_USER_REGION_TYPE_LOOP);
        HP_USER_PARAMETER_INT("step", it % 3);
        HP_USER_PARAMETER_STRING("kind", it % 2 ? "odd" : "even");
        odd += scoped(it);
        HP_USER_REGION_END(iteration);
    }
    HP_USER_REGION_END(solve);
    printf("odd=%d\n", odd);
    return 0;
}
