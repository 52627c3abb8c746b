/*
 * Timer sampling (sampling.h): the per-thread timers, the signal handler, the effective
 * interval of each sample, and adding unwound frames to a location's call tree.
 *
 * The handler only runs its work when the thread is outside the core (the location's
 * in_core guard): then nothing else on this thread is using the location's call tree or
 * arena, and the handler may extend them. It takes no lock and never calls malloc;
 * placeholders for functions seen for the first time come from the location's arena
 * and are named after the run (region.c).
 */
#include "sampling.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measurement/core/config.h"
#include "measurement/core/event.h"
#include "measurement/core/location.h"
#include "measurement/core/region.h"
#include "measurement/core/signal_names.h"
#include "thunks.h"
#include "throttle.h"
#include "measurement/core/timer.h"
#include "measurement/trace/trace_bins.h"
#include "unwind.h"
#include "util/log.h"
#include "util/sigaction_real.h"

enum {
    SAMPLE_SIGNAL_OFFSET = HP_SAMPLE_SIGNAL_OFFSET, /* the timers' signal: SIGRTMIN + 6 */
    SIGNAL_STACK = 32 * 1024, /* the handler's own stack (see use_signal_stack) */
    MAX_FRAMES = 512, /* deeper stacks count as truncated unwinds */
    MAX_STOPS = 4     /* innermost instrumented frames an unwind may end at */
};

struct hp_sampling {
    timer_t timer;
    _Atomic int armed;    /* the timer exists (it ticks unless sampling is deferred) */
    hp_unwinder *unwinder;
    struct hp_thunk_stack *thunks; /* the thread's side stack (HP_UNWIND_THUNKS) */
    void *signal_stack;   /* the thread's alternate signal stack, or NULL */
    uint64_t last_ticks;  /* time of the previous valid sample (or of the thread's start) */
    uint64_t mpi_at_last; /* the location's MPI time then */
    /* the previous unwound path, outermost first: frames it shares with the next one are
       the same activations and are not counted as new visits */
    uint64_t quiet_until; /* samples before this time are skipped (throttling) */
    bool check_cpu;       /* the last handler was slow by the clock: this one reads its
                             CPU time (throttle.h) */
    const hp_cct_node *prev_anchor;
    size_t prev_count;
    size_t fresh; /* frames of the last attached path that were new activations */
    uint64_t interval_ns;    /* the timer's period: the start one, doubled by each halving */
    uint64_t interval_ticks; /* of HP_TRACE_ADAPTIVE's trace buffer (hp_sampling_trace_rearm) */
    hp_unwind_frame prev[MAX_FRAMES];
    hp_cct_node *prev_nodes[MAX_FRAMES];
    hp_unwind_frame frames[MAX_FRAMES];
    /* the path of the fork in progress (hp_sampling_fork_begin), the reference again at
       its end; from the arena, grown as needed; one level (a nested fork replaces it) */
    hp_unwind_frame *fork_prev;
    hp_cct_node **fork_nodes;
    size_t fork_capacity, fork_count;
    const hp_cct_node *fork_anchor;
    /* the mark of the held call in progress that blocked the signal (hold_signal), in
       its caller's frame; NULL when none */
    volatile uintptr_t *held_mark;
    hp_sampling_stats stats;
};

static bool enabled;
static _Atomic bool deferred; /* timers wait for hp_sampling_resume (hp-run) */
static int sample_signal; /* a real-time signal: see hp_sampling_setup */
static uint64_t interval_ns;
static uint64_t interval_ticks;
static hp_region *unwind_failed_region;

bool hp_sampling_enabled(void)
{
    return enabled;
}

/* ---- adding paths to the call tree -------------------------------------------------- */

/* The UNWIND FAILED child of anchor, visited once more. The previous unwound path stays
 * the reference for the next one: two observed paths that differ prove new activations
 * whatever went unobserved between them, so visits stay lower bounds (forgetting it here
 * made every failed unwind count a new visit of main and every frame below). */
static hp_cct_node *failed_node(hp_location *loc, hp_cct_node *anchor)
{
    hp_cct_node *n = hp_cct_child(&loc->cct, anchor, unwind_failed_region);
    if (n == NULL)
        return anchor;
    n->visits++;
    return n;
}

