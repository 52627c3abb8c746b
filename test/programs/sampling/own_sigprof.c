/*
 * A program that profiles itself with SIGPROF: it first resets SIGPROF to its default
 * action (which terminates), then counts its own ITIMER_PROF ticks at 100 Hz over 0.3 s
 * of CPU time (about 30). Sampling must neither kill it nor send it extra SIGPROFs.
 * With the argument "rt" it then takes the real-time signal sampling uses (SIGRTMIN+6)
 * for itself and starts a thread: hpmeasure must say that it lost its handler.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t ticks;
static volatile double sink;

static void on_prof(int sig)
{
    (void)sig;
    ticks++;
}

static void *nothing(void *arg)
{
    return arg;
}

int main(int argc, char **argv)
{
    signal(SIGPROF, SIG_DFL);
    signal(SIGPROF, on_prof);
    struct itimerval every_10ms = { { 0, 10000 }, { 0, 10000 } };
    setitimer(ITIMER_PROF, &every_10ms, NULL);
    clock_t end = clock() + CLOCKS_PER_SEC * 3 / 10;
    double x = 0;
    while (clock() < end)
        for (int i = 0; i < 1000; i++)
            x += i * 0.5;
    sink = x;
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &off, NULL);
    printf("ticks %s\n", ticks >= 10 && ticks <= 60 ? "about 30" : "wrong");
    if (argc > 1 && strcmp(argv[1], "rt") == 0) {
        signal(SIGRTMIN + 6, SIG_IGN);
        pthread_t t;
        pthread_create(&t, NULL, nothing, NULL);
        pthread_join(t, NULL);
    }
    return 0;
}
