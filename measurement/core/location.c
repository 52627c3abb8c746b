/*
 * Location life cycle: creation on a thread's first event (cold path), the shadow
 * stack's chunks, closing open frames at thread end or finalize, reuse by a later thread,
 * and the list of all locations that finalize walks.
 *
 * A thread's first event and its end are driven from thread_attach.c, which also starts
 * the measurement and the thread's sampling timer; this file knows neither. A thread's
 * open frames are closed at its end, so a thread that ends with pthread_exit from deep
 * inside keeps correct inclusive times.
 *
 * With HP_THREAD_LOCATIONS=reuse (the default) the ended thread's location then goes to
 * a free list, and the next thread that starts takes it instead of a new one: its call
 * tree, trace buffer and sampling state carry on, and the new thread's visits add to
 * the old ones, like the threads of a pool. A program that starts and joins threads one
 * after another thus needs as many locations as it ever had threads alive at once. A
 * free location that ran the same start routine (pthread_create's, when the wrapper in
 * adapters/threads saw it) is preferred, so that each location's tree stays one kind of
 * thread; otherwise the most recently freed one is taken.
 */
#include "location.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

#include "subtree.h"
#include "timer.h"

_Thread_local hp_location *hp__tls_location __attribute__((tls_model("initial-exec")));
_Thread_local unsigned hp__tls_runtime_calls __attribute__((tls_model("initial-exec")));

static _Atomic(hp_location *) location_list;
static _Atomic uint32_t location_count;
static _Atomic uint64_t refused_count;
/* Stands in for the location of a thread the budget could not hold, so that its
 * events cost one check instead of a new attempt each time. */
static hp_location unmeasured_location = { .busy = HP_BUSY_STOPPED };
static _Atomic uint64_t thread_count;
static bool reuse_on = true;
/* Free locations (HP_BUSY_FREE), newest first, behind a spin lock: taking and giving back
 * are a few pointer moves, once per thread. A thread never waits for itself: a signal
 * handler that runs an instrumented function while its thread holds the lock finds
 * changing_free_list set and is not measured. */
static hp_location *free_list;
static atomic_flag free_lock = ATOMIC_FLAG_INIT;
static _Thread_local bool changing_free_list;
/* The start routine of the calling thread, from the pthread_create wrapper. */
static _Thread_local uintptr_t thread_start_routine;
static hp_region *root_region;
static bool tracing_on;
static uint64_t depth_limit = UINT64_MAX;
static bool collapse_on;

void hp_location_set_root_region(hp_region *root)
{
    root_region = root;
}

void hp_location_set_depth_limit(uint64_t max_depth)
{
    depth_limit = max_depth > 0 ? max_depth : UINT64_MAX;
}

void hp_location_set_collapse(bool on)
{
    collapse_on = on;
}

void hp_location_set_tracing(bool on)
{
    tracing_on = on;
}

void hp_location_set_reuse(bool on)
{
    reuse_on = on;
}

void hp_location_set_start_routine(uintptr_t routine)
{
    thread_start_routine = routine;
}

static void free_list_lock(void)
{
    changing_free_list = true;
    while (atomic_flag_test_and_set_explicit(&free_lock, memory_order_acquire))
        cpu_relax();
}

static void free_list_unlock(void)
{
    atomic_flag_clear_explicit(&free_lock, memory_order_release);
    changing_free_list = false;
}

static void free_list_push(hp_location *loc)
{
    free_list_lock();
    loc->next_free = free_list;
    free_list = loc;
    free_list_unlock();
}

/* A free location for a thread running routine: one that ran it before, else the newest;
 * NULL when none is free. */
static hp_location *free_list_take(uintptr_t routine)
{
    free_list_lock();
    hp_location **pick = NULL;
    for (hp_location **p = &free_list; *p != NULL; p = &(*p)->next_free) {
        if ((*p)->start_routine == routine) {
            pick = p;
            break;
        }
        if (pick == NULL)
            pick = p;
    }
    hp_location *loc = NULL;
    if (pick != NULL) {
        loc = *pick;
        *pick = loc->next_free;
    }
    free_list_unlock();
    return loc;
}

