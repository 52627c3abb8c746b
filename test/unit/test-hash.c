/*
 * Unit tests of util/hash.h: the string hash is 64-bit FNV-1a over the bytes and the
 * terminating NUL (known values, fields kept apart), the integer mix and its top bits
 * have the exact values the hot-path tables rely on, and the index finds every entry it
 * was given across its growth, colliding hashes included, and none it was not given.
 */
#include "util/hash.h"

#include <string.h>

#include "test.h"

/* FNV-1a of "" + NUL is one round on 0; of "a" + NUL two rounds: values worked out
 * from the definition (offset basis 0xcbf29ce484222325, prime 0x100000001b3). */
TEST(string_hash_is_fnv1a_with_the_nul)
{
    ASSERT_UINT_EQ(hp_hash_str(HP_HASH_SEED, ""), 0xcbf29ce484222325ull * 0x100000001b3ull);
    uint64_t a = (0xcbf29ce484222325ull ^ 'a') * 0x100000001b3ull;
    ASSERT_UINT_EQ(hp_hash_str(HP_HASH_SEED, "a"), a * 0x100000001b3ull);
    return 0;
}

TEST(string_hash_keeps_fields_apart)
{
    uint64_t ab_c = hp_hash_str(hp_hash_str(HP_HASH_SEED, "ab"), "c");
    uint64_t a_bc = hp_hash_str(hp_hash_str(HP_HASH_SEED, "a"), "bc");
    ASSERT(ab_c != a_bc);
    ASSERT(hp_hash_str(HP_HASH_SEED, "ab") != hp_hash_str(HP_HASH_SEED, "ba"));
    return 0;
}

/* The integer mix is k * 0x9E3779B97F4A7C15 modulo 2^64 (2 * it wraps), and hp_hash_top
 * takes its top bits: the widths below are those of the hot-path tables (the compiler
 * hooks' cache 8, the unwinder's return addresses 10, the OpenMP sites and MPI handles
 * 24, the region registry 32), for a typical code address. Worked out by hand (Python's
 * big integers), so a changed multiplier or shift fails here. */
TEST(integer_mix_and_top_bits_have_exact_values)
{
    ASSERT_UINT_EQ(hp_hash_mix(0), 0);
    ASSERT_UINT_EQ(hp_hash_mix(1), 0x9E3779B97F4A7C15ull);
    ASSERT_UINT_EQ(hp_hash_mix(2), 0x3C6EF372FE94F82Aull);
    ASSERT_UINT_EQ(hp_hash_mix(0x401136), 0x7D28D133D133916Eull);
    ASSERT_UINT_EQ(hp_hash_top(1, 1), 1);
    ASSERT_UINT_EQ(hp_hash_top(1, 32), 0x9E3779B9);
    ASSERT_UINT_EQ(hp_hash_top(0x401136, 8), 0x7D);
    ASSERT_UINT_EQ(hp_hash_top(0x401136, 10), 0x1F4);
    ASSERT_UINT_EQ(hp_hash_top(0x401136, 24), 0x7D28D1);
    ASSERT_UINT_EQ(hp_hash_top(0x401136, 32), 0x7D28D133);
    return 0;
}

/* Entries: numbers; their hash puts every eighth one on the same slot chain. */
enum { N = 1000 };
static uint32_t keys[N];

static uint64_t key_hash(uint32_t k)
{
    return k % 8 == 0 ? 42 : hp_hash_mix(k);
}

static uint64_t entry_hash(const void *ctx, uint32_t index)
{
    return key_hash(((const uint32_t *)ctx)[index]);
}

static bool entry_is(const void *ctx, uint32_t index, const void *key)
{
    return ((const uint32_t *)ctx)[index] == *(const uint32_t *)key;
}

TEST(index_finds_every_entry_across_growth)
{
    hp_hash_index t;
    ASSERT_INT_EQ(hp_hash_index_init(&t, 4), 0);
    ASSERT_UINT_EQ(t.mask + 1, 16);
    for (uint32_t i = 0; i < N; i++) {
        keys[i] = 7 * i + 3;
        ASSERT_UINT_EQ(hp_hash_index_find(&t, key_hash(keys[i]), entry_is, keys, &keys[i]),
                       UINT32_MAX);
        ASSERT_INT_EQ(hp_hash_index_add(&t, key_hash(keys[i]), i, entry_hash, keys), 0);
    }
    ASSERT_UINT_EQ(t.count, N);
    ASSERT_UINT_EQ(t.mask + 1, 2048); /* doubled while more than half full */
    for (uint32_t i = 0; i < N; i++)
        ASSERT_UINT_EQ(hp_hash_index_find(&t, key_hash(keys[i]), entry_is, keys, &keys[i]), i);
    uint32_t absent = 7 * N + 3;
    ASSERT_UINT_EQ(hp_hash_index_find(&t, key_hash(absent), entry_is, keys, &absent),
                   UINT32_MAX);
    hp_hash_index_release(&t);
    ASSERT(t.slots == NULL);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(string_hash_is_fnv1a_with_the_nul),
             TEST_ENTRY(string_hash_keeps_fields_apart),
             TEST_ENTRY(integer_mix_and_top_bits_have_exact_values),
             TEST_ENTRY(index_finds_every_entry_across_growth));