/* True when the frame f at depth is the activation the previous path had there. The
 * thunks know it for the outermost frames (still thunked: the same; thunk gone: returned).
 * Elsewhere it is taken to be the same when the function is the same and it is called
 * from the same call site in the same parent (same_parent): its own call site does not
 * matter, it moves on while the function runs. Either way visits can only undercount. */
static bool same_activation(const struct hp_sampling *s, const hp_unwind_known *k,
                            size_t depth, const hp_unwind_frame *f, bool same_parent)
{
    if (depth >= s->prev_count || s->prev[depth].start != f->start)
        return false;
    if (depth < k->alive)
        return true;
    if (depth >= k->gone_from && depth < k->gone_end)
        return false;
    return same_parent;
}

/* Adds frames (innermost first) below anchor and returns the innermost node. A frame
 * that is the same activation as in the previous path (same_activation) is no visit, so
 * visits are lower bounds. */
static hp_cct_node *attach_path(hp_location *loc, hp_cct_node *anchor,
                                const hp_unwind_frame *frames, size_t count)
{
    struct hp_sampling *s = loc->sampling;
    s->fresh = 0;
    if (count == 0) /* nothing below the anchor: the reference path stays */
        return anchor;
    hp_unwind_known known = hp_unwinder_known(s->unwinder);
    hp_cct_node *node = anchor;
    bool same = anchor == s->prev_anchor;
    uintptr_t old_parent_site = 0, new_parent_site = 0;
    size_t depth = 0;
    for (size_t i = count; i-- > 0; depth++) {
        const hp_unwind_frame *f = &frames[i];
        same = same && same_activation(s, &known, depth, f, old_parent_site == new_parent_site);
        if (same) {
            node = s->prev_nodes[depth];
        } else {
            hp_region *r = hp_region_for_sample(f->start, &loc->arena);
            hp_cct_node *child = r != NULL ? hp_cct_child(&loc->cct, node, r) : NULL;
            if (child == NULL)
                break; /* budget: the path ends here */
            child->visits++;
            node = child;
            s->fresh++;
        }
        old_parent_site = depth < s->prev_count ? s->prev[depth].site : 0;
        new_parent_site = f->site;
        s->prev[depth] = *f;
        s->prev_nodes[depth] = node;
    }
    s->prev_anchor = anchor;
    s->prev_count = depth;
    return node;
}

/* The function addresses of the innermost instrumented frames (current stack chunk). */
static size_t stop_addresses(const hp_location *loc, uintptr_t *out)
{
    size_t n = 0;
    for (const hp_frame *f = loc->sp; f > loc->stack_base && n < MAX_STOPS;)
        out[n++] = (--f)->addr;
    return n;
}

typedef enum path_result { PATH_ADDED, PATH_FAILED, PATH_UNANCHORED } path_result;

/* True when one of the frames is a function the compiler adapter measures (a known,
 * unfiltered region): the sample came between its first instruction and its enter hook,
 * or after its exit hook, so the shadow stack does not have it. Adding it would count a
 * false visit and add time on top of its measured time; the sample stays with the
 * current region instead. */
static bool has_hooked_frame(const hp_unwind_frame *frames, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        hp_region *r = hp_region_find(frames[i].start); /* only hooks fill that table */
        if (r != NULL && r != HP_REGION_FILTERED)
            return true;
    }
    return false;
}

/* Turns an unwind's outcome into the node to charge: *leaf. */
static path_result place(hp_location *loc, hp_unwind_status status, const hp_unwind_stop *stop,
                         size_t count, hp_cct_node **leaf)
{
    struct hp_sampling *s = loc->sampling;
    hp_cct_node *anchor = loc->current;
    s->fresh = 0;
    if (status != HP_UNWIND_COMPLETE) {
        if (status == HP_UNWIND_TRUNCATED)
            s->stats.truncated++;
        else
            s->stats.failed++;
        *leaf = failed_node(loc, anchor);
        return PATH_FAILED;
    }
    if ((stop->count > 0 && stop->hit == stop->count) || has_hooked_frame(s->frames, count)) {
        s->stats.unanchored++;
        *leaf = anchor;
        return PATH_UNANCHORED;
    }
    *leaf = attach_path(loc, anchor, s->frames, count);
    return PATH_ADDED;
}

