/*
 * Blocking calls under timer sampling. The C library does not restart sleep, usleep,
 * nanosleep, clock_nanosleep, thrd_sleep, poll, ppoll, select, pselect, epoll_wait,
 * epoll_pwait2, sigtimedwait, sem_timedwait, msgrcv, semop and their kin after a signal
 * handler ran, SA_RESTART or not: each sampling signal would end them early (EINTR, or a
 * sleep that returns the time left). These wrappers keep the sampling signal blocked
 * while the call waits, and when it returns, take the sample that the signal would have
 * taken, at the call's path: the caller's frames with the called function below them,
 * weighing the whole time since the previous sample (hp_sampling_release). Every other
 * signal interrupts the call as before, with the same result and errno. When the program
 * has blocked the sampling signal itself, nothing is sampled at the call: the signal
 * stays pending for the program to unblock. thrd_sleep and sigwait are wrapped although
 * they only wait in other calls: the C library makes those through internal names.
 *
 * A thread that is not being sampled (no location, sampling off or not started yet, as
 * in mpiexec under hp-run) pays one thread-local load and a test. Calls that do not wait
 * (a zero time-out) are not held. MPI libraries that wait in these calls reach them
 * through their PLT, so their waits are held too (samples inside MPI are ignored).
 *
 * Calls that install a signal mask of their own (ppoll, pselect, epoll_pwait,
 * sigsuspend, epoll_pwait2) get it with the sampling signal added; calls that wait for
 * signals (sigtimedwait, sigwaitinfo, sigwait) never wait for the sampling signal in a
 * sampled thread, held or not. One greppable function per call.
 */
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "measurement/core/location.h"
#include "measurement/sampling/sampling.h"
#include "util/compiler.h"
#include "util/next_symbol.h"

/* glibc's _FORTIFY_SOURCE versions of poll and ppoll, and its report of a failed check
 * (no public declarations). */
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                const sigset_t *mask, size_t fdslen);
void __chk_fail(void) __attribute__((noreturn));

#define BLOCKING_CALLS(X)                                                                  \
    X(sleep) X(usleep) X(nanosleep) X(clock_nanosleep) X(poll) X(ppoll) X(select)          \
    X(pselect) X(epoll_wait) X(epoll_pwait) X(epoll_pwait2) X(thrd_sleep)                 \
    X(sigtimedwait) X(sigwaitinfo) X(sigwait) X(sigsuspend) X(pause) X(sem_timedwait)      \
    X(sem_clockwait) X(msgrcv) X(msgsnd) X(semop) X(semtimedop)

enum {
#define CALL_ID(name) CALL_##name,
    BLOCKING_CALLS(CALL_ID)
#undef CALL_ID
    CALLS
};

static const char *const call_names[CALLS] = {
#define CALL_NAME(name) #name,
    BLOCKING_CALLS(CALL_NAME)
#undef CALL_NAME
};

static void *next_of[CALLS];

/* The C library's definitions, looked up when the library is loaded: a first call from a
 * signal handler must not run dlsym (it takes the loader's lock). */
__attribute__((constructor)) static void look_up_calls(void)
{
    for (int i = 0; i < CALLS; i++)
        hp_next_symbol(&next_of[i], call_names[i], NULL);
}

/* The C library's definition of the wrapped call `name`, as a pointer of its type. */
#define NEXT(name) ((__typeof__(&name))hp_next_symbol(&next_of[CALL_##name], #name, NULL))

/* ---- the shared steps ------------------------------------------------------------------ */

typedef struct held {
    hp_location *loc;
    hp_sampling_hold hold;
    volatile uintptr_t mark; /* in the wrapper's frame while the call runs (sampling.h) */
} held;

/* Before a call that may wait: blocks the sampling signal when the thread is sampled. */
static inline void hold(held *h)
{
    hp_location *loc = hp__tls_location;
    h->loc = loc;
    h->hold = HP_HOLD_NONE;
    if (unlikely(loc != NULL && loc->sampling != NULL))
        h->hold = hp_sampling_hold_signal(loc, &h->mark);
}