/* Thread end, first step (on the exiting thread): events it still has (other key
 * destructors) go nowhere, since its location may belong to another thread a moment
 * later. */
void hp_location_unbind(hp_location *loc)
{
    hp__tls_location = &unmeasured_location;
    atomic_fetch_or(&loc->busy, reuse_on ? HP_BUSY_FREE : HP_BUSY_STOPPED);
}

void hp_location_release(hp_location *loc)
{
    hp_location_close(loc, hp_timer_now());
    if (loc->metrics != NULL)
        hp_metrics_thread_stop(loc->metrics);
    loc->ended = true;
    if (reuse_on)
        free_list_push(loc);
}

/* A stack chunk in `bytes` of memory at mem (NULL: budget used up). */
static hp_stack_chunk *chunk_at(void *mem, size_t bytes, hp_stack_chunk *prev)
{
    hp_stack_chunk *c = mem;
    if (c == NULL)
        return NULL;
    c->prev = prev;
    c->base = (hp_frame *)((char *)c + ((sizeof(*c) + 15) & ~(size_t)15));
    c->limit = c->base + (bytes - (size_t)((char *)c->base - (char *)c)) / sizeof(hp_frame);
    return c;
}

static hp_stack_chunk *chunk_new(hp_stack_chunk *prev)
{
    return chunk_at(hp_memory_pages(HP_PAGE_SIZE), HP_PAGE_SIZE, prev);
}

static void use_chunk(hp_location *loc, hp_stack_chunk *c)
{
    loc->chunk = c;
    loc->stack_base = c->base;
    loc->stack_limit = c->limit;
}

/* A new location takes one page of the budget: the location, its first stack chunk (63
 * frames) and its call tree's first hash table; deeper stacks and bigger trees take more
 * pages as they grow. */
enum { FIRST_CHUNK_BYTES = 2048 };

static hp_location *location_new(void)
{
    hp_arena arena = { 0 };
    hp_location *loc = hp_arena_alloc(&arena, sizeof(*loc));
    void *first = hp_arena_alloc(&arena, FIRST_CHUNK_BYTES);
    hp_stack_chunk *c = chunk_at(first, FIRST_CHUNK_BYTES, NULL);
    if (loc == NULL || c == NULL)
        return NULL;
    loc->arena = arena;
    if (hp_metrics_count() > 0 &&
        (loc->metrics = hp_arena_alloc(&loc->arena, sizeof(hp_metrics))) == NULL)
        return NULL;
    if (hp_cct_init(&loc->cct, &loc->arena, root_region, hp_metrics_count()) < 0)
        return NULL;
    use_chunk(loc, c);
    loc->sp = c->base;
    loc->current = loc->cct.root;
    loc->cct.root->visits = 1;
    hp_trace_buffer_init(&loc->trace);
    loc->tracing = tracing_on;
    loc->depth_cap = depth_limit;
    loc->collapse = collapse_on;
    loc->outside_selected = hp_subtree_selecting();
    hp__location_update_limit(loc);
    return loc;
}

/* Publishes loc in the list finalize walks (lock-free push). */
static void location_publish(hp_location *loc)
{
    loc->id = atomic_fetch_add(&location_count, 1);
    hp_location *head = atomic_load(&location_list);
    do
        loc->next = head;
    while (!atomic_compare_exchange_weak(&location_list, &head, loc));
}

void hp__location_unfold(hp_location *loc, const hp_frame *f)
{
    loc->folded_open--;
    if (f->parent->folded_open > 0)
        f->parent->folded_open--;
}

/* Ends every folded frame still open (a thread that ended inside a recursion, before
 * its location is reused). */
static void unfold_all(hp_location *loc)
{
    const hp_stack_chunk *c = loc->chunk;
    const hp_frame *f = loc->sp;
    for (uint64_t n = loc->depth; n > 0 && loc->folded_open > 0; n--) {
        if (f == c->base) {
            c = c->prev;
            f = c->limit;
        }
        --f;
        if (f->node == NULL && f->start == HP_FRAME_FOLDED)
            hp__location_unfold(loc, f);
    }
    loc->folded_open = 0;
}

