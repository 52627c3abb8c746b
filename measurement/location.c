/*
 * Location life cycle: creation on a thread's first event (cold path), the shadow
 * stack's chunks, closing open frames at thread end or finalize, and the list of all
 * locations that finalize walks.
 *
 * A thread's end is noticed through a pthread key destructor, which runs when the
 * thread exits; its open frames are closed then, so a thread that ends with
 * pthread_exit from deep inside keeps correct inclusive times.
 */
#include "location.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "runtime.h"
#include "sampling.h"
#include "timer.h"

_Thread_local hp_location *hp__tls_location __attribute__((tls_model("initial-exec")));

static _Atomic(hp_location *) location_list;
static _Atomic uint32_t location_count;
static _Atomic uint64_t refused_count;
/* Stands in for the location of a thread the budget could not hold, so that its
 * events cost one check instead of a new attempt each time. */
static hp_location unmeasured_location = { .busy = HP_BUSY_STOPPED };
static hp_region *root_region;
static bool tracing_on;
static uint64_t depth_limit = UINT64_MAX;
static pthread_key_t thread_end_key;
static pthread_once_t thread_end_once = PTHREAD_ONCE_INIT;

void hp_location_set_root_region(hp_region *root)
{
    root_region = root;
}

void hp_location_set_depth_limit(uint64_t max_depth)
{
    depth_limit = max_depth > 0 ? max_depth : UINT64_MAX;
}

void hp_location_set_tracing(bool on)
{
    tracing_on = on;
}

static void on_thread_end(void *arg)
{
    hp_location *loc = arg;
    atomic_fetch_or(&loc->busy, HP_BUSY_STOPPED);
    hp_sampling_thread_stop(loc);
    hp_location_close(loc, hp_timer_now());
    if (loc->metrics != NULL)
        hp_metrics_thread_stop(loc->metrics);
    loc->ended = true;
}

static void create_thread_end_key(void)
{
    pthread_key_create(&thread_end_key, on_thread_end);
}

static hp_stack_chunk *chunk_new(hp_stack_chunk *prev)
{
    hp_stack_chunk *c = hp_memory_pages(HP_PAGE_SIZE);
    if (c == NULL)
        return NULL;
    c->prev = prev;
    c->base = (hp_frame *)((char *)c + ((sizeof(*c) + 15) & ~(size_t)15));
    c->limit = c->base + (HP_PAGE_SIZE - (size_t)((char *)c->base - (char *)c)) / sizeof(hp_frame);
    return c;
}

static void use_chunk(hp_location *loc, hp_stack_chunk *c)
{
    loc->chunk = c;
    loc->stack_base = c->base;
    loc->stack_limit = c->limit;
}

static hp_location *location_new(void)
{
    hp_arena arena = { 0 };
    hp_location *loc = hp_arena_alloc(&arena, sizeof(*loc));
    hp_stack_chunk *c = chunk_new(NULL);
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
    loc->depth_limit = depth_limit;
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

hp_location *hp__location_attach(void)
{
    if (!hp_runtime_ensure_started())
        return NULL;
    hp_location *loc = location_new();
    if (loc == NULL) {
        atomic_fetch_add(&refused_count, 1);
        hp__tls_location = &unmeasured_location;
        return NULL;
    }
    if (loc->metrics != NULL && hp_metrics_thread_start(loc->metrics))
        hp__metrics_enter(loc->metrics, loc->cct.root->counters);
    loc->start_time = hp_timer_now();
    if (loc->tracing) { /* the program root: a location's first event is an Enter */
        hp_trace_add(&loc->trace, HP_TRACE_ENTER, loc->cct.root->region->id, loc->start_time);
        if (loc->metrics != NULL)
            hp_metrics_trace(loc->metrics, &loc->trace, loc->start_time);
    }
    location_publish(loc);
    pthread_once(&thread_end_once, create_thread_end_key);
    pthread_setspecific(thread_end_key, loc);
    hp__tls_location = loc;
    hp_sampling_thread_start(loc);
    return loc;
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

void hp__location_stack_shrink(hp_location *loc)
{
    hp_stack_chunk *prev = loc->chunk->prev;
    use_chunk(loc, prev);
    loc->sp = prev->limit;
}

/* The node of the frame below f (in chunk c), or the root for the outermost frame. */
static hp_cct_node *outer_node(const hp_location *loc, const hp_stack_chunk *c,
                               const hp_frame *f)
{
    if (f > c->base)
        return f[-1].node;
    return c->prev != NULL ? c->prev->limit[-1].node : loc->cct.root;
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
            hp_sampling_path_add(f->parent, outer_node(loc, c, f), now - f->start);
            if (m != NULL)
                hp_sampling_path_counters(f->parent, outer_node(loc, c, f), m->last, m->n, 1);
            if (loc->tracing) { /* innermost first: the trace stays balanced */
                if (m != NULL)
                    hp_metrics_trace(m, &loc->trace, now);
                hp_trace_add(&loc->trace, HP_TRACE_LEAVE, f->node->region->id, now);
            }
        }
    }
    loc->end_time = now;
    hp_cct_node *root = loc->cct.root;
    root->incl_ticks = root->min_ticks = root->max_ticks = now - loc->start_time;
    if (m != NULL)
        hp_metrics_add_last(m, root->counters);
    if (loc->tracing) {
        if (m != NULL)
            hp_metrics_trace(m, &loc->trace, now);
        hp_trace_add(&loc->trace, HP_TRACE_LEAVE, root->region->id, now);
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