hp_cct_node *hp_sampling_unwind_path(hp_location *loc, uintptr_t *innermost)
{
    struct hp_sampling *s = loc->sampling;
    *innermost = 0;
    if (s == NULL || loc->current == NULL)
        return loc->current;
    uintptr_t starts[MAX_STOPS];
    hp_unwind_stop stop = { starts, stop_addresses(loc, starts), 0 };
    size_t count;
    hp_unwind_status status = hp_unwind_here(s->unwinder, &stop, s->frames, MAX_FRAMES, &count);
    hp_cct_node *leaf;
    /* attach_path took the frames from the outermost in, prev_count of them (fewer when
       the budget ended the path) */
    if (place(loc, status, &stop, count, &leaf) == PATH_ADDED && leaf != loc->current)
        *innermost = s->frames[count - s->prev_count].start;
    return leaf;
}

hp_cct_node *hp_sampling_call_path(hp_location *loc)
{
    if (loc->sampling != NULL && loc->current != NULL)
        loc->sampling->stats.mpi_unwinds++;
    uintptr_t innermost;
    return hp_sampling_unwind_path(loc, &innermost);
}

/* The depth of fn's activation in the reference path when the frames outside it are
 * all of unmeasured functions (the enter hooks of measured ones would have come first),
 * or prev_count when it is not there. */
static size_t prehook_depth(const struct hp_sampling *s, uintptr_t fn)
{
    /* Plain compares first: with -finstrument-functions this runs on every cache miss of
     * the hooks, and fn is rarely in the path; the region lookups only when it is. */
    size_t i = 0;
    while (i < s->prev_count && s->prev[i].start != fn)
        i++;
    for (size_t j = 0; j < i; j++) {
        hp_region *r = hp_region_find(s->prev[j].start);
        if (r != NULL && r != HP_REGION_FILTERED)
            return s->prev_count;
    }
    return i;
}

/* Takes back the visit that the samples of the reference path gave fn's activation
 * before its first enter hook, which has just pushed frame f (counting a visit). On f's
 * own node the samples' time moves into f: the exit then records the activation's whole
 * time as one visit (min, max and mean stay consistent). On a node below unmeasured
 * callers of fn it stays there, the time fn spent below them before its hook ran. */
static void take_back(struct hp_sampling *s, hp_frame *f, uintptr_t fn)
{
    size_t i = prehook_depth(s, fn);
    if (i == s->prev_count)
        return;
    hp_cct_node *n = s->prev_nodes[i];
    if (n == f->node) {
        if (n->visits != 2) /* the samples' and the enter's, or nothing to tell apart */
            return;
        uint64_t pre = n->incl_ticks; /* the samples', all of this activation */
        n->incl_ticks = 0;
        f->start -= pre;
    } else if (n->region != f->node->region || n->visits != 1) {
        return;
    }
    n->visits--;
    s->prev_count = i; /* the frames of that path below fn now hang below its hooked frame */
}

void hp_sampling_first_enter(hp_location *loc, hp_region *r, uintptr_t fn)
{
    uint64_t depth = loc->depth;
    hp_event_enter(loc, r, fn);
    struct hp_sampling *s = loc->sampling;
    if (s == NULL || loc->depth != depth + 1)
        return; /* not recorded (too deep, no stack, folded): the samples' visit stays */
    hp_frame *f = loc->sp - 1;
    if (f->node != NULL && f->node == loc->current && f->addr == fn &&
        f->parent == s->prev_anchor)
        take_back(s, f, fn);
}

/* ---- the signal handler -------------------------------------------------------------- */

/* The effective interval of a sample taken now, and the start of the next one. */
/* The time since the previous valid sample minus the MPI time measured in between, and
 * the start of the next interval now. */
static uint64_t take_interval(hp_location *loc, uint64_t now)
{
    struct hp_sampling *s = loc->sampling;
    uint64_t mpi = loc->mpi_ticks - s->mpi_at_last;
    uint64_t span = now - s->last_ticks;
    s->last_ticks = now;
    s->mpi_at_last = loc->mpi_ticks;
    return span > mpi ? span - mpi : 0;
}

static uint64_t effective_interval(hp_location *loc, uint64_t now)
{
    struct hp_sampling *s = loc->sampling;
    uint64_t ticks = take_interval(loc, now);
    uint64_t bucket = s->interval_ticks > 0 ? ticks * 10 / s->interval_ticks : 0;
    s->stats.histogram[bucket < HP_SAMPLING_BUCKETS ? bucket : HP_SAMPLING_BUCKETS - 1]++;
    return ticks;
}

/* Keeps the path just unwound (prev) to be the reference again after the fork. Not with
 * thunks: what they know of the stack follows the unwinds in between. */
