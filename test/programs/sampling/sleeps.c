/*
 * Sleeps and time-outs that timer sampling must leave as they are (t054). Each mode
 * prints what the calls returned and how long they took ("<what> <seconds>"):
 *   nap      10 x nanosleep(100 ms) in nap(): 1.0 s, all below main/nap
 *   timeouts 5 x poll with a 100 ms time-out and 5 x select with a 100 ms time-out, on a
 *            pipe nobody writes: 1.0 s, each returns 0
 *   abstime  clock_nanosleep(TIMER_ABSTIME) to start + k x 100 ms, k = 1..10: 1.0 s
 *   waits    sem_timedwait and sigtimedwait, 200 ms time-outs each: ETIMEDOUT, EAGAIN;
 *            then poll, epoll_wait and sem_timedwait on a ready pipe and a posted
 *            semaphore: they return at once with it ("ready 1 POLLIN 1 0")
 *   zero     calls that do not wait (poll, ppoll and select with a zero time-out,
 *            usleep(0)) for 0.5 s on a pipe nobody writes: never EINTR ("zero eintr=0")
 *   signals  the program's own signals still interrupt: a helper thread sends SIGUSR1
 *            to the main thread 200 ms into a 2 s nanosleep (EINTR, about 1.8 s left in
 *            rem), and alarm(1) ends a sleep(3) after 1 s (it returns 2)
 * A plain build and a sampled one must print the same, up to the times.
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void nap(void)
{
    struct timespec t = { 0, 100000000 };
    if (nanosleep(&t, NULL) != 0)
        printf("nanosleep: %s\n", strerror(errno));
}

static void run_nap(void)
{
    double t0 = now();
    for (int i = 0; i < 10; i++)
        nap();
    printf("nap %.3f\n", now() - t0);
}

/* Not a constant the compiler knows: with _FORTIFY_SOURCE, poll is then __poll_chk. */
static volatile nfds_t one_descriptor = 1;

__attribute__((noinline)) static void wait_poll(int fd)
{
    struct pollfd p = { fd, POLLIN, 0 };
    int rc = poll(&p, one_descriptor, 100);
    if (rc != 0)
        printf("poll returned %d: %s\n", rc, strerror(errno));
}

__attribute__((noinline)) static void wait_select(int fd)
{
    fd_set r;
    FD_ZERO(&r);
    FD_SET(fd, &r);
    struct timeval tv = { 0, 100000 };
    int rc = select(fd + 1, &r, NULL, NULL, &tv);
    if (rc != 0)
        printf("select returned %d: %s\n", rc, strerror(errno));
}

static void run_timeouts(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return;
    double t0 = now();
    for (int i = 0; i < 5; i++)
        wait_poll(fds[0]);
    for (int i = 0; i < 5; i++)
        wait_select(fds[0]);
    printf("timeouts %.3f\n", now() - t0);
}

__attribute__((noinline)) static void wait_until(const struct timespec *at)
{
    int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, at, NULL);
    if (rc != 0)
        printf("clock_nanosleep: %s\n", strerror(rc));
}

static void run_abstime(void)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double t0 = now();
    for (long k = 1; k <= 10; k++) {
        long ns = start.tv_nsec + k * 100000000;
        struct timespec at = { start.tv_sec + ns / 1000000000, ns % 1000000000 };
        wait_until(&at);
    }
    printf("abstime %.3f\n", now() - t0);
}

/* Calls whose descriptor or semaphore is ready: no wait, the same results. */
static void run_ready(sem_t *sem)
{
    int fds[2];
    if (pipe(fds) != 0 || write(fds[1], "x", 1) != 1)
        return;
    struct pollfd p = { fds[0], POLLIN, 0 };
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN }, got;
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
    sem_post(sem);
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += 10;
    double t0 = now();
    int polled = poll(&p, 1, 10000);
    int waited = epoll_wait(ep, &got, 1, 10000);
    int taken = sem_timedwait(sem, &at);
    printf("ready %d %s %d %d %.3f\n", polled, p.revents == POLLIN ? "POLLIN" : "?", waited,
           taken, now() - t0);
}

static void run_waits(void)
{
    sem_t sem;
    sem_init(&sem, 0, 0);
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_nsec += 200000000;
    if (at.tv_nsec >= 1000000000) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000;
    }
    double t0 = now();
    int rc = sem_timedwait(&sem, &at);
    printf("sem_timedwait %d %s %.3f\n", rc, rc ? strerror(errno) : "", now() - t0);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct timespec tmo = { 0, 200000000 };
    t0 = now();
    rc = sigtimedwait(&set, NULL, &tmo);
    printf("sigtimedwait %d %s %.3f\n", rc, rc < 0 ? strerror(errno) : "", now() - t0);
    run_ready(&sem);
}

/* The kernel fails a call that does not wait with EINTR when a signal is pending as it
 * looks: the sampling signal must never show that way. */
static void run_zero(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return;
    struct pollfd p = { fds[0], POLLIN, 0 };
    struct timespec zero = { 0, 0 };
    long calls = 0, eintr = 0;
    double t0 = now();
    while (now() - t0 < 0.5) {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(fds[0], &r);
        struct timeval tv = { 0, 0 };
        eintr += poll(&p, 1, 0) < 0 && errno == EINTR;
        eintr += ppoll(&p, 1, &zero, NULL) < 0 && errno == EINTR;
        eintr += select(fds[0] + 1, &r, NULL, NULL, &tv) < 0 && errno == EINTR;
        eintr += usleep(0) < 0 && errno == EINTR;
        calls += 4;
    }
    printf("zero eintr=%ld %s\n", eintr, calls > 1000 ? "calls>1000" : "few calls");
}

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
    got = sig;
}

static void *send_usr1(void *main_thread)
{
    struct timespec t = { 0, 200000000 };
    nanosleep(&t, NULL);
    pthread_kill(*(pthread_t *)main_thread, SIGUSR1);
    return NULL;
}

static void run_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    pthread_t self = pthread_self(), helper;
    pthread_create(&helper, NULL, send_usr1, &self);
    struct timespec t = { 2, 0 }, rem = { 0, 0 };
    double t0 = now();
    int rc = nanosleep(&t, &rem);
    double took = now() - t0, left = (double)rem.tv_sec + (double)rem.tv_nsec * 1e-9;
    printf("nanosleep %d %s got=%s left_ok=%d %.3f\n", rc, rc ? strerror(errno) : "",
           got == SIGUSR1 ? "SIGUSR1" : "none", left > 1.5 && left < 1.9, took);
    pthread_join(helper, NULL);
    got = 0;
    alarm(1);
    t0 = now();
    unsigned left_s = sleep(3);
    printf("sleep %u got=%s %.3f\n", left_s, got == SIGALRM ? "SIGALRM" : "none", now() - t0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "nap") == 0)
            run_nap();
        else if (strcmp(argv[i], "timeouts") == 0)
            run_timeouts();
        else if (strcmp(argv[i], "abstime") == 0)
            run_abstime();
        else if (strcmp(argv[i], "waits") == 0)
            run_waits();
        else if (strcmp(argv[i], "zero") == 0)
            run_zero();
        else if (strcmp(argv[i], "signals") == 0)
            run_signals();
        else {
            fprintf(stderr, "usage: sleeps [nap|timeouts|abstime|waits|zero|signals]...\n");
            return 2;
        }
    }
    return 0;
}
