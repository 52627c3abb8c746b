/*
 * Hybrid call-path profiling by timer sampling (the paper "Reconciling Sampling and
 * Direct Instrumentation for Unintrusive Call-Path Profiling of MPI Programs").
 *
 * Every measured thread has a wall-clock interval timer (timer_create with
 * SIGEV_THREAD_ID, signal SIGRTMIN+6) whose signal unwinds the interrupted call stack and adds the sample to
 * the location's call tree, below the innermost instrumented region (the root when
 * nothing is instrumented). MPI calls are measured directly; when sampling is on, their
 * wrappers also unwind to learn their call path.
 *
 * Accounting (paper §II.B): a sample that lands inside MPI is ignored; every other
 * sample weighs its effective interval, the time since the previous valid sample minus
 * the MPI time measured in between. So per location, sampled time + MPI time + the
 * pseudo-region UNWIND FAILED add up to wall time, up to the part after the last sample.
 *
 * A sample that arrives while the thread is inside the core (hp_location_enter_core) is
 * counted and not unwound; its interval goes to the next valid sample when no function
 * hooks are on the stack, and is dropped (it was spent in measured regions) when some
 * are. A sample in a hooked function outside its hooks (its first instructions) stays with
 * the current region.
 */
#ifndef HP_MEASUREMENT_SAMPLING_H
#define HP_MEASUREMENT_SAMPLING_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "measurement/core/cct.h"

struct hp_location;

/* Effective interval lengths in tenths of the nominal interval: [0,10%), ..., [100,110%),
 * and the last bucket for 110% and more. */
enum { HP_SAMPLING_BUCKETS = 12 };

typedef struct hp_sampling_stats {
    uint64_t samples;      /* timer signals that reached a measured thread */
    uint64_t attributed;   /* unwound and added to the call tree */
    uint64_t in_mpi;       /* ignored: inside a measured MPI call */
    uint64_t busy;         /* counted, not unwound: the thread was inside the core, or
                              sampling was throttled */
    uint64_t throttled;    /* handlers slower than half an interval (samples skipped after) */
    uint64_t failed;       /* unwinds that failed (pseudo-region UNWIND FAILED) */
    uint64_t truncated;    /* deeper than the unwinder follows (also UNWIND FAILED) */
    uint64_t unanchored;   /* the innermost instrumented function was not on the stack
                              (inlined): the time stays with that region */
    uint64_t mpi_unwinds;  /* call paths of MPI calls learned by unwinding */
    uint64_t held;         /* signals held back by a blocking call, sampled at its end */
    uint64_t cache_hits;   /* unwind cache lookups (return address / top frame) */
    uint64_t cache_misses;
    uint64_t thunks_set;     /* HP_UNWIND_THUNKS: return addresses replaced by the thunk */
    uint64_t thunk_prefixes; /* unwinds that stopped at a thunk */
    uint64_t walked_frames;  /* frames the thunk-aware unwinds stepped through */
    uint64_t histogram[HP_SAMPLING_BUCKETS];
} hp_sampling_stats;

/* Process start-up (not signal-safe): the signal handler, the unwinder, the pseudo-region.
 * hz > 0. Returns 0, or -1 with a reason on stderr (sampling then stays off). */
int hp_sampling_setup(uint64_t hz);

/* True after a successful hp_sampling_setup. */
bool hp_sampling_enabled(void);

/* The calling thread's sampling state and timer (cold path: location creation). */
void hp_sampling_thread_start(struct hp_location *loc);

/* hp-run's preloaded library is also in mpiexec and its proxies, which never initialize
 * MPI: timers there would interrupt the launcher's polling 1000s of times a second for
 * nothing. hp_sampling_defer (start-up) keeps timers from ticking (MPI calls still unwind)
 * until hp_sampling_resume (after MPI_Init), which starts loc's (the calling thread's). */
void hp_sampling_defer(void);
void hp_sampling_resume(struct hp_location *loc);

/* Stops loc's timer; any thread may call it, more than once. */
void hp_sampling_thread_stop(struct hp_location *loc);

/* At the end of loc's thread, on that thread: stops its timer and gives back the
 * alternate signal stack, whose memory the next thread of loc takes over. */
void hp_sampling_thread_end(struct hp_location *loc);

/* For an MPI wrapper, inside the core: unwinds from here to the innermost instrumented
 * frame, adds the frames below loc->current and returns the innermost node, under which
 * the MPI region is to be entered (loc->current itself when there is nothing to add, an
 * UNWIND FAILED node when the unwind failed). */
hp_cct_node *hp_sampling_call_path(struct hp_location *loc);

