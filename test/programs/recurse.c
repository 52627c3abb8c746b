/* Recursion N levels deep that returns normally, then one more call: with
 * HP_PROFILING_MAX_DEPTH the tree stays bounded and balanced. `recurse N`. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long dive(long n)
{
    return n == 0 ? 0 : n + dive(n - 1);
}

__attribute__((noinline)) long after(long x)
{
    return x / 2;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", after(dive(n)));
    return 0;
}
