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
#include "timer.h"

_Thread_local hp_location *hp__tls_location __attribute__((tls_model("initial-exec")));

static _Atomic(hp_location *) location_list;
static _Atomic uint32_t location_count;
static hp_region *root_region;
static pthread_key_t thread_end_key;
static pthread_once_t thread_end_once = PTHREAD_ONCE_INIT;

void hp_location_set_root_region(hp_region *root)
{
    root_region = root;
}

static void on_thread_end(void *arg)
{
    hp_location *loc = arg;
    if (!loc->busy) {
        loc->busy = 1;
        hp_location_close(loc, hp_timer_now());
        loc->ended = true;
    }
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
    if (hp_cct_init(&loc->cct, &loc->arena, root_region) < 0)
        return NULL;
    use_chunk(loc, c);
    loc->sp = c->base;
    loc->current = loc->cct.root;
    loc->cct.root->visits = 1;
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
        hp_runtime_note_memory_exhausted();
        return NULL;
    }
    loc->start_time = hp_timer_now();
    location_publish(loc);
    pthread_once(&thread_end_once, create_thread_end_key);
    pthread_setspecific(thread_end_key, loc);
    hp__tls_location = loc;
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

void hp_location_close(hp_location *loc, uint64_t now)
{
    while (loc->depth > 0) {
        if (loc->sp == loc->stack_base)
            hp__location_stack_shrink(loc);
        hp_frame *f = --loc->sp;
        loc->depth--;
        if (f->node != NULL)
            hp_cct_visit_end(f->node, now - f->start);
    }
    loc->current = loc->cct.root;
    loc->end_time = now;
    hp_cct_node *root = loc->cct.root;
    root->incl_ticks = root->min_ticks = root->max_ticks = now - loc->start_time;
}

hp_location *hp_location_stop_all(void)
{
    for (hp_location *l = atomic_load(&location_list); l != NULL; l = l->next)
        l->busy = 1;
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
