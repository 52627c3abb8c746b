/*
 * Unit tests of measurement/core/symbols.c: resolving code addresses of this test program
 * (a PIE built with -g), of libc, and of a C++ fixture library dlopen'ed after init, to
 * exact names, demangled names, definition file/line, start addresses and modules.
 *
 * The fixture is $HP_BUILDDIR/test/unit/data/symbols/libcxx-fixture.so (HP_BUILDDIR
 * defaults to "."), built from test/unit/data/symbols/cxx-fixture.cc.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/core/symbols.h"
#include "test.h"

#define NOT_INLINED __attribute__((noinline, noclone, used))

static uintptr_t recorded_return_address;

/* Records an address in the middle of its caller, as a sampled return address would be. */
static NOT_INLINED void record_return_address(void)
{
    recorded_return_address = (uintptr_t)__builtin_return_address(0);
}

/* Each function's line is captured right above its definition, so edits above it keep
 * the expected decl_line right. The signatures stay on one line for the same reason. */
int hp_test_symbols_global(int x);
enum { GLOBAL_FUNCTION_LINE = __LINE__ + 1 };
NOT_INLINED int hp_test_symbols_global(int x)
{
    record_return_address();
    return x + 1;
}

enum { STATIC_FUNCTION_LINE = __LINE__ + 1 };
static NOT_INLINED int static_function(int x)
{
    return x * 3;
}

/* Named like gfortran's module procedures through an asm label, because C reserves
 * identifiers with leading underscores; the name must come back as it is. */
NOT_INLINED int fortran_like_function(int x) __asm__("__hpmod_MOD_compute");
NOT_INLINED int fortran_like_function(int x)
{
    return x - 1;
}

/* Starts with "_Z" but is no valid mangling: the demangler fails, the name stays. */
NOT_INLINED int not_really_mangled(int x) __asm__("_Zhp_not_mangled");
NOT_INLINED int not_really_mangled(int x)
{
    return x - 2;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

TEST(lookup_before_init_fails)
{
    hp_symbol s = { .name = "untouched" };
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&hp_test_symbols_global, &s), -1);
    ASSERT_STR_EQ(s.name, "untouched");
    return 0;
}

TEST(global_function)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&hp_test_symbols_global, &s), 0);
    ASSERT_STR_EQ(s.name, "hp_test_symbols_global");
    ASSERT_STR_EQ(s.mangled, "hp_test_symbols_global");
    ASSERT_UINT_EQ(s.start, (uintptr_t)&hp_test_symbols_global);
    ASSERT(s.size > 0);
    ASSERT(ends_with(s.file, "test-symbols.c"));
    ASSERT(s.file[0] == '/');
    ASSERT_INT_EQ(s.line, GLOBAL_FUNCTION_LINE);
    ASSERT(s.module[0] != '\0');
    hp_symbols_fini();
    return 0;
}

TEST(static_function)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&static_function, &s), 0);
    ASSERT_STR_EQ(s.name, "static_function");
    ASSERT_UINT_EQ(s.start, (uintptr_t)&static_function);
    ASSERT(ends_with(s.file, "test-symbols.c"));
    ASSERT_INT_EQ(s.line, STATIC_FUNCTION_LINE);
    hp_symbols_fini();
    return static_function(0);
}

TEST(address_inside_function)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    hp_test_symbols_global(1);
    uintptr_t inside = recorded_return_address;
    uintptr_t start = (uintptr_t)&hp_test_symbols_global;
    ASSERT(inside > start);
    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup(inside, &s), 0);
    ASSERT_STR_EQ(s.name, "hp_test_symbols_global");
    ASSERT_UINT_EQ(s.start, start);
    ASSERT(inside < s.start + s.size);
    ASSERT_INT_EQ(s.line, GLOBAL_FUNCTION_LINE);
    hp_symbols_fini();
    return 0;
}

TEST(module_is_this_executable)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&hp_test_symbols_global, &s), 0);
    char *self = realpath("/proc/self/exe", NULL);
    ASSERT(self != NULL);
    char *module = realpath(s.module, NULL);
    int same = module != NULL && strcmp(module, self) == 0;
    if (!same)
        fprintf(stderr, "module \"%s\", executable \"%s\"\n", s.module, self);
    free(module);
    free(self);
    ASSERT(same);
    hp_symbols_fini();
    return 0;
}

TEST(fortran_module_name_and_unmangled_names)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&fortran_like_function, &s), 0);
    ASSERT_STR_EQ(s.name, "hpmod::compute"); /* as a Fortran user reads it */
    ASSERT_STR_EQ(s.mangled, "__hpmod_MOD_compute");
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&not_really_mangled, &s), 0);
    ASSERT_STR_EQ(s.name, "_Zhp_not_mangled");
    ASSERT_STR_EQ(s.mangled, "_Zhp_not_mangled");
    hp_symbols_fini();
    return 0;
}