/* True when the calling thread is sampled. Holding costs three system calls, so in a
 * sampled thread the calls that can check without waiting (poll and epoll with a zero
 * time-out, sem_trywait) check first, and hold only when they are going to wait: a
 * ready descriptor or semaphore costs what it costs unmeasured. */
static inline bool sampled(void)
{
    hp_location *loc = hp__tls_location;
    return unlikely(loc != NULL && loc->sampling != NULL);
}

/* Calls that do not wait (poll, select and usleep with a zero time-out) are not held,
 * but the kernel still fails them with EINTR when a signal is pending as they look (the
 * sampling signal is, for a microsecond in every interval). Such a call is made again
 * when the sampling signal came meanwhile: the program then sees what it sees when any
 * signal arrives just before the call (its own signals' handlers have run either way),
 * and never an EINTR that the plain run cannot give. The sampling signal comes at most
 * once an interval, so the loop ends. */
static inline uint64_t signals_seen(void)
{
    return hp_sampling_signals(hp__tls_location);
}

static inline bool interrupted_by_sample(int rc, uint64_t seen)
{
    return rc < 0 && errno == EINTR && signals_seen() != seen;
}

/* A call that does not wait: nothing to hold. */
static inline held no_hold(void)
{
    return (held){ NULL, HP_HOLD_NONE, 0 };
}

/* After the call to next: the held sample, and the signal unblocked. Keeps errno. */
static inline void release(held h, void *next)
{
    if (unlikely(h.hold != HP_HOLD_NONE))
        hp_sampling_release(h.loc, h.hold, (uintptr_t)next);
}

/* The mask a call installs while it waits: the program's with the sampling signal added
 * when held (NULL: the thread's mask, which holds it already). */
static const sigset_t *with_signal(held h, const sigset_t *mask, sigset_t *copy)
{
    if (h.hold == HP_HOLD_NONE || mask == NULL)
        return mask;
    *copy = *mask;
    hp_sampling_add_signal(copy);
    return copy;
}

/* The signals a call waits for: the program's without the sampling signal, in a sampled
 * thread, held or not: a zero time-out, or a thread that blocks every signal itself,
 * would otherwise be handed the signal pending for the sampler. */
static const sigset_t *without_signal(const sigset_t *set, sigset_t *copy)
{
    if (!sampled() || set == NULL)
        return set;
    *copy = *set;
    hp_sampling_remove_signal(copy);
    return copy;
}

static const struct timespec zero;

/* sem_trywait, keeping errno when the semaphore is not free. */
static bool try_semaphore(sem_t *sem)
{
    int saved = errno;
    if (sem_trywait(sem) == 0)
        return true;
    errno = saved;
    return false;
}

static bool zero_timespec(const struct timespec *t)
{
    return t != NULL && t->tv_sec == 0 && t->tv_nsec == 0;
}

/* ---- the calls --------------------------------------------------------------------------- */

HP_API unsigned int sleep(unsigned int seconds)
{
    __typeof__(&sleep) next = NEXT(sleep);
    held h = no_hold();
    if (seconds != 0)
        hold(&h);
    unsigned int left = next(seconds);
    release(h, next);
    return left;
}

HP_API int usleep(useconds_t usec)
{
    __typeof__(&usleep) next = NEXT(usleep);
    if (usec == 0 && sampled()) { /* a yield: nothing to hold */
        int rc;
        uint64_t seen;
        do {
            seen = signals_seen();
            rc = next(0);
        } while (interrupted_by_sample(rc, seen));
        return rc;
    }
    held h;
    hold(&h);
    int rc = next(usec);
    release(h, next);
    return rc;
}

HP_API int nanosleep(const struct timespec *req, struct timespec *rem)
{
    __typeof__(&nanosleep) next = NEXT(nanosleep);
    held h;
    hold(&h);
    int rc = next(req, rem);
    release(h, next);
    return rc;
}

HP_API int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
                           struct timespec *rem)
{
    __typeof__(&clock_nanosleep) next = NEXT(clock_nanosleep);
    held h;
    hold(&h);
    int rc = next(clock, flags, req, rem);
    release(h, next);
    return rc;
}

/* The C library's thrd_sleep calls its internal clock_nanosleep, not ours. */
HP_API int thrd_sleep(const struct timespec *duration, struct timespec *remaining)
{
    __typeof__(&thrd_sleep) next = NEXT(thrd_sleep);
    held h;
    hold(&h);
    int rc = next(duration, remaining);
    release(h, next);
    return rc;
}