static void save_fork_path(hp_location *loc, struct hp_sampling *s)
{
    s->fork_count = 0;
    if (s->thunks != NULL)
        return;
    if (s->prev_count > s->fork_capacity) {
        size_t cap = s->prev_count < 16 ? 16 : s->prev_count;
        hp_unwind_frame *frames = hp_arena_alloc(&loc->arena, cap * sizeof(*frames));
        hp_cct_node **nodes = hp_arena_alloc(&loc->arena, cap * sizeof(*nodes));
        if (frames == NULL || nodes == NULL)
            return; /* budget: the next samples count the path's activations anew */
        s->fork_prev = frames;
        s->fork_nodes = nodes;
        s->fork_capacity = cap;
    }
    memcpy(s->fork_prev, s->prev, s->prev_count * sizeof(*s->prev));
    memcpy(s->fork_nodes, s->prev_nodes, s->prev_count * sizeof(*s->prev_nodes));
    s->fork_count = s->prev_count;
    s->fork_anchor = s->prev_anchor;
}

void hp_sampling_fork_begin(hp_location *loc, hp_cct_node *leaf)
{
    hp_cct_path_add(leaf, loc->current, take_interval(loc, hp_timer_now()));
    save_fork_path(loc, loc->sampling);
}

void hp_sampling_fork_end(hp_location *loc)
{
    struct hp_sampling *s = loc->sampling;
    take_interval(loc, hp_timer_now()); /* dropped: the fork's measured time holds it */
    if (s->fork_count > 0) { /* the forking functions are still the same activations */
        memcpy(s->prev, s->fork_prev, s->fork_count * sizeof(*s->prev));
        memcpy(s->prev_nodes, s->fork_nodes, s->fork_count * sizeof(*s->prev_nodes));
        s->prev_count = s->fork_count;
        s->prev_anchor = s->fork_anchor;
        s->fork_count = 0;
    }
}

/* A sample that is not unwound. With function hooks on the stack, its interval is spent
 * inside measured regions (mostly in the hooks themselves) and is dropped: carried over,
 * it would weigh the next sample by every busy interval before it. Without hooks it is
 * carried over to the next valid sample, so that sampled + MPI time stays wall time. */
static void skip_sample(hp_location *loc, uint64_t now)
{
    struct hp_sampling *s = loc->sampling;
    if (loc->depth > 0 && !loc->in_mpi) {
        s->last_ticks = now;
        s->mpi_at_last = loc->mpi_ticks;
    }
}

/* The frames of a sample, innermost first, into s->frames: the context the signal
 * interrupted (ucontext), or else the caller of a blocking call that held the signal
 * (hp_sampling_release), with the called function callee as the innermost frame, where
 * the signal would have found the thread. */
static hp_unwind_status unwind_sample(struct hp_sampling *s, void *ucontext, uintptr_t callee,
                                      hp_unwind_stop *stop, size_t *count)
{
    if (ucontext != NULL)
        return hp_unwind_signal(s->unwinder, ucontext, stop, s->frames, MAX_FRAMES, count);
    hp_unwind_status status =
        hp_unwind_here(s->unwinder, stop, s->frames + 1, MAX_FRAMES - 1, count);
    s->frames[0] = (hp_unwind_frame){ callee, 0 };
    ++*count;
    return status;
}

/* The calling thread's CPU time in ns into *ns (async-signal-safe); false on error. */
static bool thread_cpu_ns(uint64_t *ns)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return false;
    *ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    return true;
}

/* The CPU time since cpu_start (read if cpu_ok) for throttle.h, when the check is armed. */
static uint64_t handler_cpu_ns(const struct hp_sampling *s, bool cpu_ok, uint64_t cpu_start)
{
    uint64_t cpu_end;
    if (!s->check_cpu)
        return HP_THROTTLE_CPU_UNREAD;
    if (!cpu_ok || !thread_cpu_ns(&cpu_end) || cpu_end < cpu_start)
        return HP_THROTTLE_CPU_FAILED;
    return cpu_end - cpu_start;
}