/* The first enter hook of the measured function fn (region r) on loc's thread: enters it
 * below loc->current (hp_event_enter; inside the core). Until r was defined no sample
 * could tell that fn is measured (has_hooked_frame knows only defined regions): one that
 * came between fn's first instruction and this hook (the hook's lazy binding, for main)
 * added fn with a visit below the current node, or below unmeasured callers of fn there,
 * and the enter counts the same activation again. When the reference path shows that
 * and the enter was recorded, the samples' visit is taken back, so that visits are the
 * events' (a trace's enters equal the profile's visits); on the enter's own node their
 * time becomes part of the visit's measured time. */
void hp_sampling_first_enter(struct hp_location *loc, hp_region *r, uintptr_t fn);

/* The same for another runtime call (an OpenMP fork), not counted as an MPI unwind;
 * *innermost receives the start address of the innermost function of the path added
 * below loc->current, or 0 when none was added (nothing below it, a failed unwind). */
hp_cct_node *hp_sampling_unwind_path(struct hp_location *loc, uintptr_t *innermost);

/* An OpenMP fork whose path hp_sampling_unwind_path just gave (leaf): it is measured
 * from now until it returns, and its measured time goes to that path. Inside the core,
 * on loc's thread. hp_sampling_fork_begin ends the current sampling interval now, as a
 * sample at leaf would (the path below loc->current gets it), and keeps the path;
 * hp_sampling_fork_end, when the fork returns, starts the next interval, dropping the
 * time since the fork's last sample (its measured time holds it), and makes the kept
 * path the reference again, so the samples inside the region do not make the forking
 * functions count new visits. */
void hp_sampling_fork_begin(struct hp_location *loc, hp_cct_node *leaf);
void hp_sampling_fork_end(struct hp_location *loc);

/* Blocking calls (adapters/blocking/: sleep, poll, select, ...) are not interrupted by
 * the sampling signal: the C library does not restart them after a handler, SA_RESTART
 * or not, and they would return early. Around such a call, in the calling thread:
 *
 * hp_sampling_hold_signal: when loc's thread is being sampled now (its timer ticks) and
 *   is outside the core, blocks the sampling signal and says whether it was blocked
 *   already; HP_HOLD_NONE (nothing done) otherwise. mark is a word in the wrapper's
 *   frame, live until the release: when it blocks the signal, the hold writes it, and
 *   a later hold that finds the signal still blocked and that mark gone (a longjmp out
 *   of a signal handler skipped the release) takes the block for its own again.
 * hp_sampling_add_signal / hp_sampling_remove_signal: for calls that install a signal
 *   mask of their own (ppoll, pselect, sigsuspend), or wait for a set of signals
 *   (sigtimedwait: the program never waits for ours).
 * hp_sampling_release: after a call that blocked the signal (HP_HOLD_BLOCKED), takes
 *   the sampling signal if it came meanwhile and adds the sample it would have taken,
 *   weighing the whole interval since the previous one, at the call's path: the
 *   caller's frames, with callee (the called function's address) innermost; then
 *   unblocks the signal. When the program had blocked it, nothing: the signal stays
 *   pending until the program unblocks it, as without the wrapper. Keeps errno. So the time the call slept goes to it: wall-clock time. A
 *   signal that arrives as the mask changes finds the thread inside the core: it is not
 *   unwound (pthread_sigmask would show below the caller), and its interval goes on.
 *
 * All of them are async-signal-safe (a program's signal handler may sleep too). */
typedef enum hp_sampling_hold {
    HP_HOLD_NONE,       /* not sampled now: nothing was changed */
    HP_HOLD_BLOCKED,    /* the signal is blocked for the call */
    HP_HOLD_WAS_BLOCKED /* the program had blocked it already */
} hp_sampling_hold;

hp_sampling_hold hp_sampling_hold_signal(struct hp_location *loc, volatile uintptr_t *mark);
/* The sampling signals loc's thread has received so far (0 when it is not sampled): a
 * call that does not wait tells by it whether its EINTR came from a sample. */
uint64_t hp_sampling_signals(const struct hp_location *loc);
void hp_sampling_add_signal(sigset_t *set);
void hp_sampling_remove_signal(sigset_t *set);
void hp_sampling_release(struct hp_location *loc, hp_sampling_hold hold, uintptr_t callee);

/* HP_TRACE_ADAPTIVE (trace_bins.h): the location's trace buffer halved its sampling
 * frequency; re-arms its timer with period_ns. Called from the signal handler, at most
 * once per halving (timer_settime is async-signal-safe). trace_buffer is the location's
 * hp_trace_buffer. Returns 0, or -1 when the location has no timer. */
int hp_sampling_trace_rearm(void *trace_buffer, uint64_t period_ns);

/* Sums the statistics of every location. nominal_ns receives the sampling interval. */
void hp_sampling_collect(hp_sampling_stats *out, uint64_t *nominal_ns);

#endif
