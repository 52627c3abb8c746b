/*
 * dlsym(RTLD_NEXT) with a cache and one message for a symbol that is missing
 * (util/next_symbol.h).
 */
#include "util/next_symbol.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/log.h"

/* Kept in a cache for a symbol that was looked for and not found. */
static char missing_marker;
#define MISSING ((void *)&missing_marker)

void *hp_next_symbol(void **cache, const char *name, hp_next_symbol_fallback fallback)
{
    void *p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (p != NULL)
        return p == MISSING ? NULL : p;
    p = dlsym(RTLD_NEXT, name);
    if (p == NULL && fallback != NULL)
        p = fallback(name);
    if (p != NULL) {
        __atomic_store_n(cache, p, __ATOMIC_RELEASE);
        return p;
    }
    void *expected = NULL;
    /* Only the thread that marks the symbol missing says so. */
    if (__atomic_compare_exchange_n(cache, &expected, MISSING, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        hp_warn("cannot find the next definition of %s after hpmeasure's (is the library "
                "that defines it loaded?)", name);
    return NULL;
}
