/*
 * The region registry: one definition per measured code region (an instrumented
 * function, later an MPI function or a user region), keyed by code address for the
 * compiler adapter.
 *
 * The first sight of an address resolves it (name, mangled name, file:line through
 * symbols.c) and applies the filter; that cold path takes a mutex. Lookups of known
 * addresses read a lock-free hash table that is only ever replaced by a larger copy,
 * never changed in place under a reader, so a reader needs no lock. Filtered addresses
 * are recorded too, as HP_REGION_FILTERED, so a filtered call costs a lookup, not a
 * symbolization.
 */
#ifndef HP_MEASUREMENT_REGION_H
#define HP_MEASUREMENT_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum hp_paradigm {
    HP_PARADIGM_MEASUREMENT,
    HP_PARADIGM_COMPILER,
    HP_PARADIGM_USER,
    HP_PARADIGM_MPI,
    HP_PARADIGM_OPENMP,
    HP_PARADIGM_PTHREAD
} hp_paradigm;

/* Cube region roles (Score-P's names); a region stores one of these strings. */
#define HP_ROLE_FUNCTION "function"
#define HP_ROLE_ARTIFICIAL "artificial"

typedef struct hp_region {
    uint32_t id;    /* dense, in order of definition */
    uintptr_t addr; /* code address, 0 for regions that have none */
    const char *name;
    const char *mangled;
    const char *file; /* "" when unknown */
    int line;         /* -1 when unknown */
    hp_paradigm paradigm;
    const char *role; /* HP_ROLE_* or another Score-P role, a static string */
    bool demoted;     /* switched off by the overhead budget (overhead.h) */
    uint8_t subtree;  /* HP_SUBTREE_* (subtree.h): starts or ends measured subtrees */
} hp_region;

/* Stands for "this address is filtered out" in the registry and the location caches. */
#define HP_REGION_FILTERED ((hp_region *)(uintptr_t)1)

struct hp_filter;
struct hp_arena;

/* Sets up the registry. filter may be NULL. Returns 0 or -1 (budget too small). */
int hp_region_init(const struct hp_filter *filter);

/* Lock-free lookup of a known address; NULL when it has not been seen yet. */
hp_region *hp_region_find(uintptr_t addr);

/* The region of a code address, defining it on first sight (cold path: symbolizes,
 * filters, takes the registry mutex). Returns HP_REGION_FILTERED for a filtered
 * address, NULL when the budget is used up. */
hp_region *hp_region_for_address(uintptr_t addr);

/* Same as hp_region_for_address for a function that the GCC plug-in described at compile
 * time: no symbolization, the filter applies to the given names. */
hp_region *hp_region_for_described(uintptr_t addr, const char *name, const char *mangled,
                                   const char *file, int line);

/* Same as hp_region_for_described for a user region (include/hp/user.h): key is the
 * address of its handle, role a static string; the filter applies to name and file. */
hp_region *hp_region_for_user(uintptr_t key, const char *name, const char *file, int line,
                              const char *role);

/* Defines a region that has no code address (the program root, later MPI and user
 * regions). Returns NULL when the budget is used up. */
hp_region *hp_region_define(const char *name, const char *file, int line,
                            hp_paradigm paradigm, const char *role);

/* Source file (copied into file, at most size bytes) and line of the code at addr from
 * the line table (symbols.h, hp_symbols_code_line). Cold path: takes the registry lock.
 * Returns 0, or -1 when unknown. */
int hp_region_code_line(uintptr_t addr, char *file, size_t size, int *line);

/* Reserves the table of sampled functions (sampling start-up). Returns 0 or -1. */
int hp_region_enable_sampling(void);

/* Sampling (async-signal-safe, lock-free): the region of a function start address
 * found by unwinding. A known, measured address gives its region; otherwise (filtered or
 * not seen yet) a placeholder is created from `arena` (the calling thread's, which must not
 * be in use) that carries only the address: its name and id are filled in by
 * hp_region_resolve_sampled() or when the compiler adapter meets the address. Returns
 * NULL when the sampled-address table is full or the budget is used up. */
hp_region *hp_region_for_sample(uintptr_t start, struct hp_arena *arena);

/* Names and numbers every placeholder made by hp_region_for_sample (symbolizing without
 * the filter: sampled code is shown even where instrumentation was filtered). Called after
 * measurement stopped, before profiles are built. */
void hp_region_resolve_sampled(void);

/* The same for one placeholder, now: for a region about to be entered like a measured
 * one (an OpenMP team thread enters its forking path), whose trace events need its
 * number. Cold (symbolizes, takes the registry lock, mallocs); not in signal handlers. */
void hp_region_name_sampled(hp_region *r);

/* Number of regions defined so far, and region number `id` (< count). */
uint32_t hp_region_count(void);
hp_region *hp_region_at(uint32_t id);

/* Addresses whose symbol could not be found (named "UNKNOWN@0x..."). */
uint64_t hp_region_unknown_count(void);

const char *hp_paradigm_name(hp_paradigm p);

#endif
