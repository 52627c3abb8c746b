/* exit() while other threads are deep inside instrumented recursion (crossing shadow
 * stack chunks) and still entering new functions: the program must end normally with
 * a valid profile, however the threads are caught. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void down(int d)
{
    sink++;
    if (d > 0)
        down(d - 1);
}

__attribute__((noinline)) void *spin(void *arg)
{
    (void)arg;
    for (;;)
        down(1100 + (int)(sink % 300));
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    for (int i = 0; i < 3; i++)
        pthread_create(&t, NULL, spin, NULL);
    usleep(argc > 1 ? atoi(argv[1]) : 2000);
    exit(0);
}
