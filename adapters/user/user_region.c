/*
 * The user region adapter: HP_USER_REGION_BEGIN/END and the scope forms of
 * include/hp/user.h.
 *
 * A region's handle is static storage at its site. The first BEGIN defines the region
 * through the registry (keyed by the handle's address, filtered by name and file like a
 * compiler region) and stores it in the handle, or HP_REGION_FILTERED; every later BEGIN
 * and END loads it from there. The frame pushed for a region carries the handle's address,
 * so END matches it as the compiler adapter matches a function's exit. errno is preserved
 * on the cold path: these calls sit between arbitrary statements of the user's code.
 */
#include <errno.h>
#include <stdint.h>

#include "adapters/user/internal.h"
#include "include/hp/user.h"
#include "measurement/core/event.h"
#include "measurement/core/location.h"
#include "measurement/runtime/thread_attach.h"
#include "measurement/core/region.h"
#include "util/compiler.h"

/* Filtered regions push no frame, so the parameters set inside one would outlive it.
 * Each thread remembers the depth at which its open filtered regions began (the
 * innermost FILTERED_NEST_MAX of them), and their END closes the parameter frames above. */
enum { FILTERED_NEST_MAX = 32 };
static _Thread_local struct filtered_open {
    uint32_t count;
    uint64_t depth[FILTERED_NEST_MAX];
} filtered_open;

static void filtered_begin(const hp_location *loc)
{
    if (filtered_open.count < FILTERED_NEST_MAX)
        filtered_open.depth[filtered_open.count] = loc->depth;
    filtered_open.count++;
}

static void filtered_end(hp_location *loc)
{
    if (filtered_open.count == 0)
        return;
    uint32_t i = --filtered_open.count;
    if (i >= FILTERED_NEST_MAX || loc->depth <= filtered_open.depth[i])
        return;
    hp_location_enter_core(loc);
    hp__user_close_parameters(loc, filtered_open.depth[i], hp_timer_now());
    hp_location_leave_core(loc);
}

static const char *role_of(int type)
{
    switch (type) {
    case HP_USER_REGION_TYPE_FUNCTION:
        return "function";
    case HP_USER_REGION_TYPE_LOOP:
        return "loop";
    case HP_USER_REGION_TYPE_PHASE:
        return "phase";
    default:
        return "user";
    }
}

static inline hp_region *handle_region(const hp_user_region *handle)
{
    return (hp_region *)__atomic_load_n(&handle->hp_private, __ATOMIC_ACQUIRE);
}

/* First BEGIN of a site: its region (or HP_REGION_FILTERED) remembered in the handle;
 * NULL when the budget is used up (the handle stays empty, so a later BEGIN retries). */
static HP_COLD hp_region *define(hp_location *loc, hp_user_region *handle, const char *name,
                                 int type, const char *file, int line)
{
    int saved = errno;
    atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE);
    hp_region *r = hp_region_for_user((uintptr_t)handle, name != NULL ? name : "(null)",
                                      file != NULL ? file : "", line, role_of(type));
    atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
    errno = saved;
    if (r != NULL)
        __atomic_store_n(&handle->hp_private, (uintptr_t)r, __ATOMIC_RELEASE);
    return r;
}

void hp_user_region_begin(hp_user_region *handle, const char *name, int type,
                          const char *file, int line)
{
    hp_location *loc = hp_location_get();
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return;
    hp_region *r = handle_region(handle);
    if (unlikely(r == NULL) && (r = define(loc, handle, name, type, file, line)) == NULL)
        return;
    if (r == HP_REGION_FILTERED) {
        filtered_begin(loc);
        return;
    }
    hp_location_enter_core(loc);
    hp_event_enter(loc, r, (uintptr_t)handle);
    hp_location_leave_core(loc);
}

void hp_user_region_end(hp_user_region *handle)
{
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return;
    hp_region *r = handle_region(handle);
    if (r == HP_REGION_FILTERED)
        filtered_end(loc);
    if (r == NULL || r == HP_REGION_FILTERED)
        return;
    uintptr_t key = (uintptr_t)handle;
    hp_location_enter_core(loc);
    uint64_t now = hp_timer_now();
    hp__user_close_parameters(loc, 0, now);
    if (likely(hp_event_exit_matches(loc, key)))
        hp_event_pop(loc, now);
    else
        hp__event_exit_mismatch(loc, key, now);
    hp_location_leave_core(loc);
}

hp_user_region *hp_user_scope_begin(hp_user_region *handle, const char *name, int type,
                                    const char *file, int line)
{
    hp_user_region_begin(handle, name, type, file, line);
    return handle;
}

void hp_user_scope_end(hp_user_region **handle_ptr)
{
    hp_user_region_end(*handle_ptr);
}
