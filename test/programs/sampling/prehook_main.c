/*
 * The unmeasured part of the prehook program (compiled without instrumentation): main
 * calls helper, which calls the measured work (prehook_work.c). A sample taken before
 * work's first enter hook sees main/helper/work, none of them a measured region yet.
 */
#include <stdio.h>

double work(int ms);

__attribute__((noinline)) static double helper(int ms)
{
    double x = work(ms);
    return x + 1.0; /* no tail call: helper keeps its frame */
}

int main(void)
{
    double x = helper(20);
    printf("%s\n", x > 0 ? "done" : "?");
    return 0;
}
