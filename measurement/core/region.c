/*
 * Region registry: definitions in an array indexed by id, and an address -> region hash
 * table (open addressing, linear probing) for the compiler adapter.
 *
 * Writers (first sight of an address, definitions) hold registry_lock. Readers probe the
 * table without a lock: a slot's value is stored before its key is published with a
 * release store, and a full table is replaced by a larger copy, never rehashed in place,
 * so a reader holding the old table still sees a consistent (if incomplete) table and
 * falls back to the locked path on a miss. Old tables are not freed: they come from the
 * budget, which is never returned anyway.
 */
#include "region.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "filter.h"
#include "subtree.h"
#include "memory.h"
#include "symbols.h"
#include "util/hash.h"

typedef struct addr_slot {
    _Atomic uintptr_t key; /* 0 = empty */
    hp_region *value;
} addr_slot;

typedef struct addr_table {
    uint32_t mask; /* capacity - 1, capacity a power of two */
    uint32_t used;
    addr_slot slots[];
} addr_table;

enum {
    INITIAL_TABLE_CAPACITY = 1024,
    INITIAL_REGION_CAPACITY = 256,
    SAMPLED_MIN = 1u << 10, /* distinct sampled functions that are not measured: the */
    SAMPLED_MAX = 1u << 15  /* table takes at most 1/128 of the budget */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(addr_table *) table;
static hp_region **regions;
static uint32_t region_capacity;
static _Atomic uint32_t region_count;
static hp_arena registry_arena;
static const hp_filter *region_filter;
static int symbols_state; /* 0 = not started, 1 = ready, -1 = failed */
static uint64_t unknown_count;
/* Placeholders of sampled functions, by start address: a fixed-size open-addressing table
 * whose slots go from NULL to a region exactly once (CAS), so signal handlers of any
 * thread can insert and look up without a lock. */
static _Atomic(hp_region *) *sampled;
static uint32_t sampled_capacity; /* a power of two */

static int regions_append(hp_region *r);

static inline uint32_t addr_hash(uintptr_t addr)
{
    return hp_hash_top(addr, 32);
}

static addr_table *table_new(uint32_t capacity)
{
    addr_table *t = hp_memory_pages(sizeof(addr_table) + capacity * sizeof(addr_slot));
    if (t != NULL)
        t->mask = capacity - 1;
    return t;
}

int hp_region_init(const hp_filter *filter)
{
    region_filter = filter;
    addr_table *t = table_new(INITIAL_TABLE_CAPACITY);
    regions = hp_memory_pages(INITIAL_REGION_CAPACITY * sizeof(hp_region *));
    if (t == NULL || regions == NULL)
        return -1;
    region_capacity = INITIAL_REGION_CAPACITY;
    atomic_store(&table, t);
    return 0;
}

/* The sampled table (up to 256 KiB of budget) is only taken when sampling is on. */
static _Atomic(hp_region *) *sampled_table(void)
{
    return atomic_load_explicit(&sampled, memory_order_acquire);
}

int hp_region_enable_sampling(void)
{
    hp_memory_stats m;
    hp_memory_get_stats(&m);
    uint32_t capacity = SAMPLED_MIN;
    while (capacity < SAMPLED_MAX && capacity * 2 * sizeof(hp_region *) <= m.total / 128)
        capacity *= 2;
    void *t = hp_memory_pages(capacity * sizeof(hp_region *));
    if (t == NULL)
        return -1;
    sampled_capacity = capacity;
    atomic_store_explicit(&sampled, t, memory_order_release);
    return 0;
}

/* The placeholder for start, or NULL. */
static hp_region *sampled_find(uintptr_t start)
{
    _Atomic(hp_region *) *t = sampled_table();
    if (t == NULL)
        return NULL;
    for (uint32_t i = addr_hash(start) & (sampled_capacity - 1), n = 0; n < sampled_capacity;
         i = (i + 1) & (sampled_capacity - 1), n++) {
        hp_region *r = atomic_load_explicit(&t[i], memory_order_acquire);
        if (r == NULL || r->addr == start)
            return r;
    }
    return NULL;
}

hp_region *hp_region_for_sample(uintptr_t start, hp_arena *arena)
{
    hp_region *r = hp_region_find(start);
    if (r != NULL && r != HP_REGION_FILTERED)
        return r;
    _Atomic(hp_region *) *t = sampled_table();
    if (t == NULL)
        return NULL;
    hp_region *mine = NULL;
    for (uint32_t i = addr_hash(start) & (sampled_capacity - 1), n = 0; n < sampled_capacity;
         i = (i + 1) & (sampled_capacity - 1), n++) {
        r = atomic_load_explicit(&t[i], memory_order_acquire);
        if (r == NULL) {
            if (mine == NULL && (mine = hp_arena_alloc(arena, sizeof(*mine))) == NULL)
                return NULL;
            mine->addr = start;
            mine->id = UINT32_MAX;
            mine->paradigm = HP_PARADIGM_COMPILER;
            mine->role = HP_ROLE_FUNCTION;
            if (atomic_compare_exchange_strong(&t[i], &r, mine))
                return mine;
            /* another thread took the slot: r is its region, fall through to compare */
        }
        if (r->addr == start)
            return r; /* `mine`, if allocated, stays unused in the arena */
    }
    return NULL;
}

/* Fills in a placeholder from its symbol (caller holds the lock). */
static int adopt_placeholder(hp_region *r, const char *name, const char *mangled,
                             const char *file, int line)
{
    r->name = hp_arena_strdup(&registry_arena, name);
    r->mangled = strcmp(mangled, name) == 0 ? r->name
                                            : hp_arena_strdup(&registry_arena, mangled);
    r->file = hp_arena_strdup(&registry_arena, file);
    if (r->name == NULL || r->mangled == NULL || r->file == NULL)
        return -1;
    r->line = line;
    r->subtree = (uint8_t)hp_subtree_flags(r->name, r->mangled);
    return regions_append(r);
}

hp_region *hp_region_find(uintptr_t addr)
{
    addr_table *t = atomic_load_explicit(&table, memory_order_acquire);
    if (t == NULL)
        return NULL;
    for (uint32_t i = addr_hash(addr) & t->mask;; i = (i + 1) & t->mask) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
        if (k == addr)
            return t->slots[i].value;
        if (k == 0)
            return NULL;
    }
}

