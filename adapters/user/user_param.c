/*
 * User parameters (HP_USER_PARAMETER_INT, HP_USER_PARAMETER_STRING): a parameter opens a
 * node "name=value" below the current call path, as Score-P's user parameters do, so the
 * code that follows is measured once per value. The node stays open until the innermost
 * enclosing user region ends (user_region.c closes it).
 *
 * Each distinct (name, value) is one region, found in a fixed-size open-addressing table
 * whose slots go from empty to an entry exactly once, so lookups need no lock. The first
 * sight of a value takes table_lock, formats the name and defines the region (cold path).
 * When the table or the budget is full, further new values are not recorded (counted),
 * and their code stays with the enclosing path.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "adapters/user/internal.h"
#include "include/hp/user.h"
#include "measurement/core/event.h"
#include "measurement/core/location.h"
#include "measurement/runtime/thread_attach.h"
#include "measurement/core/memory.h"
#include "measurement/core/region.h"
#include "util/compiler.h"
#include "util/hash.h"

/* At most this many distinct (name, value) pairs per process; a table of 64 KiB. */
enum { TABLE_CAPACITY = 1u << 13, TABLE_MAX_USED = TABLE_CAPACITY / 4 * 3, NAME_MAX_LEN = 256 };

typedef struct param_entry {
    uint64_t hash;
    const char *name;
    const char *text;  /* the string value, NULL for an integer */
    int64_t value;     /* the integer value */
    hp_region *region;
} param_entry;

const char hp__user_parameter_tag;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(_Atomic(param_entry *) *) table;
static uint32_t table_used;
static hp_arena entry_arena;
static _Atomic uint64_t lost_values; /* new values not recorded: table or budget full */

/* Slots are taken from the hash's top bits (hash >> 40), which both chains mix well. */
static uint64_t hash_of(const char *name, const char *text, int64_t value)
{
    uint64_t h = hp_hash_str(HP_HASH_SEED, name);
    if (text != NULL)
        return hp_hash_str(h, text);
    return hp_hash_mix(hp_hash_u64(h, (uint64_t)value));
}

static bool entry_is(const param_entry *e, uint64_t hash, const char *name, const char *text,
                     int64_t value)
{
    if (e->hash != hash || strcmp(e->name, name) != 0)
        return false;
    if (text == NULL || e->text == NULL)
        return text == e->text && e->value == value;
    return strcmp(e->text, text) == 0;
}

/* The slot of (name, text, value) in t: its entry, or the empty slot where it belongs;
 * NULL when the table is full and lacks it. */
static _Atomic(param_entry *) *slot_of(_Atomic(param_entry *) *t, uint64_t hash,
                                       const char *name, const char *text, int64_t value)
{
    for (uint32_t i = (uint32_t)(hash >> 40) & (TABLE_CAPACITY - 1), n = 0; n < TABLE_CAPACITY;
         i = (i + 1) & (TABLE_CAPACITY - 1), n++) {
        param_entry *e = atomic_load_explicit(&t[i], memory_order_acquire);
        if (e == NULL || entry_is(e, hash, name, text, value))
            return &t[i];
    }
    return NULL;
}

/* "name=value", truncated to NAME_MAX_LEN - 1 bytes. */
static void format_name(char *out, const char *name, const char *text, int64_t value)
{
    if (text != NULL)
        snprintf(out, NAME_MAX_LEN, "%s=%s", name, text);
    else
        snprintf(out, NAME_MAX_LEN, "%s=%" PRId64, name, value);
}

/* Makes the entry of a value not seen yet (caller holds table_lock). */
static param_entry *entry_new(uint64_t hash, const char *name, const char *text, int64_t value)
{
    char full[NAME_MAX_LEN];
    param_entry *e = hp_arena_alloc(&entry_arena, sizeof(*e));
    if (e == NULL || (e->name = hp_arena_strdup(&entry_arena, name)) == NULL)
        return NULL;
    if (text != NULL && (e->text = hp_arena_strdup(&entry_arena, text)) == NULL)
        return NULL;
    e->hash = hash;
    e->value = value;
    format_name(full, name, text, value);
    e->region = hp_region_define(full, "", -1, HP_PARADIGM_USER, "parameter");
    return e->region != NULL ? e : NULL;
}

/* First sight of a value (cold): defines its region under the lock. NULL when the table
 * or the budget is full. */
static HP_COLD hp_region *define(hp_location *loc, uint64_t hash, const char *name,
                                 const char *text, int64_t value)
{
    int saved = errno;
    hp_region *r = NULL;
    atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE);
    pthread_mutex_lock(&table_lock);
    _Atomic(param_entry *) *t = atomic_load_explicit(&table, memory_order_relaxed);
    if (t == NULL && (t = hp_memory_pages(TABLE_CAPACITY * sizeof(*t))) != NULL)
        atomic_store_explicit(&table, t, memory_order_release);
    _Atomic(param_entry *) *slot = t != NULL ? slot_of(t, hash, name, text, value) : NULL;
    param_entry *e = slot != NULL ? atomic_load_explicit(slot, memory_order_relaxed) : NULL;
    if (e == NULL && slot != NULL && table_used < TABLE_MAX_USED &&
        (e = entry_new(hash, name, text, value)) != NULL) {
        atomic_store_explicit(slot, e, memory_order_release);
        table_used++;
    }
    if (e != NULL)
        r = e->region;
    else
        atomic_fetch_add_explicit(&lost_values, 1, memory_order_relaxed);
    pthread_mutex_unlock(&table_lock);
    atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
    errno = saved;
    return r;
}

static hp_region *region_of(hp_location *loc, const char *name, const char *text,
                            int64_t value)
{
    uint64_t hash = hash_of(name, text, value);
    _Atomic(param_entry *) *t = atomic_load_explicit(&table, memory_order_acquire);
    _Atomic(param_entry *) *slot = t != NULL ? slot_of(t, hash, name, text, value) : NULL;
    param_entry *e = slot != NULL ? atomic_load_explicit(slot, memory_order_acquire) : NULL;
    if (likely(e != NULL))
        return e->region;
    return define(loc, hash, name, text, value);
}

/* Pushes the parameter's frame. An enter dropped at the depth limit or for want of budget
 * is not left for the region's END to match: that END closes its own frame instead. */
static void open_parameter(const char *name, const char *text, int64_t value)
{
    hp_location *loc = hp_location_get();
    if (unlikely(loc == NULL || hp_location_ignores_events(loc)) || name == NULL)
        return;
    hp_region *r = region_of(loc, name, text, value);
    if (unlikely(r == NULL) || loc->dropped_depth > 0)
        return;
    hp_location_enter_core(loc);
    hp_event_enter(loc, r, HP_USER_PARAMETER_FRAME);
    loc->dropped_depth = 0;
    hp_location_leave_core(loc);
}

void hp_user_parameter_int(const char *name, int64_t value)
{
    open_parameter(name, NULL, value);
}

void hp_user_parameter_string(const char *name, const char *value)
{
    open_parameter(name, value != NULL ? value : "(null)", 0);
}
