/* A known call tree for exact visit counts: loops, a call through a function pointer,
 * recursion, and a static function. Expected visits are listed in t001-calltree.sh. */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void leaf(int i) { sink += i; }

__attribute__((noinline)) void left(int n)
{
    for (int i = 0; i < n; i++)
        leaf(i);
}

__attribute__((noinline)) void right(void) { leaf(1); }

__attribute__((noinline)) int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

static void (*volatile indirect)(void) = right;

int main(void)
{
    for (int i = 0; i < 4; i++)
        left(3);    /* main/left x4, main/left/leaf x12 */
    for (int i = 0; i < 2; i++)
        indirect(); /* main/right x2, main/right/leaf x2 */
    int f = fact(4); /* main/fact/fact/fact/fact: one visit each level */
    printf("fact=%d sink=%ld\n", f, (long)sink);
    return 0;
}
