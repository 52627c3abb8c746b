/* A threaded run cut short by SIGTERM: thread t (1..3) calls work() 10*t times and then
 * waits in a barrier that never opens; the master calls work() 5 times, waits until
 * every thread has done its calls and raises the signal itself. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

static volatile long sink;
static pthread_barrier_t done, never;

__attribute__((noinline)) void work(void) { sink++; }

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < 10 * t; i++)
        work();
    pthread_barrier_wait(&done);
    pthread_barrier_wait(&never); /* the run ends while the threads wait here */
    return NULL;
}

int main(void)
{
    pthread_t threads[3];
    pthread_barrier_init(&done, NULL, 4);
    pthread_barrier_init(&never, NULL, 5);
    for (int t = 0; t < 3; t++)
        pthread_create(&threads[t], NULL, thread_main, (void *)(intptr_t)(t + 1));
    for (int i = 0; i < 5; i++)
        work();
    pthread_barrier_wait(&done);
    raise(SIGTERM);
    return 0;
}