static void take_sample(hp_location *loc, void *ucontext, uintptr_t callee)
{
    struct hp_sampling *s = loc->sampling;
    s->stats.samples++;
    uint64_t now = hp_timer_now();
    if (hp_location_ignores_events(loc)) {
        s->stats.busy++;
        return;
    }
    if (loc->in_core || now < s->quiet_until) {
        s->stats.busy++;
        skip_sample(loc, now);
        return;
    }
    if (loc->in_mpi) {
        s->stats.in_mpi++;
        return;
    }
    hp_location_enter_core(loc);
    uint64_t cpu_start = 0;
    bool cpu_ok = s->check_cpu && thread_cpu_ns(&cpu_start);
    uint64_t weight = effective_interval(loc, now);
    /* In switched-off code (subtree.h) nothing is unwound: the current region, the
     * excluded one or the root, has the time in its own already. */
    if (loc->current != NULL && !hp_location_switched_off(loc)) {
        uintptr_t starts[MAX_STOPS];
        hp_unwind_stop stop = { starts, stop_addresses(loc, starts), 0 };
        size_t count;
        hp_unwind_status status = unwind_sample(s, ucontext, callee, &stop, &count);
        hp_cct_node *leaf;
        if (place(loc, status, &stop, count, &leaf) == PATH_ADDED) {
            s->stats.attributed++;
            if (ucontext == NULL && s->prev_count == count)
                s->prev_count--; /* the held call has returned: a next one is a new visit */
        }
        hp_cct_path_add(leaf, loc->current, weight);
        /* OTF2's unwind distance: the frames newly entered since the previous sample,
         * and the one below them that made progress (the leaf when nothing is new). */
        if (loc->tracing)
            hp_trace_add_sample(&loc->trace, now, leaf, (uint32_t)s->fresh + 1);
    }
    /* A slow handler would leave the program no time between signals (throttle.h). */
    uint64_t spent = hp_timer_now() - now;
    hp_throttle t = hp_throttle_decide(spent, handler_cpu_ns(s, cpu_ok, cpu_start),
                                       s->interval_ticks, s->interval_ns);
    s->check_cpu = t.check_cpu;
    if (t.quiet_ticks > 0) {
        s->quiet_until = now + spent + t.quiet_ticks; /* from the handler's end */
        s->stats.throttled++;
    }
    hp_location_leave_core(loc);
}

static void on_timer_signal(int sig, siginfo_t *info, void *ucontext)
{
    (void)sig;
    (void)info;
    int saved = errno;
    hp_location *loc = hp__tls_location;
    if (loc != NULL && loc->sampling != NULL)
        take_sample(loc, ucontext, 0);
    errno = saved;
}

/* ---- blocking calls (adapters/blocking/) ---------------------------------------------- */

static void sample_signal_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, sample_signal);
}

/* The sampling signal if it is pending for the calling thread, taken (a raw system call:
 * the C library's sigtimedwait is one of the calls wrapped). */
static bool take_pending_signal(void)
{
    sigset_t ours;
    sample_signal_set(&ours);
    struct timespec zero = { 0, 0 };
    return syscall(SYS_rt_sigtimedwait, &ours, NULL, &zero, _NSIG / 8) == sample_signal;
}

/* What a held call writes at its mark: the mark's address, scrambled, so that a stack
 * slot reused by other calls is unlikely to hold it by chance. */
static uintptr_t mark_value(volatile uintptr_t *mark)
{
    return (uintptr_t)mark ^ (uintptr_t)0x68706d6561737572u;
}

/* True when the held call that blocked the signal last (s->held_mark) was left without
 * its release: a longjmp out of a program's signal handler that interrupted it. A hold
 * made by a signal handler while that call waits lies below the kernel's signal frame
 * (over a kilobyte) and finds the old mark intact. So the old call's frame is gone when
 * the new mark is less than NEAR_MARK below the old one (the stack grows down; closer
 * than that, the wrapper's own frame may span the old slot unwritten yet), or when the
 * old one, inside the live stack, was overwritten. (A handler on an alternate stack
 * above it is taken for stale: the release then unblocks the signal inside the handler,
 * whose return puts the held call's mask back.) */
static bool stale_hold(const struct hp_sampling *s, volatile uintptr_t *mark)
{
    enum { NEAR_MARK = 512 };
    volatile uintptr_t *old = s->held_mark;
    if (old == NULL)
        return false;
    return (uintptr_t)old <= (uintptr_t)mark + NEAR_MARK || *old != mark_value(old);
}

/* The signal has stayed blocked since a stale hold: the thread was not sampled in
 * between. That time is dropped (charging it to the next held call would put compute
 * time on a sleep), with the signal it left pending; sampling goes on from now. */
