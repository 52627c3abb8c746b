/*
 * The per-process memory budget. One mmap at start-up reserves the whole budget with
 * MAP_NORESERVE, so an untouched budget costs address space, not memory; after that a
 * page is one atomic fetch-add, which is lock-free and safe in a signal handler.
 */
#include "memory.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

static char *budget_base;
static uint64_t budget_size;
static _Atomic uint64_t budget_used;
static _Atomic uint64_t budget_failed;

int hp_memory_init(uint64_t total_bytes)
{
    uint64_t size = (total_bytes / HP_PAGE_SIZE) * HP_PAGE_SIZE;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    /* Large budgets are mostly trace buffers written once front to back: huge pages
     * turn hundreds of thousands of first-touch page faults into a few hundred. */
    madvise(p, size, MADV_HUGEPAGE);
    budget_base = p;
    budget_size = size;
    atomic_store(&budget_used, 0);
    atomic_store(&budget_failed, 0);
    return 0;
}

void *hp_memory_pages(size_t bytes)
{
    uint64_t size = ((bytes + HP_PAGE_SIZE - 1) / HP_PAGE_SIZE) * HP_PAGE_SIZE;
    uint64_t used = atomic_load_explicit(&budget_used, memory_order_relaxed);
    do { /* compare-and-swap, so a refused request does not eat what is left */
        if (budget_base == NULL || size > budget_size - used) {
            atomic_fetch_add_explicit(&budget_failed, 1, memory_order_relaxed);
            return NULL;
        }
    } while (!atomic_compare_exchange_weak_explicit(&budget_used, &used, used + size,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    return budget_base + used; /* fresh anonymous pages are zero */
}

void *hp_arena_alloc(hp_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size > HP_PAGE_SIZE / 2)
        return hp_memory_pages(size);
    if ((size_t)(a->end - a->next) < size) {
        char *page = hp_memory_pages(HP_PAGE_SIZE);
        if (page == NULL)
            return NULL;
        a->next = page;
        a->end = page + HP_PAGE_SIZE;
    }
    void *p = a->next;
    a->next += size;
    return p;
}

char *hp_arena_strdup(hp_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = hp_arena_alloc(a, n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

void hp_memory_get_stats(hp_memory_stats *out)
{
    out->total = budget_size;
    out->used = atomic_load(&budget_used);
    out->failed_requests = atomic_load(&budget_failed);
}

uint32_t hp_memory_index(const void *p)
{
    const char *c = p;
    if (c == NULL || budget_base == NULL || c < budget_base || c >= budget_base + budget_size)
        return 0;
    uint64_t units = (uint64_t)(c - budget_base) / 16 + 1;
    return units <= UINT32_MAX ? (uint32_t)units : 0;
}

void *hp_memory_at(uint32_t index)
{
    return index != 0 && budget_base != NULL ? budget_base + (uint64_t)(index - 1) * 16 : NULL;
}

int hp_memory_exhausted(void)
{
    return atomic_load_explicit(&budget_failed, memory_order_relaxed) != 0;
}
