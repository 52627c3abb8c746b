/* Three worker threads with different amounts of work: one location per thread,
 * thread t calls work() 10 * (t + 1) times. */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) void work(long i) { sink += i; }

__attribute__((noinline)) void *worker(void *arg)
{
    long t = (long)arg;
    for (long i = 0; i < 10 * (t + 1); i++)
        work(i);
    return NULL;
}

int main(void)
{
    pthread_t th[3];
    for (long t = 0; t < 3; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < 3; t++)
        pthread_join(th[t], NULL);
    work(0);
    printf("done\n");
    return 0;
}
