/* A known tree for HP_SELECT_SUBTREES and HP_EXCLUDE_SUBTREES (t080-subtrees.sh): `subtrees [MS]`
 *   main: setup (helper x3), solve x2 (step x5 each, helper once per step),
 *         io (helper x2, spin for MS milliseconds, default 0)
 *   a thread: worker, solve (step x5, helper x5)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

__attribute__((noinline)) void helper(int i) { sink += i; }

__attribute__((noinline)) void step(int i) { helper(i); }

__attribute__((noinline)) void solve(void)
{
    for (int i = 0; i < 5; i++)
        step(i);
}

__attribute__((noinline)) void setup(void)
{
    for (int i = 0; i < 3; i++)
        helper(i);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void spin(long ms)
{
    double end = now() + ms / 1000.0;
    while (now() < end)
        sink++;
}

__attribute__((noinline)) void io(long ms)
{
    helper(1);
    helper(2);
    spin(ms);
}

__attribute__((noinline)) void *worker(void *arg)
{
    (void)arg;
    solve();
    return NULL;
}

int main(int argc, char **argv)
{
    long ms = argc > 1 ? atol(argv[1]) : 0;
    setup();
    solve();
    solve();
    io(ms);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    pthread_join(t, NULL);
    printf("done\n");
    return 0;
}
