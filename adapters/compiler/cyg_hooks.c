/*
 * The compiler adapter: gcc's and clang's -finstrument-functions hooks.
 *
 * Each hook gets the per-thread location, asks the location's small direct-mapped
 * cache which region the function address is (a miss goes to the registry, which
 * symbolizes and filters on first sight), and enters or leaves that region. A filtered
 * function costs the cache probe on enter and on exit and nothing else. errno is
 * preserved because the hooks run between arbitrary statements of the user's code.
 */
#include <errno.h>
#include <stdint.h>

#include "measurement/core/event.h"
#include "measurement/core/location.h"
#include "measurement/runtime/thread_attach.h"
#include "measurement/sampling/sampling.h"
#include "measurement/core/region.h"
#include "util/compiler.h"
#include "util/hash.h"

HP_API void __cyg_profile_func_enter(void *fn, void *call_site);
HP_API void __cyg_profile_func_exit(void *fn, void *call_site);

static inline hp_cache_entry *cache_slot(hp_location *loc, uintptr_t addr)
{
    return &loc->cache[hp_hash_top(addr, 8) & (HP_REGION_CACHE_SIZE - 1)];
}

/* Region of addr via the registry (first sight symbolizes), remembered in the cache. */
static HP_COLD hp_region *cache_fill(hp_location *loc, hp_cache_entry *e, uintptr_t addr)
{
    int saved = errno;
    atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE);
    hp_region *r = hp_region_for_address(addr);
    atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
    errno = saved;
    if (r != NULL) {
        e->addr = addr;
        e->region = r;
    }
    return r;
}

static inline hp_region *region_of(hp_location *loc, uintptr_t addr)
{
    hp_cache_entry *e = cache_slot(loc, addr);
    if (likely(e->addr == addr))
        return e->region;
    return cache_fill(loc, e, addr);
}

/* An enter that missed the cache: the thread's first of this function unless the cache
 * lost it since, so a sample taken before it may have counted the visit this enter
 * counts (hp_sampling_first_enter takes it back). */
static HP_COLD void enter_uncached(hp_location *loc, hp_cache_entry *e, uintptr_t addr)
{
    hp_region *r = cache_fill(loc, e, addr);
    if (r != NULL && r != HP_REGION_FILTERED)
        hp_sampling_first_enter(loc, r, addr);
}

void __cyg_profile_func_enter(void *fn, void *call_site)
{
    (void)call_site;
    hp_location *loc = hp_location_get();
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return;
    uintptr_t addr = (uintptr_t)fn;
    hp_location_enter_core(loc);
    hp_cache_entry *e = cache_slot(loc, addr);
    if (likely(e->addr == addr)) {
        hp_region *r = e->region;
        if (likely(r != NULL && r != HP_REGION_FILTERED))
            hp_event_enter(loc, r, addr);
    } else {
        enter_uncached(loc, e, addr);
    }
    hp_location_leave_core(loc);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
    (void)call_site;
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return;
    uintptr_t addr = (uintptr_t)fn;
    hp_location_enter_core(loc);
    hp_region *r = region_of(loc, addr);
    if (likely(r != NULL && r != HP_REGION_FILTERED))
        hp_event_exit(loc, addr);
    hp_location_leave_core(loc);
}