/* Makes a free location ready for a new thread: an empty stack at the root, which gets
 * one more visit; the call tree, trace and counts stay. */
static void location_reset(hp_location *loc)
{
    if (loc->folded_open > 0) /* its last thread ended inside a recursion */
        unfold_all(loc);
    hp_stack_chunk *c = loc->chunk;
    while (c->prev != NULL)
        c = c->prev;
    use_chunk(loc, c);
    loc->sp = c->base;
    loc->depth = 0;
    loc->dropped_depth = 0;
    loc->outside_selected = hp_subtree_selecting();
    loc->excluded_depth = 0;
    hp__location_update_limit(loc);
    loc->current = loc->cct.root;
    loc->cct.root->visits++;
    loc->in_mpi = false;
    loc->ended = false;
    atomic_store(&loc->closed, 0);
}

bool hp_location_pool_changing(void)
{
    return changing_free_list;
}

/* A location for the calling thread: a free one (reuse) or a new one, published; NULL
 * when the budget cannot hold one. */
static hp_location *location_for_thread(void)
{
    hp_location *loc = reuse_on ? free_list_take(thread_start_routine) : NULL;
    if (loc != NULL) {
        location_reset(loc);
    } else {
        loc = location_new();
        if (loc == NULL)
            return NULL;
        location_publish(loc);
    }
    loc->start_routine = thread_start_routine;
    loc->threads++;
    atomic_fetch_add(&thread_count, 1);
    return loc;
}

hp_location *hp_location_acquire(void)
{
    hp_location *loc = location_for_thread();
    if (loc == NULL) {
        atomic_fetch_add(&refused_count, 1);
        hp__tls_location = &unmeasured_location;
    }
    return loc;
}

void hp_location_bind(hp_location *loc)
{
    if (loc->metrics != NULL && hp_metrics_thread_start(loc->metrics))
        hp__metrics_enter(loc->metrics, loc->cct.root->counters);
    loc->start_time = hp_timer_now();
    if (loc->tracing) { /* the program root: a thread's first event is an Enter */
        uint64_t t = hp_trace_add(&loc->trace, HP_TRACE_ENTER, loc->cct.root->region->id,
                                  loc->start_time);
        if (loc->metrics != NULL)
            hp_metrics_trace(loc->metrics, &loc->trace, t);
    }
    hp__tls_location = loc;
}

void hp_location_open(hp_location *loc)
{
    /* Reused: events from now on (finalize may have set STOPPED meanwhile; that stays). */
    atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_FREE);
}

hp_frame *hp__location_stack_grow(hp_location *loc)
{
    hp_stack_chunk *next = loc->chunk->next;
    if (next == NULL) {
        next = chunk_new(loc->chunk);
        if (next == NULL)
            return NULL;
        loc->chunk->next = next;
    }
    use_chunk(loc, next);
    loc->sp = next->base;
    return loc->sp;
}

void hp__location_update_limit(hp_location *loc)
{
    uint64_t limit = loc->depth_cap;
    if (loc->excluded_depth != 0 && loc->excluded_depth - 1 < limit)
        limit = loc->excluded_depth - 1; /* see hp__event_enter_slow */
    loc->depth_limit = loc->outside_selected || loc->collapse ? 0 : limit;
}

void hp__location_stack_bottom(hp_location *loc)
{
    if (loc->depth > 0) {
        hp_stack_chunk *prev = loc->chunk->prev;
        use_chunk(loc, prev);
        loc->sp = prev->limit;
    } else if (hp_subtree_selecting()) { /* the selected call returned */
        loc->outside_selected = true;
        loc->excluded_depth = 0;
        loc->dropped_depth = loc->outer_dropped;
        hp__location_update_limit(loc);
    }
}

/* The node of the frame below f (in chunk c), or the root for the outermost frame. */
static hp_cct_node *outer_node(const hp_location *loc, const hp_stack_chunk *c,
                               const hp_frame *f)
{
    const hp_frame *below = f > c->base ? &f[-1] : c->prev != NULL ? &c->prev->limit[-1] : NULL;
    if (below == NULL)
        return loc->cct.root;
    if (below->node == NULL && below->start != HP_FRAME_FOLDED)
        return f->parent; /* a path frame (hp_event_push_path) accounts for its path */
    return below->node;
}