HP_API int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
    __typeof__(&poll) next = NEXT(poll);
    if (likely(!sampled()))
        return next(fds, nfds, timeout);
    int rc;
    uint64_t seen;
    do { /* ready already, or a zero time-out: nothing to hold */
        seen = signals_seen();
        rc = next(fds, nfds, 0);
    } while (interrupted_by_sample(rc, seen));
    if (rc != 0 || timeout == 0)
        return rc;
    held h;
    hold(&h);
    rc = next(fds, nfds, timeout);
    release(h, next);
    return rc;
}

/* _FORTIFY_SOURCE's poll: the C library's check, then poll (ours). */
HP_API int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen)
{
    if (fdslen / sizeof(*fds) < nfds)
        __chk_fail();
    return poll(fds, nfds, timeout);
}

HP_API int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                 const sigset_t *mask)
{
    __typeof__(&ppoll) next = NEXT(ppoll);
    if (likely(!sampled()))
        return next(fds, nfds, timeout, mask);
    int rc;
    uint64_t seen;
    do { /* ready already, or a zero time-out: nothing to hold */
        seen = signals_seen();
        rc = next(fds, nfds, &zero, mask);
    } while (interrupted_by_sample(rc, seen));
    if (rc != 0 || zero_timespec(timeout))
        return rc;
    held h;
    hold(&h);
    sigset_t copy;
    rc = next(fds, nfds, timeout, with_signal(h, mask, &copy));
    release(h, next);
    return rc;
}

HP_API int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                       const sigset_t *mask, size_t fdslen)
{
    if (fdslen / sizeof(*fds) < nfds)
        __chk_fail();
    return ppoll(fds, nfds, timeout, mask);
}

HP_API int select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
                  struct timeval *timeout)
{
    __typeof__(&select) next = NEXT(select);
    if (likely(!sampled()))
        return next(nfds, readfds, writefds, exceptfds, timeout);
    int rc;
    if (timeout != NULL && timeout->tv_sec == 0 && timeout->tv_usec == 0) {
        uint64_t seen; /* the sets are left as they were when it fails */
        do {
            seen = signals_seen();
            rc = next(nfds, readfds, writefds, exceptfds, timeout);
        } while (interrupted_by_sample(rc, seen));
        return rc;
    }
    held h;
    hold(&h);
    rc = next(nfds, readfds, writefds, exceptfds, timeout);
    release(h, next);
    return rc;
}

HP_API int pselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
                   const struct timespec *timeout, const sigset_t *mask)
{
    __typeof__(&pselect) next = NEXT(pselect);
    if (likely(!sampled()))
        return next(nfds, readfds, writefds, exceptfds, timeout, mask);
    int rc;
    if (zero_timespec(timeout)) {
        uint64_t seen; /* the sets are left as they were when it fails */
        do {
            seen = signals_seen();
            rc = next(nfds, readfds, writefds, exceptfds, timeout, mask);
        } while (interrupted_by_sample(rc, seen));
        return rc;
    }
    held h;
    hold(&h);
    sigset_t copy;
    rc = next(nfds, readfds, writefds, exceptfds, timeout, with_signal(h, mask, &copy));
    release(h, next);
    return rc;
}

HP_API int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
    __typeof__(&epoll_wait) next = NEXT(epoll_wait);
    held h = no_hold();
    if (timeout != 0 && sampled()) {
        int ready = next(epfd, events, maxevents, 0);
        if (ready != 0)
            return ready;
        hold(&h);
    }
    int rc = next(epfd, events, maxevents, timeout);
    release(h, next);
    return rc;
}

HP_API int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
                       const sigset_t *mask)
{
    __typeof__(&epoll_pwait) next = NEXT(epoll_pwait);
    held h = no_hold();
    if (timeout != 0 && sampled()) {
        int ready = next(epfd, events, maxevents, 0, mask);
        if (ready != 0)
            return ready;
        hold(&h);
    }
    sigset_t copy;
    int rc = next(epfd, events, maxevents, timeout, with_signal(h, mask, &copy));
    release(h, next);
    return rc;
}

