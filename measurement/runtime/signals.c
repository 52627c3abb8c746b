/*
 * Signals that end or snapshot the measurement.
 *
 * At start-up we install one handler for each signal of HP_FINALIZE_SIGNALS whose
 * disposition is still SIG_DFL (one inherited as SIG_IGN, e.g. SIGINT of a background
 * job, or taken by another library earlier stays as it is), and for HP_DUMP_SIGNAL. The
 * program's later calls of signal() and sigaction() for such a signal go through the
 * wrappers below: they record the program's handler (and report it back as the old
 * action) while ours stays installed, so that our write happens first and the program's
 * handler runs after it, with its own mask and flags. SIG_IGN from the program is
 * honoured at once: the signal is then no longer ours.
 *
 * The handler writes files, which is not async-signal-safe. What makes it acceptable:
 * hp_runtime_stop() first marks every location stopped (the flag the hooks check
 * already), so no thread changes measurement state while we build and write; it waits
 * for threads that are inside the core to leave it. The measured program itself may be
 * interrupted anywhere, including inside malloc; that risk is documented
 * (doc/signals.md). Re-entry: one writer at a time (the `writing` flag). A finalize
 * signal arriving while someone writes (the normal end of the run, a snapshot, or another
 * signal's write) is remembered and takes effect when that write is complete.
 *
 * After the write the program's handler runs, or the default action: our handler is
 * removed, the signal unblocked and raised again, so the process ends "killed by
 * SIGTERM" exactly as it would have without us (exit status, core for SIGXCPU).
 */
#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measurement/core/config.h"
#include "measurement/finalize/experiment.h"
#include "measurement/core/job.h"
#include "measurement/core/signal_names.h"
#include "measurement/core/timer.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/nap.h"
#include "util/sigaction_real.h"

/* MPI_GRACE_MS: how long a signalled rank waits for the other ranks' profiles before the
 * default action ends it (see hp_experiment_wait_for_ranks). */
enum { MAX_SIGNAL = 65, HOLD_WAIT_MS = 30000, MPI_GRACE_MS = 2000 };

HP_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
HP_API void (*signal(int sig, void (*handler)(int)))(int);

static hp_signal_actions measurement; /* from hp_signals_install */
static hp_signal_set finalize_set; /* signals that end the measurement */
static int dump_signal;            /* 0 = none */
static _Atomic hp_signal_set owned; /* signals whose kernel handler is ours */
/* What the program asked for, per owned signal (SIG_DFL until it installs a handler). */
static struct sigaction program_action[MAX_SIGNAL];
static _Atomic int writing; /* 1 while one thread writes (signal or normal end) */
static _Atomic int pending; /* a finalize signal that arrived while writing, or 0 */
static _Atomic int snapshots;
static uint64_t start_ns;

static bool is_owned(int sig)
{
    return hp_signal_set_has(atomic_load(&owned), sig);
}

static void disown(int sig)
{
    atomic_fetch_and(&owned, ~hp_signal_bit(sig));
}

static void describe(int sig, char *out, size_t size)
{
    const char *name = hp_signal_name(sig);
    uint64_t ms = (hp_timer_monotonic_ns() - start_ns) / 1000000;
    /* the safe formatter: this runs in a signal handler */
    hp_log_snprintf_safe(out, size, "interrupted by signal %d (%s%s) at %llu.%03llu s", sig,
                         name != NULL ? "SIG" : "real-time", name != NULL ? name : "",
                         (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000));
}

/* The program's view of sig now: runs its handler (with its mask and flags), or the
 * default action. Returns only when the program continues. */
