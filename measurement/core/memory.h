/*
 * The memory budget: all measurement memory comes from one per-process reservation of
 * HP_TOTAL_MEMORY bytes, handed out in pages by an atomic bump pointer (no lock, no
 * system call after start-up). Nothing is ever returned: measurement data lives until
 * the experiment is written. When the budget is used up, allocation returns NULL, the
 * failure is counted, and callers degrade (stop growing) instead of failing.
 *
 * An arena hands out small objects from pages; one arena per location needs no lock.
 */
#ifndef HP_MEASUREMENT_MEMORY_H
#define HP_MEASUREMENT_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#define HP_PAGE_SIZE (32u * 1024u)

typedef struct hp_arena {
    char *next;
    char *end;
} hp_arena;

/* Reserves the budget (address space only; pages are committed on first touch).
 * Returns 0 or -1. */
int hp_memory_init(uint64_t total_bytes);

/* Zeroed, page-aligned memory of at least `bytes` (rounded up to whole pages), or NULL
 * when the budget is used up. Lock-free; async-signal-safe. */
void *hp_memory_pages(size_t bytes);

/* Zeroed memory of `size` bytes aligned to 16 from the arena, taking a new page when
 * needed; NULL when the budget is used up. Objects larger than a page get their own
 * pages. Not thread-safe: one arena per thread, or a lock around it. */
void *hp_arena_alloc(hp_arena *a, size_t size);

/* Copies a string into the arena; NULL when the budget is used up. */
char *hp_arena_strdup(hp_arena *a, const char *s);

typedef struct hp_memory_stats {
    uint64_t total;           /* budget in bytes */
    uint64_t used;            /* bytes handed out as pages */
    uint64_t failed_requests; /* allocations refused because the budget was used up */
} hp_memory_stats;

void hp_memory_get_stats(hp_memory_stats *out);

/* A budget address as a 32-bit number (its offset in 16-byte units, plus one), for
 * records that must stay small; 0 for NULL or an address outside the budget. Objects of
 * hp_arena_alloc and hp_memory_pages are 16-byte aligned, so hp_memory_at gives back the
 * same address. */
uint32_t hp_memory_index(const void *p);
void *hp_memory_at(uint32_t index);

/* True once an allocation has been refused. */
int hp_memory_exhausted(void);

#endif
