/* Recursion DEPTH levels deep, then exit(3) from the deepest level: the experiment
 * must still be written, with every open level closed at exit. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void dive(int level, int depth)
{
    if (level == depth) {
        printf("reached %d\n", level);
        fflush(stdout);
        exit(3);
    }
    dive(level + 1, depth);
}

int main(int argc, char **argv)
{
    dive(1, argc > 1 ? atoi(argv[1]) : 10000);
    return 0;
}