static void run_program_action(int sig, siginfo_t *info, void *context)
{
    struct sigaction pa = program_action[sig];
    if (pa.sa_handler == SIG_IGN)
        return;
    if (pa.sa_handler == SIG_DFL) {
        if (sig == dump_signal)
            return; /* a snapshot request is not meant to end the program */
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        sigemptyset(&dfl.sa_mask);
        disown(sig);
        __sigaction(sig, &dfl, NULL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        raise(sig); /* ends the process unless the default is to ignore it */
        return;
    }
    if (pa.sa_flags & SA_RESETHAND)
        program_action[sig].sa_handler = SIG_DFL;
    sigset_t saved;
    pthread_sigmask(SIG_BLOCK, &pa.sa_mask, &saved);
    if (pa.sa_flags & SA_SIGINFO)
        pa.sa_sigaction(sig, info, context);
    else
        pa.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* Lets the next writer in and passes on a finalize signal that arrived during the write.
 * In a snapshot's handler this thread blocks the finalize signals, so the signal is sent
 * to the whole process: it reaches a thread that does not block it at once (or this one
 * when its handler returns), and the run ends as soon as the snapshot is written. At the
 * normal end it goes to this thread, which takes it before exit() goes on. */
static void end_write(bool in_handler)
{
    atomic_store(&writing, 0);
    int sig = atomic_exchange(&pending, 0);
    if (sig != 0 && in_handler)
        kill(getpid(), sig);
    else if (sig != 0)
        raise(sig); /* measurement has ended: the handler only runs the program's action */
}

/* Writes everything measured so far and ends the measurement. Returns false when another
 * write is running: the signal is then left pending for it. */
static bool finalize_for(int sig)
{
    while (atomic_exchange(&writing, 1)) {
        atomic_store(&pending, sig);
        /* The writer looks at pending after it lets go of writing (end_write): while it
         * still writes, it will see the signal. When it let go before we stored it, the
         * signal is ours to act on, unless the writer took it from pending already. */
        if (atomic_load(&writing) || atomic_exchange(&pending, 0) == 0)
            return false;
    }
    if (measurement.will_write()) {
        char text[128];
        describe(sig, text, sizeof(text));
        hp_log_safe(HP_LOG_WARN, "%s: writing the measurement so far", text);
        hp_experiment_set_interrupted(text);
        measurement.finalize();
        if (hp_job_mpi_active() && program_action[sig].sa_handler == SIG_DFL)
            hp_experiment_wait_for_ranks(hp_job_size(), MPI_GRACE_MS);
    }
    end_write(true);
    return true;
}

static void take_snapshot(void)
{
    if (atomic_exchange(&writing, 1))
        return; /* the run is being written anyway */
    if (measurement.will_write())
        hp_experiment_snapshot(atomic_fetch_add(&snapshots, 1) + 1);
    end_write(true);
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    if (sig == dump_signal)
        take_snapshot();
    else if (!finalize_for(sig))
        goto out;
    run_program_action(sig, info, context);
out:
    errno = saved_errno;
}

/* Takes sig when nobody else has: its disposition is still the default. */
static void take(int sig)
{
    struct sigaction current;
    if (__sigaction(sig, NULL, &current) < 0 || current.sa_handler != SIG_DFL ||
        (current.sa_flags & SA_SIGINFO))
        return;
    struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
    /* While we write, the other finalize signals wait (they would only be remembered). */
    sigemptyset(&sa.sa_mask);
    for (int s = 1; s < MAX_SIGNAL; s++)
        if (hp_signal_set_has(finalize_set, s))
            sigaddset(&sa.sa_mask, s);
    program_action[sig] = current;
    atomic_fetch_or(&owned, hp_signal_bit(sig));
    if (__sigaction(sig, &sa, NULL) < 0)
        disown(sig);
}

void hp_signals_install(const hp_signal_actions *actions)
{
    measurement = *actions;
    char why[128];
    hp_signal_set dump = 0;
    start_ns = hp_timer_monotonic_ns();
    /* Validated with the configuration already; parsing cannot fail here. */
    if (hp_signal_parse_list(hp_cfg.finalize_signals, &finalize_set, why, sizeof(why)) < 0 ||
        hp_signal_parse_list(hp_cfg.dump_signal, &dump, why, sizeof(why)) < 0)
        return;
    for (int s = 1; s < MAX_SIGNAL && dump != 0; s++)
        if (hp_signal_set_has(dump, s))
            dump_signal = s;
    finalize_set &= ~dump; /* a signal named in both only snapshots */
    for (int s = 1; s < MAX_SIGNAL; s++)
        if (hp_signal_set_has(finalize_set | dump, s))
            take(s);
}

void hp_signals_hold(void)
{
    /* Another thread writing for a signal: wait until it is done (it then ends the
     * process or lets it continue), but never forever. */
    for (int ms = 0; atomic_exchange(&writing, 1) && ms < HOLD_WAIT_MS; ms++) {
        hp_nap(1000000);
    }
}

void hp_signals_release(void)
{
    end_write(false);
}

/* ------------------------------------------------------------------ the wrappers */

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!is_owned(sig))
        return __sigaction(sig, act, old);
    if (act != NULL && act->sa_handler == SIG_IGN && !(act->sa_flags & SA_SIGINFO)) {
        /* The program ignores it from now on: give the signal back. */
        struct sigaction previous = program_action[sig];
        disown(sig);
        if (__sigaction(sig, act, NULL) < 0)
            return -1;
        if (old != NULL)
            *old = previous;
        return 0;
    }
    /* Keep ours in place; block sig meanwhile so our handler never sees half an update. */
    sigset_t block, saved;
    sigemptyset(&block);
    sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    if (old != NULL)
        *old = program_action[sig];
    if (act != NULL)
        program_action[sig] = *act;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    return 0;
}

/* glibc's signal(): BSD semantics (SA_RESTART, the signal blocked in its handler). */
void (*signal(int sig, void (*handler)(int)))(int)
{
    struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART }, old;
    sigemptyset(&sa.sa_mask);
    if (sig > 0 && sig < NSIG)
        sigaddset(&sa.sa_mask, sig);
    if (sigaction(sig, &sa, &old) < 0)
        return SIG_ERR;
    return old.sa_handler;
}
