/* Thread lifetimes: `thread_churn N` starts and joins N short threads one after another
 * (each calls work() once), then runs a pool: 3 rounds of 4 threads that are alive at
 * the same time (a barrier), each calling pooled() twice. With HP_THREAD_LOCATIONS=reuse
 * (the default) all 5,012 threads are measured in 5 locations: the master's and 4. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
static pthread_barrier_t all_started;

__attribute__((noinline)) void work(long i) { sink += i; }

__attribute__((noinline)) void *short_thread(void *arg)
{
    work((long)arg);
    return NULL;
}

__attribute__((noinline)) void pooled(long i) { sink += i; }

__attribute__((noinline)) void *pool_thread(void *arg)
{
    pthread_barrier_wait(&all_started);
    pooled((long)arg);
    pooled((long)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 5000;
    for (long i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_thread, (void *)i) != 0)
            return 1;
        pthread_join(t, NULL);
    }
    pthread_barrier_init(&all_started, NULL, 4);
    for (int round = 0; round < 3; round++) {
        pthread_t pool[4];
        for (long i = 0; i < 4; i++)
            if (pthread_create(&pool[i], NULL, pool_thread, (void *)i) != 0)
                return 1;
        for (int i = 0; i < 4; i++)
            pthread_join(pool[i], NULL);
    }
    printf("done %ld\n", sink);
    return 0;
}
