/* Many events from a small call tree: main calls outer() N times (argv[1], default
 * 100000), outer calls inner() once. */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void inner(int i) { sink += i; }
__attribute__((noinline)) void outer(int i) { inner(i); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    for (int i = 0; i < n; i++)
        outer(i);
    printf("sink=%ld\n", (long)sink);
    return 0;
}