void hp_location_close(hp_location *loc, uint64_t now)
{
    if (atomic_exchange(&loc->closed, 1))
        return;
    /* Another thread's rusage cannot be read from here: its frames end at its last
     * values (taken at its last enter or exit). */
    hp_metrics *m = loc->metrics;
    if (m != NULL && loc == hp__tls_location)
        hp_metrics_read(m);
    const hp_stack_chunk *c = loc->chunk;
    const hp_frame *f = loc->sp;
    hp_cct_node *inner_parent = loc->current; /* the node above the frame at hand */
    uint64_t trace_now = now; /* later after a flush: the Leaves that follow keep order */
    for (uint64_t n = loc->depth; n > 0; n--) {
        if (f == c->base) {
            if (c->prev == NULL)
                break;
            c = c->prev;
            f = c->limit;
        }
        if (f <= c->base || f > c->limit) /* a snapshot taken mid-update: stop there */
            break;
        --f;
        if (f->node != NULL && f->start <= now) {
            hp_cct_visit_end(f->node, now - f->start);
            if (m != NULL)
                hp_metrics_add_last(m, f->node->counters);
            /* an MPI call below an unwound path: the path's nodes include its time */
            hp_cct_path_add(f->parent, outer_node(loc, c, f), now - f->start);
            if (m != NULL)
                hp_cct_path_counters(f->parent, outer_node(loc, c, f), m->last, m->n, 1);
            if (loc->tracing) { /* innermost first: the trace stays balanced */
                if (m != NULL)
                    trace_now = hp_metrics_trace(m, &loc->trace, trace_now);
                trace_now = hp_trace_add(&loc->trace, HP_TRACE_LEAVE, f->node->region->id,
                                         trace_now);
            }
        } else if (f->start != HP_FRAME_FOLDED && f->start <= now) {
            /* a path frame (hp_event_push_path): its path has the time, as at its pop */
            hp_cct_path_add(inner_parent, f->parent, now - f->start);
        }
        inner_parent = f->parent;
    }
    loc->end_time = now;
    hp_cct_node *root = loc->cct.root;
    uint64_t life = now - loc->start_time;
    loc->lived_ticks += life;
    root->incl_ticks = loc->lived_ticks;
    if (life < root->min_ticks)
        root->min_ticks = life;
    if (life > root->max_ticks)
        root->max_ticks = life;
    if (m != NULL)
        hp_metrics_add_last(m, root->counters);
    if (loc->tracing) {
        if (m != NULL)
            trace_now = hp_metrics_trace(m, &loc->trace, trace_now);
        hp_trace_add(&loc->trace, HP_TRACE_LEAVE, root->region->id, trace_now);
    }
}

hp_location *hp_location_stop_all(void)
{
    for (hp_location *l = atomic_load(&location_list); l != NULL; l = l->next)
        atomic_fetch_or(&l->busy, HP_BUSY_STOPPED);
    return atomic_load(&location_list);
}

hp_location *hp_location_list(void)
{
    return atomic_load(&location_list);
}

uint32_t hp_location_count(void)
{
    return atomic_load(&location_count);
}

uint64_t hp_location_refused_count(void)
{
    return atomic_load(&refused_count);
}

uint64_t hp_location_thread_count(void)
{
    return atomic_load(&thread_count);
}

uint64_t hp_location_root_ticks(const hp_location *loc, uint64_t now)
{
    if (atomic_load(&loc->closed))
        return loc->lived_ticks;
    return loc->lived_ticks + (now > loc->start_time ? now - loc->start_time : 0);
}

static const char *const *call_names;
static size_t call_name_count;

void hp_location_set_call_names(const char *const *names, size_t count)
{
    call_names = names;
    call_name_count = count;
}

const char *const *hp_location_call_names(size_t *count)
{
    *count = call_name_count;
    return call_names;
}
