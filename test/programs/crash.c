/* A measured program that crashes: main calls work() 3 times, then writes through a null
 * pointer (a real segmentation fault, not a raised signal). */
#include <stddef.h>

static volatile long sink;
static int *volatile nowhere = NULL;

__attribute__((noinline)) void work(void) { sink++; }

int main(void)
{
    for (int i = 0; i < 3; i++)
        work();
    *nowhere = 1;
    return 0;
}
