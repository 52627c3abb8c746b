/* A run cut short by a signal, with known visit counts at signal time: main calls work()
 * 10 times (each calls leaf() once), then deep() recurses 20 levels and calls leaf() 5
 * times at the bottom, then the signal comes. Usage:
 *   signals SIGNAL raise|wait [handler]
 * raise: the program raises SIGNAL itself; wait: it writes "ready" to ./ready and waits
 * for the test to send it. handler: the program installs its own handler first (it
 * prints "program handler ran: N" and exits with status 42). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void leaf(void) { sink++; }
__attribute__((noinline)) void work(void) { leaf(); }

static void on_signal(int sig)
{
    char line[64];
    int n = snprintf(line, sizeof(line), "program handler ran: %d\n", sig);
    write(STDOUT_FILENO, line, (size_t)n);
    _exit(42);
}

__attribute__((noinline)) void bottom(int sig, int wait_for_it)
{
    for (int i = 0; i < 5; i++)
        leaf();
    if (!wait_for_it) {
        raise(sig);
        return;
    }
    FILE *f = fopen("ready", "w");
    fputs("ready\n", f);
    fclose(f);
    for (;;)
        pause();
}

__attribute__((noinline)) void deep(int n, int sig, int wait_for_it)
{
    if (n > 1)
        deep(n - 1, sig, wait_for_it);
    else
        bottom(sig, wait_for_it);
    sink++; /* no tail call */
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int sig = atoi(argv[1]);
    if (argc > 3 && strcmp(argv[3], "handler") == 0) {
        struct sigaction sa = { .sa_handler = on_signal };
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
    for (int i = 0; i < 10; i++)
        work();
    deep(20, sig, strcmp(argv[2], "wait") == 0);
    printf("not reached\n");
    return 0;
}
