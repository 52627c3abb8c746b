/* Direct and indirect recursion for HP_PROFILING_RECURSION=collapse (t081-recursion.sh):
 * `recursion N` runs dive(N) (N + 1 calls, each calling leaf once), then
 * ping(6) -> pong(5) -> ping(4) -> ... -> ping(0) (4 pings, 3 pongs), then calc()
 * (which calls leaf once). */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i) { sink += i; }

__attribute__((noinline)) long dive(long n)
{
    leaf(n);
    return n == 0 ? 0 : 1 + dive(n - 1);
}

long pong(long n);

__attribute__((noinline)) long ping(long n) { return n == 0 ? 0 : 1 + pong(n - 1); }

__attribute__((noinline)) long pong(long n) { return n == 0 ? 0 : 1 + ping(n - 1); }

__attribute__((noinline)) void calc(void) { leaf(1); }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long d = dive(n);
    long p = ping(6);
    calc();
    printf("%ld %ld\n", d, p);
    return 0;
}