static void drop_stale_hold(hp_location *loc)
{
    take_pending_signal();
    take_interval(loc, hp_timer_now());
}

hp_sampling_hold hp_sampling_hold_signal(hp_location *loc, volatile uintptr_t *mark)
{
    struct hp_sampling *s = loc->sampling;
    /* inside the core: hpmeasure's own waits, which need no care */
    if (s == NULL || loc->in_core || !atomic_load_explicit(&s->armed, memory_order_relaxed) ||
        atomic_load_explicit(&deferred, memory_order_relaxed))
        return HP_HOLD_NONE;
    sigset_t ours, before;
    sample_signal_set(&ours);
    /* a signal delivered as pthread_sigmask returns would show pthread_sigmask below the
       caller; inside the core it is not unwound, and the held sample gets its interval */
    hp_location_enter_core(loc);
    int rc = pthread_sigmask(SIG_BLOCK, &ours, &before);
    bool blocked = rc == 0 && sigismember(&before, sample_signal);
    if (blocked && stale_hold(s, mark)) { /* blocked by us, long ago: ours again */
        drop_stale_hold(loc);
        blocked = false;
    }
    hp_location_leave_core(loc);
    if (rc != 0)
        return HP_HOLD_NONE;
    if (blocked)
        return HP_HOLD_WAS_BLOCKED;
    *mark = mark_value(mark);
    s->held_mark = mark;
    return HP_HOLD_BLOCKED;
}

uint64_t hp_sampling_signals(const hp_location *loc)
{
    const struct hp_sampling *s = loc != NULL ? loc->sampling : NULL;
    return s != NULL ? s->stats.samples : 0;
}

void hp_sampling_add_signal(sigset_t *set)
{
    sigaddset(set, sample_signal);
}

void hp_sampling_remove_signal(sigset_t *set)
{
    sigdelset(set, sample_signal);
}

void hp_sampling_release(hp_location *loc, hp_sampling_hold hold, uintptr_t callee)
{
    if (hold != HP_HOLD_BLOCKED)
        return; /* blocked by the program: its signal stays pending for it to unblock */
    int saved = errno;
    if (take_pending_signal() && loc->sampling != NULL) {
        loc->sampling->stats.held++;
        take_sample(loc, NULL, callee);
    }
    if (loc->sampling != NULL)
        loc->sampling->held_mark = NULL;
    sigset_t ours; /* a signal that comes now finds the core: as in hold_signal */
    sample_signal_set(&ours);
    hp_location_enter_core(loc);
    pthread_sigmask(SIG_UNBLOCK, &ours, NULL);
    hp_location_leave_core(loc);
    errno = saved;
}

/* ---- timers ------------------------------------------------------------------------- */

/* False (and a warning, once) when the program replaced our signal handler: its own
 * handler would receive our signals. */