TEST(libc_function)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    /* Ask libc itself: in a non-PIE build &qsort could be a PLT stub of the executable. */
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    ASSERT(libc != NULL);
    uintptr_t qsort_addr = (uintptr_t)dlsym(libc, "qsort");
    dlclose(libc);
    ASSERT(qsort_addr != 0);
    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup(qsort_addr, &s), 0);
    ASSERT_STR_EQ(s.name, "qsort");
    ASSERT_UINT_EQ(s.start, qsort_addr);
    ASSERT_STR_CONTAINS(s.module, "libc");
    hp_symbols_fini();
    return 0;
}

TEST(address_in_no_module)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    hp_symbol s = { .name = "untouched" };
    ASSERT_INT_EQ(hp_symbols_lookup(0x10, &s), -1);
    ASSERT_STR_EQ(s.name, "untouched");
    /* A second miss must not break later lookups. */
    ASSERT_INT_EQ(hp_symbols_lookup(0x10, &s), -1);
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&hp_test_symbols_global, &s), 0);
    hp_symbols_fini();
    return 0;
}

static void *open_cxx_fixture(void)
{
    const char *builddir = getenv("HP_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/test/unit/data/symbols/libcxx-fixture.so",
             builddir != NULL ? builddir : ".");
    /* RTLD_LOCAL, as hosts load plug-ins: libstdc++ stays out of the global scope. */
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        fprintf(stderr, "cannot load the C++ fixture: %s\n", dlerror());
    return lib;
}

TEST(cxx_function_dlopened_after_init)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    hp_symbol before;
    ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&hp_test_symbols_global, &before), 0);

    void *lib = open_cxx_fixture();
    ASSERT(lib != NULL);
    uintptr_t bar = (uintptr_t)dlsym(lib, "_ZNK2ns3FooIiE3barEd");
    const int *bar_line = dlsym(lib, "hp_fixture_bar_line");
    ASSERT(bar != 0 && bar_line != NULL);

    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup(bar, &s), 0);
    ASSERT_STR_EQ(s.name, "ns::Foo<int>::bar(double) const");
    ASSERT_STR_EQ(s.mangled, "_ZNK2ns3FooIiE3barEd");
    ASSERT_UINT_EQ(s.start, bar);
    ASSERT(ends_with(s.module, "libcxx-fixture.so"));
    ASSERT(ends_with(s.file, "cxx-fixture.cc"));
    ASSERT_INT_EQ(s.line, *bar_line);

    /* Strings from before the re-report stay valid. */
    ASSERT_STR_EQ(before.name, "hp_test_symbols_global");
    ASSERT(ends_with(before.file, "test-symbols.c"));

    hp_symbols_fini();
    dlclose(lib);
    return 0;
}

TEST(dlclosed_library_is_forgotten)
{
    ASSERT_INT_EQ(hp_symbols_init(), 0);
    void *lib = open_cxx_fixture();
    ASSERT(lib != NULL);
    uintptr_t bar = (uintptr_t)dlsym(lib, "_ZNK2ns3FooIiE3barEd");
    hp_symbol s;
    ASSERT_INT_EQ(hp_symbols_lookup(bar, &s), 0);
    ASSERT_INT_EQ(dlclose(lib), 0);
    /* The library is unmapped now (nothing else holds it): its address resolves to
     * nothing, and the strings handed out before stay readable. */
    hp_symbol after = { .name = "untouched" };
    ASSERT_INT_EQ(hp_symbols_lookup(bar, &after), -1);
    ASSERT_STR_EQ(s.name, "ns::Foo<int>::bar(double) const");
    hp_symbols_fini();
    return 0;
}

TEST(init_fini_repeat)
{
    for (int i = 0; i < 3; i++) {
        ASSERT_INT_EQ(hp_symbols_init(), 0);
        ASSERT_INT_EQ(hp_symbols_init(), 0);
        hp_symbol s;
        ASSERT_INT_EQ(hp_symbols_lookup((uintptr_t)&static_function, &s), 0);
        ASSERT_STR_EQ(s.name, "static_function");
        hp_symbols_fini();
        hp_symbols_fini();
    }
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(lookup_before_init_fails), TEST_ENTRY(global_function),
             TEST_ENTRY(static_function), TEST_ENTRY(address_inside_function),
             TEST_ENTRY(module_is_this_executable), TEST_ENTRY(fortran_module_name_and_unmangled_names),
             TEST_ENTRY(libc_function), TEST_ENTRY(address_in_no_module),
             TEST_ENTRY(cxx_function_dlopened_after_init),
             TEST_ENTRY(dlclosed_library_is_forgotten), TEST_ENTRY(init_fini_repeat));