/* Inserts into t, which has room (caller holds the lock). */
static void table_insert(addr_table *t, uintptr_t addr, hp_region *r)
{
    uint32_t i = addr_hash(addr) & t->mask;
    while (atomic_load_explicit(&t->slots[i].key, memory_order_relaxed) != 0)
        i = (i + 1) & t->mask;
    t->slots[i].value = r;
    atomic_store_explicit(&t->slots[i].key, addr, memory_order_release);
    t->used++;
}

/* Makes room for one more entry, replacing the table by a copy twice its size when it
 * is half full. Returns -1 when the budget is used up. */
static int table_reserve(void)
{
    addr_table *t = atomic_load_explicit(&table, memory_order_relaxed);
    if ((t->used + 1) * 2 <= t->mask + 1)
        return 0;
    addr_table *bigger = table_new((t->mask + 1) * 2);
    if (bigger == NULL)
        return -1;
    for (uint32_t i = 0; i <= t->mask; i++) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k != 0)
            table_insert(bigger, k, t->slots[i].value);
    }
    atomic_store_explicit(&table, bigger, memory_order_release);
    return 0;
}

/* Appends r to the id array (caller holds the lock). */
static int regions_append(hp_region *r)
{
    uint32_t n = atomic_load_explicit(&region_count, memory_order_relaxed);
    if (n == region_capacity) {
        hp_region **bigger = hp_memory_pages(2 * region_capacity * sizeof(hp_region *));
        if (bigger == NULL)
            return -1;
        memcpy(bigger, regions, region_capacity * sizeof(hp_region *));
        regions = bigger;
        region_capacity *= 2;
    }
    __atomic_store_n(&r->id, n, __ATOMIC_RELEASE); /* hp_region_name_sampled reads it */
    regions[n] = r;
    atomic_store_explicit(&region_count, n + 1, memory_order_release);
    return 0;
}

