/* Unit tests of the region registry (measurement/core/region.c) with the real symbolizer
 * and filter, on functions of this test program. */
#include "measurement/core/region.h"

#include "measurement/core/filter.h"
#include "measurement/core/memory.h"
#include "test.h"

__attribute__((noinline)) void registry_target(void) { __asm__ volatile(""); }
__attribute__((noinline)) void registry_hidden(void) { __asm__ volatile(""); }
#define TARGET_LINE 9

TEST(address_resolves_once)
{
    ASSERT_INT_EQ(hp_memory_init(1 << 20), 0);
    ASSERT_INT_EQ(hp_region_init(NULL), 0);
    uintptr_t addr = (uintptr_t)registry_target;
    ASSERT(hp_region_find(addr) == NULL);
    hp_region *r = hp_region_for_address(addr);
    ASSERT(r != NULL && r != HP_REGION_FILTERED);
    ASSERT_STR_EQ(r->name, "registry_target");
    ASSERT_STR_EQ(r->mangled, "registry_target");
    ASSERT_STR_CONTAINS(r->file, "test-region.c");
    ASSERT_INT_EQ(r->line, TARGET_LINE);
    ASSERT_INT_EQ(r->paradigm, HP_PARADIGM_COMPILER);
    ASSERT_UINT_EQ(r->addr, addr);
    ASSERT(hp_region_find(addr) == r);
    ASSERT(hp_region_for_address(addr) == r);
    ASSERT_UINT_EQ(hp_region_count(), 1);
    ASSERT(hp_region_at(0) == r);
    return 0;
}

TEST(filtered_address_is_remembered)
{
    char err[256];
    hp_filter *f = hp_filter_parse("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE registry_hidden\n"
                                   "SCOREP_REGION_NAMES_END\n", "t.filt", err, sizeof(err));
    ASSERT(f != NULL);
    ASSERT_INT_EQ(hp_memory_init(1 << 20), 0);
    ASSERT_INT_EQ(hp_region_init(f), 0);
    ASSERT(hp_region_for_address((uintptr_t)registry_hidden) == HP_REGION_FILTERED);
    ASSERT(hp_region_find((uintptr_t)registry_hidden) == HP_REGION_FILTERED);
    ASSERT_UINT_EQ(hp_region_count(), 0);
    ASSERT(hp_region_for_address((uintptr_t)registry_target) != HP_REGION_FILTERED);
    return 0;
}

TEST(unknown_address_gets_a_visible_name)
{
    ASSERT_INT_EQ(hp_memory_init(1 << 20), 0);
    ASSERT_INT_EQ(hp_region_init(NULL), 0);
    hp_region *r = hp_region_for_address(0x10);
    ASSERT(r != NULL && r != HP_REGION_FILTERED);
    ASSERT_STR_EQ(r->name, "UNKNOWN@0x10");
    ASSERT_UINT_EQ(hp_region_unknown_count(), 1);
    return 0;
}

TEST(many_addresses_grow_the_table)
{
    ASSERT_INT_EQ(hp_memory_init(8 << 20), 0);
    ASSERT_INT_EQ(hp_region_init(NULL), 0);
    /* 3000 distinct addresses (unknown ones: no symbol) outgrow the initial table */
    for (uintptr_t a = 1; a <= 3000; a++)
        ASSERT(hp_region_for_address(a * 16) != NULL);
    for (uintptr_t a = 1; a <= 3000; a++)
        ASSERT_UINT_EQ(hp_region_find(a * 16)->addr, a * 16);
    ASSERT_UINT_EQ(hp_region_count(), 3000);
    return 0;
}

TEST(defined_regions_have_no_address)
{
    ASSERT_INT_EQ(hp_memory_init(1 << 20), 0);
    ASSERT_INT_EQ(hp_region_init(NULL), 0);
    hp_region *r = hp_region_define("app", "", -1, HP_PARADIGM_MEASUREMENT,
                                    HP_ROLE_ARTIFICIAL);
    ASSERT(r != NULL);
    ASSERT_UINT_EQ(r->addr, 0);
    ASSERT_STR_EQ(hp_paradigm_name(r->paradigm), "measurement");
    ASSERT_STR_EQ(r->role, "artificial");
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(address_resolves_once), TEST_ENTRY(filtered_address_is_remembered),
             TEST_ENTRY(unknown_address_gets_a_visible_name),
             TEST_ENTRY(many_addresses_grow_the_table),
             TEST_ENTRY(defined_regions_have_no_address));