static bool handler_in_place(void)
{
    struct sigaction current;
    if (__sigaction(sample_signal, NULL, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
        current.sa_sigaction == on_timer_signal)
        return true;
    hp_warn_once("the program replaced the handler of signal %d "
                 "(SIGRTMIN+%d), which sampling uses: threads started from now on "
                 "are not sampled", sample_signal, sample_signal - SIGRTMIN);
    return false;
}

void hp_sampling_defer(void)
{
    atomic_store(&deferred, true);
}

static struct itimerspec period_of(uint64_t ns)
{
    struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    return (struct itimerspec){ .it_interval = t, .it_value = t };
}

/* The location's MPI time at now, counting the part of the MPI call in progress (the
 * innermost frame, when it is an MPI region's) before now: all of the call's time is
 * added to mpi_ticks when it returns, but only the part after now belongs to the
 * interval that starts now. */
static uint64_t mpi_ticks_at(const hp_location *loc, uint64_t now)
{
    uint64_t ticks = loc->mpi_ticks;
    if (!loc->in_mpi || loc->sp <= loc->stack_base)
        return ticks;
    const hp_frame *f = &loc->sp[-1];
    if (f->node != NULL && f->node->region->paradigm == HP_PARADIGM_MPI && f->start <= now)
        ticks += now - f->start;
    return ticks;
}

/* Starts s's timer ticking; the samples' accounting begins now, which may be inside
 * MPI_Init (hp_sampling_resume). */
static void arm_timer(hp_location *loc, struct hp_sampling *s)
{
    s->last_ticks = hp_timer_now(); /* the time before stays with the program root */
    s->mpi_at_last = mpi_ticks_at(loc, s->last_ticks);
    struct itimerspec its = period_of(s->interval_ns);
    timer_settime(s->timer, 0, &its, NULL);
}

/* The period of loc's samples: the start one, or what its adaptive trace buffer has
 * halved the frequency to (a location a new thread takes over keeps its buffer). */
static void set_interval(hp_location *loc, struct hp_sampling *s)
{
    s->interval_ns = loc->trace.bins != NULL ? hp_trace_bins_period(loc->trace.bins)
                                             : interval_ns;
    s->interval_ticks =
        (uint64_t)((double)s->interval_ns * hp_timer_ticks_per_second() / 1e9);
}

int hp_sampling_trace_rearm(void *trace_buffer, uint64_t period_ns)
{
    hp_location *loc =
        (hp_location *)((char *)trace_buffer - offsetof(hp_location, trace));
    struct hp_sampling *s = loc->sampling;
    if (s == NULL || !atomic_load(&s->armed))
        return -1;
    s->interval_ns = period_ns;
    s->interval_ticks = (uint64_t)((double)period_ns * hp_timer_ticks_per_second() / 1e9);
    if (atomic_load(&deferred))
        return 0; /* arm_timer uses the new period when sampling resumes */
    struct itimerspec its = period_of(period_ns);
    return timer_settime(s->timer, 0, &its, NULL) == 0 ? 0 : -1;
}

void hp_sampling_resume(hp_location *loc)
{
    atomic_store(&deferred, false);
    if (loc != NULL && loc->sampling != NULL)
        arm_timer(loc, loc->sampling);
    else if (loc != NULL)
        hp_sampling_thread_start(loc);
}

/* Gives the thread an alternate signal stack (unless it has one), so that the handler
 * does not write below the interrupted stack pointer: code that still reads memory there
 * after moving the stack pointer up breaks otherwise. libunwind's _Ux86_64_setcontext
 * does, while it lands a C++ exception in a handler (it is the program's unwinder when
 * libunwind comes before libgcc_s): a sample in those few instructions jumped to 0.
 * The memory is the location's: a thread that reuses it takes it over. */
static void use_signal_stack(hp_location *loc, struct hp_sampling *s)
{
    stack_t old;
    if (sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE))
        return;
    if (s->signal_stack == NULL)
        s->signal_stack = hp_arena_alloc(&loc->arena, SIGNAL_STACK);
    stack_t ss = { .ss_sp = s->signal_stack, .ss_flags = 0, .ss_size = SIGNAL_STACK };
    if (s->signal_stack != NULL)
        sigaltstack(&ss, NULL);
}

/* Every signal but the faults waits while a sample is taken (microseconds). A handler
 * that interrupted ours would run on the small signal stack above, whatever its own
 * flags: a finalize signal's write (signals.c) needs far more and overflowed it now and
 * then under hp-run (a segmentation fault instead of the rank's profile). A fault in the
 * handler itself must still be delivered: blocked, it would kill the process at once. */
static void block_during_samples(sigset_t *mask)
{
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
    sigfillset(mask);
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        sigdelset(mask, faults[i]);
}

/* The sampling state of loc: its own, or new from its arena (NULL: budget). A location
 * that a new thread reuses keeps its state (statistics, caches) but forgets the previous
 * thread's last path, which says nothing about the new thread's stack. */
static struct hp_sampling *sampling_state(hp_location *loc)
{
    struct hp_sampling *s = loc->sampling;
    if (s != NULL) {
        s->prev_anchor = NULL;
        s->prev_count = 0;
        s->quiet_until = 0;
        s->check_cpu = false; /* the previous thread's handler was slow, not this one's */
        s->held_mark = NULL; /* another thread's stack */
        return s;
    }
    s = hp_arena_alloc(&loc->arena, sizeof(*s));
    hp_unwinder *u = hp_unwinder_new(&loc->arena);
    if (s == NULL || u == NULL)
        return NULL;
    s->unwinder = u;
    return s;
}

/* The state and timer of loc's thread (the caller). While sampling is deferred the timer
 * is created but not started: MPI calls already unwind for their call paths. A location
 * taken over from an ended thread gets a new timer: the old one was deleted at its end. */
