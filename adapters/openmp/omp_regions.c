/*
 * Regions of OpenMP constructs, one per construct and code location: a parallel region
 * is keyed by its outlined function, a barrier or critical section by the return
 * address of its call into libgomp. The name follows Score-P's ("!$omp parallel
 * @heat.c:42"), with the line from the line table: the first statement of an outlined
 * function is its pragma, and the call of GOMP_barrier sits on the pragma's line.
 *
 * A fixed table per kind maps addresses to regions. Lookups probe it without a lock
 * (a slot's region is stored before its key is published with a release store, and
 * slots are never reused); the first sight of an address defines the region under
 * site_lock. When a table is half full, further sites share one region per kind
 * without @FILE:LINE, so the table never needs to grow.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "adapters/openmp/internal.h"
#include "util/hash.h"

enum { SITE_CAPACITY = 512 }; /* per kind, a power of two */

typedef struct site {
    _Atomic uintptr_t key; /* 0 = empty */
    hp_region *region;
} site;

static const struct {
    const char *name;
    const char *role; /* Score-P's region type names */
} kinds[HP_OMP_KINDS] = {
    [HP_OMP_PARALLEL] = { "!$omp parallel", "parallel" },
    [HP_OMP_BARRIER] = { "!$omp barrier", "barrier" },
    [HP_OMP_CRITICAL] = { "!$omp critical", "critical" },
    [HP_OMP_CRITICAL_SBLOCK] = { "!$omp critical sblock", "critical sblock" },
    [HP_OMP_IMPLICIT_BARRIER] = { "!$omp implicit barrier", "implicit barrier" },
    [HP_OMP_TASK] = { "!$omp task", "task" },
    [HP_OMP_TASKWAIT] = { "!$omp taskwait", "task wait" },
    [HP_OMP_TASKGROUP] = { "!$omp taskgroup", "task wait" },
};

static site sites[HP_OMP_KINDS][SITE_CAPACITY];
static uint32_t used[HP_OMP_KINDS];
static hp_region *shared_region[HP_OMP_KINDS]; /* sites without file:line */
static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;
/* One byte per kind whose address tags that kind's frames on the shadow stack. */
static const char frame_tags[HP_OMP_KINDS];

uintptr_t hp__omp_frame_addr(hp_omp_kind kind)
{
    return (uintptr_t)&frame_tags[kind];
}

static inline uint32_t site_hash(uintptr_t addr)
{
    return hp_hash_top(addr, 24);
}

/* The slot of addr, or the empty slot where it belongs. */
static site *site_probe(hp_omp_kind kind, uintptr_t addr)
{
    site *t = sites[kind];
    for (uint32_t i = site_hash(addr);; i++) {
        site *s = &t[i & (SITE_CAPACITY - 1)];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == addr || k == 0)
            return s;
    }
}

static hp_region *define_kind(hp_omp_kind kind, const char *name, const char *file, int line)
{
    return hp_region_define(name, file, line, HP_PARADIGM_OPENMP, kinds[kind].role);
}

/* The region of kind for the sites without file:line (caller holds site_lock). */
static hp_region *shared_kind(hp_omp_kind kind)
{
    if (shared_region[kind] == NULL)
        shared_region[kind] = define_kind(kind, kinds[kind].name, "", -1);
    return shared_region[kind];
}

/* "!$omp parallel @heat.c:42", or the bare construct name when the line is unknown
 * (caller holds site_lock). */
static hp_region *define_site(hp_omp_kind kind, uintptr_t addr)
{
    char file[512];
    int line;
    if (hp_region_code_line(addr, file, sizeof(file), &line) < 0)
        return shared_kind(kind);
    const char *base = strrchr(file, '/');
    char name[600];
    snprintf(name, sizeof(name), "%s @%s:%d", kinds[kind].name, base != NULL ? base + 1 : file,
             line);
    return define_kind(kind, name, file, line);
}

static HP_COLD hp_region *site_define(hp_location *loc, hp_omp_kind kind, uintptr_t addr)
{
    int saved = errno;
    atomic_fetch_or(&loc->busy, HP_BUSY_INSIDE); /* the symbolizer mallocs, reads files */
    pthread_mutex_lock(&site_lock);
    site *s = site_probe(kind, addr);
    hp_region *r = s->region;
    if (atomic_load_explicit(&s->key, memory_order_relaxed) == 0) {
        if ((used[kind] + 1) * 2 > SITE_CAPACITY) {
            /* full enough: a shared region, not remembered, so no slot is taken */
            r = shared_kind(kind);
        } else if ((r = define_site(kind, addr)) != NULL) {
            s->region = r;
            atomic_store_explicit(&s->key, addr, memory_order_release);
            used[kind]++;
        }
    }
    pthread_mutex_unlock(&site_lock);
    atomic_fetch_and(&loc->busy, ~(unsigned)HP_BUSY_INSIDE);
    errno = saved;
    return r;
}

hp_region *hp__omp_region(hp_location *loc, hp_omp_kind kind, uintptr_t addr)
{
    site *s = site_probe(kind, addr);
    if (likely(atomic_load_explicit(&s->key, memory_order_acquire) == addr))
        return s->region;
    return site_define(loc, kind, addr);
}
