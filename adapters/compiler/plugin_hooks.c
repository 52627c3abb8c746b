/*
 * The compiler adapter for code built with hpmeasure's GCC plug-in (plugin_abi.h).
 *
 * Each instrumented function hands its static descriptor to the hooks: the region is
 * defined from the descriptor's names on the first call (no symbol lookup, no address
 * cache) and remembered in the descriptor, so later calls go straight to the event.
 * A region the run time switches off (run-time filter, overhead budget) is marked in the
 * descriptor's first word, which the instrumented code checks before calling in: such a
 * function no longer calls the hooks at all. errno is preserved on the cold path, as in
 * cyg_hooks.c, because the hooks run between arbitrary statements of the user's code.
 */
#include <errno.h>
#include <stdint.h>

#include "adapters/compiler/plugin_abi.h"
#include "measurement/core/overhead.h"
#include "measurement/core/event.h"
#include "measurement/core/location.h"
#include "measurement/runtime/thread_attach.h"
#include "measurement/sampling/sampling.h"
#include "measurement/core/region.h"
#include "util/compiler.h"
#include "util/log.h"

HP_API uintptr_t *__hp_plugin_enter(uintptr_t *desc);
HP_API void __hp_plugin_exit(uintptr_t *desc);
HP_API void __hp_plugin_unit(const uintptr_t *unit);
HP_API void __hp_plugin_fallback(const uintptr_t *note);

static inline uintptr_t desc_load(const uintptr_t *desc, int word)
{
    return __atomic_load_n(&desc[word], __ATOMIC_ACQUIRE);
}

static inline void desc_store(uintptr_t *desc, int word, uintptr_t value)
{
    __atomic_store_n(&desc[word], value, __ATOMIC_RELEASE);
}

/* The function's key: its address, or the descriptor's when it has none of its own
 * (inlined everywhere, see hpmeasure_gcc.cc). */
static inline uintptr_t desc_function(const uintptr_t *desc)
{
    return desc[HP_DESC_FN] != 0 ? desc[HP_DESC_FN] : (uintptr_t)desc;
}

/* First call of a function: its region from the descriptor, or NULL after switching
 * the descriptor off (filtered, no budget left, unknown layout). */
static HP_COLD hp_region *describe(hp_location *loc, uintptr_t *desc)
{
    if (desc[HP_DESC_VERSION] != HP_PLUGIN_ABI_VERSION) {
        hp_warn_once("code built by another version of the GCC plug-in is not measured; "
                     "rebuild it with this hp-instrument");
        desc_store(desc, HP_DESC_OFF, HP_DESC_OFF_REFUSED);
        return NULL;
    }
    int saved = errno;
    atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE);
    hp_region *r = hp_region_for_described(desc_function(desc), (const char *)desc[HP_DESC_NAME],
                                           (const char *)desc[HP_DESC_MANGLED],
                                           (const char *)desc[HP_DESC_FILE],
                                           (int)desc[HP_DESC_LINE]);
    atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
    errno = saved;
    if (r == HP_REGION_FILTERED || r == NULL) {
        desc_store(desc, HP_DESC_OFF, r == NULL ? HP_DESC_OFF_REFUSED : HP_DESC_OFF_FILTERED);
        return NULL;
    }
    desc_store(desc, HP_DESC_REGION, (uintptr_t)r);
    return r;
}

/* The enter of a function's first call (cold): a sample taken before it may have counted
 * the visit this enter counts (hp_sampling_first_enter takes it back). */
static HP_COLD uintptr_t *enter_first(hp_location *loc, uintptr_t *desc)
{
    hp_region *r = describe(loc, desc);
    if (r == NULL)
        return NULL;
    hp_location_enter_core(loc);
    hp_sampling_first_enter(loc, r, desc_function(desc));
    hp_location_leave_core(loc);
    return desc;
}

/* Switches the function off for every thread; frames already pushed still get their
 * exits, since the instrumented code remembers whether its enter pushed one. */
static HP_COLD void demote(uintptr_t *desc, hp_region *r)
{
    uintptr_t on = 0;
    if (__atomic_compare_exchange_n(&desc[HP_DESC_OFF], &on, HP_DESC_OFF_DEMOTED, false,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        hp_overhead_record_demotion(r);
}

/* A thread's first event: the plug-in tells GCC that the hooks keep errno (hpmeasure_gcc.cc,
 * "fn spec"), and starting the run time or a thread's location may set it. */
static HP_COLD hp_location *attach(void)
{
    int saved = errno;
    hp_location *loc = hp__location_attach();
    errno = saved;
    return loc;
}

uintptr_t *__hp_plugin_enter(uintptr_t *desc)
{
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL))
        loc = attach();
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return NULL;
    hp_region *r = (hp_region *)desc_load(desc, HP_DESC_REGION);
    if (unlikely(r == NULL))
        return enter_first(loc, desc);
    hp_location_enter_core(loc);
    hp_event_enter(loc, r, desc_function(desc));
    hp_location_leave_core(loc);
    return desc;
}

void __hp_plugin_exit(uintptr_t *desc)
{
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)))
        return;
    uintptr_t addr = desc_function(desc);
    hp_location_enter_core(loc);
    if (hp_event_exit_unrecorded(loc)) {
        hp_location_leave_core(loc);
        return;
    }
    uint64_t now = hp_timer_now();
    if (likely(hp_event_exit_matches(loc, addr))) {
        hp_cct_node *node = loc->sp[-1].node;
        hp_event_pop(loc, now);
        if (unlikely(hp__overhead_budget_on) && node != NULL && hp_overhead_check_due(node) &&
            hp__overhead_over_budget(node))
            demote(desc, node->region);
    } else {
        hp__event_exit_mismatch(loc, addr, now);
    }
    hp_location_leave_core(loc);
}

void __hp_plugin_unit(const uintptr_t *unit)
{
    if (unit[HP_UNIT_VERSION] != HP_PLUGIN_ABI_VERSION)
        return;
    uint64_t counts[HP_INSTR_COUNTS] = {
        [HP_INSTR_INSTRUMENTED] = unit[HP_UNIT_INSTRUMENTED],
        [HP_INSTR_INLINE] = unit[HP_UNIT_INLINE],
        [HP_INSTR_ARTIFICIAL] = unit[HP_UNIT_ARTIFICIAL],
        [HP_INSTR_SYSTEM] = unit[HP_UNIT_SYSTEM],
        [HP_INSTR_FILTERED] = unit[HP_UNIT_FILTERED],
    };
    hp_overhead_add_unit(counts);
}

void __hp_plugin_fallback(const uintptr_t *note)
{
    if (note[HP_FALLBACK_VERSION] != HP_PLUGIN_ABI_VERSION)
        return;
    hp_overhead_add_fallback((const char *)note[HP_FALLBACK_FILE],
                             (const char *)note[HP_FALLBACK_FAILED],
                             (const char *)note[HP_FALLBACK_USED]);
}