void hp_sampling_thread_start(hp_location *loc)
{
    if (!enabled || (loc->sampling != NULL && atomic_load(&loc->sampling->armed)) ||
        !handler_in_place())
        return;
    struct hp_sampling *s = sampling_state(loc);
    if (s == NULL)
        return; /* budget: this thread is not sampled (its MPI calls are still measured) */
    s->thunks = hp_thunks_thread_start(&loc->arena, s->thunks);
    hp_unwinder_set_thunks(s->unwinder, s->thunks);
    if (hp_thunks_enabled()) /* thunks' own guard code runs in the handler too */
        use_signal_stack(loc, s);
    struct sigevent ev;
    memset(&ev, 0, sizeof(ev));
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = sample_signal;
    ev._sigev_un._tid = gettid();
    if (timer_create(CLOCK_MONOTONIC, &ev, &s->timer) < 0)
        return;
    set_interval(loc, s);
    atomic_store(&s->armed, 1);
    loc->sampling = s;
    if (!atomic_load(&deferred))
        arm_timer(loc, s);
}

void hp_sampling_thread_stop(hp_location *loc)
{
    struct hp_sampling *s = loc->sampling;
    if (s != NULL && atomic_exchange(&s->armed, 0))
        timer_delete(s->timer);
}

void hp_sampling_thread_end(hp_location *loc)
{
    hp_sampling_thread_stop(loc);
    struct hp_sampling *s = loc->sampling;
    stack_t current;
    if (s == NULL || s->signal_stack == NULL || sigaltstack(NULL, &current) < 0 ||
        current.ss_sp != s->signal_stack)
        return;
    /* a signal still queued for this thread must not run on memory another thread uses */
    stack_t off = { .ss_flags = SS_DISABLE };
    sigaltstack(&off, NULL);
}

/* HP_UNWIND_THUNKS: the unwinder's thunk-aware walk first, then the thunks' checks. */
static void setup_thunks(void)
{
    if (hp_unwind_enable_thunks() < 0)
        hp_warn("HP_UNWIND_THUNKS is off: libgcc_s.so.1 (its unwinder finds the return "
                "address slots) cannot be loaded");
    else
        hp_thunks_setup();
}

int hp_sampling_setup(uint64_t hz)
{
    if (hp_unwind_init() < 0 || hp_region_enable_sampling() < 0) {
        hp_warn("sampling is off: HP_TOTAL_MEMORY too small for its tables");
        return -1;
    }
    if (hp_cfg.unwind_thunks) /* on failure say why; sampling goes on without thunks */
        setup_thunks();
    unwind_failed_region = hp_region_define("UNWIND FAILED", "", -1,
                                            HP_PARADIGM_MEASUREMENT, HP_ROLE_ARTIFICIAL);
    if (unwind_failed_region == NULL)
        return -1;
    interval_ns = 1000000000u / hz;
    interval_ticks = (uint64_t)((double)interval_ns * hp_timer_ticks_per_second() / 1e9);
    /* Not SIGPROF: programs use it themselves (setitimer(ITIMER_PROF), gprof) or reset
     * it to its default action, which would kill them at our next sample. A real-time
     * signal above glibc's own is left alone by programs and libraries; a timer's signal
     * is queued at most once (overruns are counted, not queued). */
    sample_signal = SIGRTMIN + SAMPLE_SIGNAL_OFFSET;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_timer_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    block_during_samples(&sa.sa_mask);
    if (sample_signal > SIGRTMAX || __sigaction(sample_signal, &sa, NULL) < 0) {
        hp_warn("sampling is off: cannot handle signal SIGRTMIN+%d (%s)",
                SAMPLE_SIGNAL_OFFSET, strerror(errno));
        return -1;
    }
    enabled = true;
    return 0;
}

void hp_sampling_collect(hp_sampling_stats *out, uint64_t *nominal_ns)
{
    memset(out, 0, sizeof(*out));
    *nominal_ns = interval_ns;
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next) {
        const struct hp_sampling *s = l->sampling;
        if (s == NULL)
            continue;
        const uint64_t *from = (const uint64_t *)&s->stats;
        uint64_t *to = (uint64_t *)out;
        for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
            to[i] += from[i];
        hp_unwind_stats u;
        hp_unwinder_stats(s->unwinder, &u);
        out->cache_hits += u.cache_hits;
        out->cache_misses += u.cache_misses;
        out->thunks_set += u.thunks_set;
        out->thunk_prefixes += u.thunk_prefixes;
        out->walked_frames += u.walked_frames;
    }
}
