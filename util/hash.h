/*
 * The hashing that the cold-path tables share: one string hash (64-bit FNV-1a), one
 * integer mix (Fibonacci hashing), and one small open-addressing index, a table of
 * slots that hold the index of an entry in the caller's own array. The caller keeps its
 * entries where it likes and says, through two callbacks, how to hash an entry and
 * whether an entry is the one looked for, so the table knows no entry type.
 *
 * The index allocates and probes through function pointers: it is for finalize, the
 * tools and first-time definitions, not for a measured call. The hot-path tables (the
 * region registry, the call tree's children, the compiler hooks' cache, the unwinder's
 * return addresses, the OpenMP sites, the MPI communicator handles) keep their own
 * layouts, lock-free or direct-mapped, and use only hp_hash_mix and hp_hash_top.
 *
 * Header-only, so that every library and tool that needs it compiles it in.
 */
#ifndef HP_UTIL_HASH_H
#define HP_UTIL_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define HP_HASH_SEED 0xcbf29ce484222325ull /* FNV-1a's offset basis */

/* h extended by the bytes of s and its terminating NUL (64-bit FNV-1a). The NUL keeps
 * the fields of a chain apart: ("ab", "c") and ("a", "bc") hash differently. Start a
 * chain with HP_HASH_SEED. */
static inline uint64_t hp_hash_str(uint64_t h, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    do
        h = (h ^ *p) * 0x100000001b3ull;
    while (*p++ != '\0');
    return h;
}

/* h extended by the 64-bit value v, as FNV-1a would by its 8 bytes at once. */
static inline uint64_t hp_hash_u64(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ull;
}

/* k multiplied by 2^64 / phi (Fibonacci hashing): its high bits depend on all of k's
 * bits, so take a table's index from the top (hp_hash_top), not from the bottom. The one
 * place this multiplier is written: the hot-path tables and the cold ones share it. */
static inline uint64_t hp_hash_mix(uint64_t k)
{
    return k * 0x9E3779B97F4A7C15ull;
}

/* The top `bits` bits (1 to 32) of hp_hash_mix(k): the index of k in a table of 2^bits
 * slots. Plain arithmetic, so a signal handler may call it. */
static inline uint32_t hp_hash_top(uint64_t k, unsigned bits)
{
    return (uint32_t)(hp_hash_mix(k) >> (64 - bits));
}

/* ------------------------------------------------------------------ the index table */

typedef uint64_t (*hp_hash_entry_fn)(const void *ctx, uint32_t index);
typedef bool (*hp_hash_same_fn)(const void *ctx, uint32_t index, const void *key);

typedef struct hp_hash_index {
    uint32_t *slots; /* 1 + the index of an entry in the caller's array; 0 = empty */
    uint32_t mask;   /* number of slots - 1 (a power of two - 1) */
    uint32_t count;  /* filled slots; kept at most half of them */
} hp_hash_index;

/* An empty index with room for `entries` entries before it first grows. Returns 0, or
 * -1 when memory ran out (t is then empty and may be released). */
static inline int hp_hash_index_init(hp_hash_index *t, size_t entries)
{
    size_t n = 16;
    while (n < 2 * entries)
        n *= 2;
    t->slots = calloc(n, sizeof(uint32_t));
    t->mask = t->slots != NULL ? (uint32_t)(n - 1) : 0;
    t->count = 0;
    return t->slots != NULL ? 0 : -1;
}

static inline void hp_hash_index_release(hp_hash_index *t)
{
    free(t->slots);
    t->slots = NULL;
    t->mask = t->count = 0;
}

static inline uint32_t hp__hash_start(const hp_hash_index *t, uint64_t hash)
{
    return (uint32_t)(hash ^ (hash >> 32)) & t->mask;
}

/* The index of the entry with this hash for which same(ctx, index, key) holds, or
 * UINT32_MAX when there is none. */
static inline uint32_t hp_hash_index_find(const hp_hash_index *t, uint64_t hash,
                                          hp_hash_same_fn same, const void *ctx,
                                          const void *key)
{
    for (uint32_t i = hp__hash_start(t, hash); t->slots[i] != 0; i = (i + 1) & t->mask)
        if (same(ctx, t->slots[i] - 1, key))
            return t->slots[i] - 1;
    return UINT32_MAX;
}

static inline void hp__hash_place(hp_hash_index *t, uint64_t hash, uint32_t index)
{
    uint32_t i = hp__hash_start(t, hash);
    while (t->slots[i] != 0)
        i = (i + 1) & t->mask;
    t->slots[i] = index + 1;
}

/* Adds the entry `index` (not yet in t, index < UINT32_MAX - 1) with this hash. When t
 * would be more than half full it first doubles, rehashing its entries through
 * entry_hash(ctx, index). Returns 0, or -1 when memory ran out (t is unchanged). */
static inline int hp_hash_index_add(hp_hash_index *t, uint64_t hash, uint32_t index,
                                    hp_hash_entry_fn entry_hash, const void *ctx)
{
    if (2 * ((size_t)t->count + 1) > (size_t)t->mask + 1) {
        hp_hash_index old = *t;
        t->slots = calloc(2 * ((size_t)old.mask + 1), sizeof(uint32_t));
        if (t->slots == NULL) {
            *t = old;
            return -1;
        }
        t->mask = 2 * old.mask + 1;
        for (uint32_t i = 0; i <= old.mask; i++)
            if (old.slots[i] != 0)
                hp__hash_place(t, entry_hash(ctx, old.slots[i] - 1), old.slots[i] - 1);
        free(old.slots);
    }
    hp__hash_place(t, hash, index);
    t->count++;
    return 0;
}

#endif