HP_API int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents,
                        const struct timespec *timeout, const sigset_t *mask)
{
    __typeof__(&epoll_pwait2) next = NEXT(epoll_pwait2);
    held h = no_hold();
    if (!zero_timespec(timeout) && sampled()) {
        int ready = next(epfd, events, maxevents, &zero, mask);
        if (ready != 0)
            return ready;
        hold(&h);
    }
    sigset_t copy;
    int rc = next(epfd, events, maxevents, timeout, with_signal(h, mask, &copy));
    release(h, next);
    return rc;
}

HP_API int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
    __typeof__(&sigtimedwait) next = NEXT(sigtimedwait);
    held h = no_hold();
    if (!zero_timespec(timeout))
        hold(&h);
    sigset_t copy;
    int rc = next(without_signal(set, &copy), info, timeout);
    release(h, next);
    return rc;
}

HP_API int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
    __typeof__(&sigwaitinfo) next = NEXT(sigwaitinfo);
    held h;
    hold(&h);
    sigset_t copy;
    int rc = next(without_signal(set, &copy), info);
    release(h, next);
    return rc;
}

/* The C library's sigwait calls its internal sigtimedwait, not ours (and retries after
 * EINTR itself): without this, sigwait on a full set returns the sampling signal. */
HP_API int sigwait(const sigset_t *set, int *sig)
{
    __typeof__(&sigwait) next = NEXT(sigwait);
    held h;
    hold(&h);
    sigset_t copy;
    int rc = next(without_signal(set, &copy), sig);
    release(h, next);
    return rc;
}

HP_API int sigsuspend(const sigset_t *mask)
{
    __typeof__(&sigsuspend) next = NEXT(sigsuspend);
    held h;
    hold(&h);
    sigset_t copy;
    int rc = next(with_signal(h, mask, &copy));
    release(h, next);
    return rc;
}

HP_API int pause(void)
{
    __typeof__(&pause) next = NEXT(pause);
    held h; /* a blocked signal does not end pause */
    hold(&h);
    int rc = next();
    release(h, next);
    return rc;
}

HP_API int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
    __typeof__(&sem_timedwait) next = NEXT(sem_timedwait);
    if (sampled() && try_semaphore(sem))
        return 0;
    held h;
    hold(&h);
    int rc = next(sem, abstime);
    release(h, next);
    return rc;
}

HP_API int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime)
{
    __typeof__(&sem_clockwait) next = NEXT(sem_clockwait);
    if (sampled() && try_semaphore(sem))
        return 0;
    held h;
    hold(&h);
    int rc = next(sem, clock, abstime);
    release(h, next);
    return rc;
}

/* System V IPC: held unless told not to wait (IPC_NOWAIT). */
HP_API ssize_t msgrcv(int id, void *msg, size_t size, long type, int flags)
{
    __typeof__(&msgrcv) next = NEXT(msgrcv);
    held h = no_hold();
    if (!(flags & IPC_NOWAIT))
        hold(&h);
    ssize_t rc = next(id, msg, size, type, flags);
    release(h, next);
    return rc;
}

HP_API int msgsnd(int id, const void *msg, size_t size, int flags)
{
    __typeof__(&msgsnd) next = NEXT(msgsnd);
    held h = no_hold();
    if (!(flags & IPC_NOWAIT))
        hold(&h);
    int rc = next(id, msg, size, flags);
    release(h, next);
    return rc;
}

/* True when some operation of a semop may wait. */
static bool may_wait(const struct sembuf *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(ops[i].sem_flg & IPC_NOWAIT))
            return true;
    return false;
}

HP_API int semop(int id, struct sembuf *ops, size_t n)
{
    __typeof__(&semop) next = NEXT(semop);
    held h = no_hold();
    if (may_wait(ops, n))
        hold(&h);
    int rc = next(id, ops, n);
    release(h, next);
    return rc;
}

HP_API int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *timeout)
{
    __typeof__(&semtimedop) next = NEXT(semtimedop);
    held h = no_hold();
    if (!zero_timespec(timeout) && may_wait(ops, n))
        hold(&h);
    int rc = next(id, ops, n, timeout);
    release(h, next);
    return rc;
}
