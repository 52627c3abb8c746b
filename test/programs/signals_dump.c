/* A threaded program to snapshot and end by signals: THREADS threads call work() in a
 * loop (pausing a millisecond between calls) while the master writes its pid to ./pid
 * and sleeps; after SECONDS it stops the threads and ends normally (status 0). A
 * signal that ends the program (SIGTERM) must therefore end it long before that.
 * Usage: signals_dump THREADS SECONDS */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;
static atomic_int stop;

__attribute__((noinline)) void work(void) { sink++; }

static void *thread_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        work();
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int n = atoi(argv[1]);
    pthread_t threads[64];
    if (n < 1 || n > 64)
        return 2;
    for (int t = 0; t < n; t++)
        pthread_create(&threads[t], NULL, thread_main, NULL);
    FILE *f = fopen("pid.tmp", "w");
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    rename("pid.tmp", "pid"); /* complete when it appears */
    struct timespec rest = { atoi(argv[2]), 0 };
    while (nanosleep(&rest, &rest) != 0)
        ; /* a snapshot signal interrupts the sleep: sleep the rest */
    atomic_store(&stop, 1);
    for (int t = 0; t < n; t++)
        pthread_join(threads[t], NULL);
    return 0;
}