static hp_region *region_new(const char *name, const char *mangled, const char *file,
                             int line, hp_paradigm paradigm, const char *role)
{
    hp_region *r = hp_arena_alloc(&registry_arena, sizeof(*r));
    if (r == NULL)
        return NULL;
    r->name = hp_arena_strdup(&registry_arena, name);
    r->mangled = strcmp(mangled, name) == 0 ? r->name
                                            : hp_arena_strdup(&registry_arena, mangled);
    r->file = hp_arena_strdup(&registry_arena, file);
    if (r->name == NULL || r->mangled == NULL || r->file == NULL)
        return NULL;
    r->line = line;
    r->paradigm = paradigm;
    r->role = role;
    r->subtree = (uint8_t)hp_subtree_flags(r->name, r->mangled);
    return regions_append(r) == 0 ? r : NULL;
}

hp_region *hp_region_define(const char *name, const char *file, int line,
                            hp_paradigm paradigm, const char *role)
{
    pthread_mutex_lock(&registry_lock);
    hp_region *r = region_new(name, name, file, line, paradigm, role);
    pthread_mutex_unlock(&registry_lock);
    return r;
}

/* clang's outlined OpenMP code (".omp_outlined.", ".omp_outlined..12", their
 * "._debug__" bodies, ".omp_task_entry."), which clang instruments: the OpenMP adapter's
 * "!$omp parallel @file:line" stands for it, as for GCC's outlined functions, which GCC
 * does not instrument. */
static bool is_openmp_outlined(const char *name)
{
    return strncmp(name, ".omp_outlined.", 14) == 0 || strncmp(name, ".omp_task_entry.", 16) == 0;
}

/* Defines the region of an instrumented function at addr, or HP_REGION_FILTERED; a
 * placeholder made by sampling becomes the region (caller holds the lock). */
static hp_region *define_function(uintptr_t addr, const char *name, const char *mangled,
                                  const char *file, int line)
{
    if (region_filter != NULL && hp_filter_excludes(region_filter, file, name, mangled))
        return HP_REGION_FILTERED;
    if (is_openmp_outlined(name))
        return HP_REGION_FILTERED;
    hp_region *placeholder = sampled_find(addr); /* sampled before its first enter */
    if (placeholder != NULL && placeholder->id == UINT32_MAX)
        return adopt_placeholder(placeholder, name, mangled, file, line) == 0 ? placeholder
                                                                              : NULL;
    return region_new(name, mangled, file, line, HP_PARADIGM_COMPILER, HP_ROLE_FUNCTION);
}

/* Defines a user region (key: its handle's address, never sampled), or
 * HP_REGION_FILTERED (caller holds the lock). */
static hp_region *define_described(const hp_region *desc)
{
    if (desc->paradigm == HP_PARADIGM_COMPILER)
        return define_function(desc->addr, desc->name, desc->mangled, desc->file, desc->line);
    if (region_filter != NULL &&
        hp_filter_excludes(region_filter, desc->file, desc->name, desc->mangled))
        return HP_REGION_FILTERED;
    return region_new(desc->name, desc->mangled, desc->file, desc->line, desc->paradigm,
                      desc->role);
}

/* Symbolizes addr and applies the filter (caller holds the lock). */
static hp_region *resolve_address(uintptr_t addr)
{
    if (symbols_state == 0)
        symbols_state = hp_symbols_init() == 0 ? 1 : -1;
    hp_symbol sym;
    if (symbols_state < 0 || hp_symbols_lookup(addr, &sym) < 0) {
        char name[64];
        snprintf(name, sizeof(name), "UNKNOWN@0x%lx", (unsigned long)addr);
        unknown_count++;
        return region_new(name, name, "", -1, HP_PARADIGM_COMPILER, HP_ROLE_FUNCTION);
    }
    return define_function(addr, sym.name, sym.mangled, sym.file, sym.line);
}

/* A sampled address without a symbol (PLT stubs, the vDSO's internals): named by its
 * object and offset, which are the same in every process of a job; PLT stubs (one unwind
 * entry for all of an object's stubs) as "<object>@plt". Caller holds the lock. */
static void unknown_name(uintptr_t addr, char *name, size_t size)
{
    Dl_info info;
    if (dladdr((void *)addr, &info) != 0 && info.dli_fname != NULL && info.dli_fbase != NULL) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base != NULL ? base + 1 : info.dli_fname;
        const char *section = symbols_state > 0 ? hp_symbols_section(addr) : NULL;
        if (section != NULL && strncmp(section, ".plt", 4) == 0) {
            snprintf(name, size, "%s@plt", base[0] != '\0' ? base : "program");
            return;
        }
        snprintf(name, size, "UNKNOWN@%s+0x%lx", base,
                 (unsigned long)(addr - (uintptr_t)info.dli_fbase));
    } else {
        snprintf(name, size, "UNKNOWN@0x%lx", (unsigned long)addr);
    }
    unknown_count++;
}

