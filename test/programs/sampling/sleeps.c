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
 *   pool     a thread that blocks every signal (a thread pool's habit) runs 5 x (0.1 s
 *            of pool_compute, 2 ms of pool_nap), then sigtimedwait on every signal with
 *            a zero time-out for 0.1 s: it is never given SIGRTMIN+6 ("pool ours=0")
 *   more     calls the C library makes through its internal functions, and System V
 *            IPC: thrd_sleep 0.2 s, epoll_pwait2 with a 0.2 s time-out, semtimedop
 *            0.2 s (EAGAIN), msgrcv of a message a helper thread sends after 0.2 s, and
 *            sigwait on every signal (blocked) for setitimer's SIGALRM after 0.2 s
 *   jump     a SIGALRM handler longjmps out of a 1 s nanosleep after 0.1 s; a 10 ms
 *            nanosleep one call deeper follows: the sampling signal is no longer blocked
 *            after it ("jump blocked=0"), and 0.2 s of jump_compute follow (the line
 *            ends with the time jump_compute took)
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
#include <setjmp.h>
#include <sys/epoll.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/time.h>
#include <threads.h>
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

static volatile double sink;

static void spin(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        sink += 1;
}

__attribute__((noinline)) static void pool_compute(void)
{
    spin(0.1);
}

__attribute__((noinline)) static void pool_nap(void)
{
    struct timespec t = { 0, 2000000 };
    nanosleep(&t, NULL);
}

static void *pool_worker(void *unused)
{
    (void)unused;
    for (int i = 0; i < 5; i++) {
        pool_compute();
        pool_nap();
    }
    sigset_t all;
    sigfillset(&all);
    struct timespec zero = { 0, 0 };
    int ours = 0;
    double t0 = now();
    while (now() - t0 < 0.1)
        ours += sigtimedwait(&all, NULL, &zero) == SIGRTMIN + 6;
    return (void *)(long)ours;
}

static void run_pool(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* the new thread inherits it */
    pthread_t worker;
    double t0 = now();
    pthread_create(&worker, NULL, pool_worker, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    void *ours;
    pthread_join(worker, &ours);
    printf("pool ours=%ld %.3f\n", (long)ours, now() - t0);
}

struct message {
    long type;
    char text[4];
};

static void *send_message(void *queue)
{
    struct timespec t = { 0, 200000000 };
    nanosleep(&t, NULL);
    struct message m = { 1, "abc" };
    msgsnd(*(int *)queue, &m, sizeof(m.text), 0);
    return NULL;
}

/* sigwait on every signal, all blocked, for a SIGALRM 0.2 s from now. */
static int wait_alarm(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    struct itimerval at = { { 0, 0 }, { 0, 200000 } };
    setitimer(ITIMER_REAL, &at, NULL);
    int sig = 0;
    sigwait(&all, &sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return sig;
}

static void run_more(void)
{
    double t0 = now();
    struct timespec t = { 0, 200000000 };
    int slept = thrd_sleep(&t, NULL);
    int ep = epoll_create1(0);
    struct epoll_event ev;
    int polled = epoll_pwait2(ep, &ev, 1, &t, NULL);
    int sem = semget(IPC_PRIVATE, 1, 0600);
    struct sembuf down = { 0, -1, 0 };
    int semrc = semtimedop(sem, &down, 1, &t);
    const char *semerr = semrc < 0 ? strerror(errno) : "";
    semctl(sem, 0, IPC_RMID);
    int queue = msgget(IPC_PRIVATE, 0600);
    pthread_t sender;
    pthread_create(&sender, NULL, send_message, &queue);
    struct message m;
    ssize_t got_bytes = msgrcv(queue, &m, sizeof(m.text), 0, 0);
    pthread_join(sender, NULL);
    msgctl(queue, IPC_RMID, NULL);
    int sig = wait_alarm();
    printf("more thrd_sleep=%d epoll_pwait2=%d semtimedop=%d %s msgrcv=%zd sigwait=%s %.3f\n",
           slept, polled, semrc, semerr, got_bytes,
           sig == SIGALRM ? "SIGALRM" : sig == SIGRTMIN + 6 ? "SIGRTMIN+6" : "other",
           now() - t0);
}

static jmp_buf jumped;

static void jump_out(int sig)
{
    (void)sig;
    longjmp(jumped, 1); /* not siglongjmp: the mask stays as the handler found it */
}

/* A nap one call deeper than the nanosleep left, over its frame. */
__attribute__((noinline)) static void jump_nap(void)
{
    volatile char cover[4096];
    for (size_t i = 0; i < sizeof(cover); i++)
        cover[i] = 0;
    struct timespec t = { 0, 10000000 };
    nanosleep(&t, NULL);
}

__attribute__((noinline)) static void jump_compute(void)
{
    spin(0.2);
}

static void run_jump(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = jump_out;
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGALRM, &sa, NULL);
    if (setjmp(jumped) == 0) {
        struct itimerval at = { { 0, 0 }, { 0, 100000 } };
        setitimer(ITIMER_REAL, &at, NULL);
        struct timespec t = { 1, 0 };
        nanosleep(&t, NULL);
    }
    jump_nap();
    sigset_t mask;
    pthread_sigmask(SIG_SETMASK, NULL, &mask);
    int blocked = sigismember(&mask, SIGRTMIN + 6);
    double c0 = now();
    jump_compute();
    printf("jump blocked=%d %.3f\n", blocked, now() - c0);
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
        else if (strcmp(argv[i], "pool") == 0)
            run_pool();
        else if (strcmp(argv[i], "more") == 0)
            run_more();
        else if (strcmp(argv[i], "jump") == 0)
            run_jump();
        else {
            fprintf(stderr, "usage: sleeps [nap|timeouts|abstime|waits|zero|signals|pool|more|jump]...\n");
            return 2;
        }
    }
    return 0;
}
