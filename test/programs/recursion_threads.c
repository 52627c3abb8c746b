/* Recursion depth per thread for HP_PROFILING_RECURSION=collapse (t081-recursion.sh):
 * three threads, one after another, run dive(300), dive(700) and dive(20); the second
 * leaves from the bottom of its recursion with pthread_exit, so its 701 calls never
 * return. dive(n) is n + 1 calls, n of them recursive: depths 300, 700 and 20. */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) long dive(long n, int quit)
{
    sink += n;
    if (n == 0) {
        if (quit)
            pthread_exit(NULL);
        return 0;
    }
    return 1 + dive(n - 1, quit);
}

__attribute__((noinline)) void *run(void *arg)
{
    long n = (long)arg;
    dive(n > 0 ? n : -n, n < 0);
    return NULL;
}

int main(void)
{
    static const long depths[] = { 300, -700, 20 }; /* negative: leave with pthread_exit */
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, run, (void *)depths[i]) != 0)
            return 1;
        pthread_join(t, NULL);
    }
    printf("%ld\n", sink);
    return 0;
}