/* Symbolizes placeholder r and numbers it (caller holds the lock). */
static void name_placeholder(hp_region *r)
{
    if (symbols_state == 0)
        symbols_state = hp_symbols_init() == 0 ? 1 : -1;
    hp_symbol sym;
    if (symbols_state > 0 && hp_symbols_lookup(r->addr, &sym) == 0) {
        adopt_placeholder(r, sym.name, sym.mangled, sym.file, sym.line);
    } else {
        char name[320];
        unknown_name(r->addr, name, sizeof(name));
        adopt_placeholder(r, name, name, "", -1);
    }
}

void hp_region_resolve_sampled(void)
{
    _Atomic(hp_region *) *t = sampled_table();
    if (t == NULL)
        return;
    pthread_mutex_lock(&registry_lock);
    for (uint32_t i = 0; i < sampled_capacity; i++) {
        hp_region *r = atomic_load_explicit(&t[i], memory_order_acquire);
        if (r != NULL && r->id == UINT32_MAX)
            name_placeholder(r);
    }
    pthread_mutex_unlock(&registry_lock);
}

void hp_region_name_sampled(hp_region *r)
{
    if (__atomic_load_n(&r->id, __ATOMIC_ACQUIRE) != UINT32_MAX)
        return;
    pthread_mutex_lock(&registry_lock);
    if (r->id == UINT32_MAX)
        name_placeholder(r);
    pthread_mutex_unlock(&registry_lock);
}

/* The registered region of addr, defining it with define (name, mangled, file, line
 * from the compile-time description when desc is not NULL, else symbolized). */
static hp_region *region_for(uintptr_t addr, const hp_region *desc)
{
    hp_region *r = hp_region_find(addr);
    if (r != NULL || hp_memory_exhausted())
        return r; /* no new regions without budget: do not symbolize in vain */
    pthread_mutex_lock(&registry_lock);
    r = hp_region_find(addr); /* another thread may have been first */
    if (r == NULL && table_reserve() == 0) {
        r = desc != NULL ? define_described(desc) : resolve_address(addr);
        if (r != NULL && r != HP_REGION_FILTERED)
            r->addr = addr;
        if (r != NULL)
            table_insert(atomic_load_explicit(&table, memory_order_relaxed), addr, r);
    }
    pthread_mutex_unlock(&registry_lock);
    return r;
}

hp_region *hp_region_for_address(uintptr_t addr)
{
    return region_for(addr, NULL);
}

hp_region *hp_region_for_described(uintptr_t addr, const char *name, const char *mangled,
                                   const char *file, int line)
{
    hp_region desc = { .addr = addr, .name = name, .mangled = mangled, .file = file,
                       .line = line, .paradigm = HP_PARADIGM_COMPILER };
    return region_for(addr, &desc);
}

hp_region *hp_region_for_user(uintptr_t key, const char *name, const char *file, int line,
                              const char *role)
{
    hp_region desc = { .addr = key, .name = name, .mangled = name, .file = file,
                       .line = line, .paradigm = HP_PARADIGM_USER, .role = role };
    return region_for(key, &desc);
}

int hp_region_code_line(uintptr_t addr, char *file, size_t size, int *line)
{
    int rc = -1;
    pthread_mutex_lock(&registry_lock);
    if (symbols_state == 0)
        symbols_state = hp_symbols_init() == 0 ? 1 : -1;
    const char *found;
    if (symbols_state > 0 && hp_symbols_code_line(addr, &found, line) == 0) {
        snprintf(file, size, "%s", found);
        rc = 0;
    }
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

uint32_t hp_region_count(void)
{
    return atomic_load_explicit(&region_count, memory_order_acquire);
}

hp_region *hp_region_at(uint32_t id)
{
    return regions[id];
}

uint64_t hp_region_unknown_count(void)
{
    return unknown_count;
}

const char *hp_paradigm_name(hp_paradigm p)
{
    static const char *const names[] = { "measurement", "compiler", "user", "mpi", "openmp",
                                         "pthread" };
    return names[p];
}
