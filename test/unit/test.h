/*
 * Minimal unit-test support. A test file defines its tests with TEST(name) and ends with
 * one HP_TEST_LIST(...) naming them; runner.c runs each test in its own process with a
 * timeout and prints TAP, so one crashing or hanging test cannot hide the others.
 *
 * Asserts print both operands and file:line, then make the test return 1.
 */
#ifndef HP_TEST_UNIT_TEST_H
#define HP_TEST_UNIT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef int (*hp_test_fn)(void);

struct hp_test {
    const char *name;
    hp_test_fn fn;
};

/* Defined by HP_TEST_LIST in each test file, used by runner.c. */
extern const struct hp_test hp_tests[];
extern const int hp_test_count;

#define TEST(name) static int test_##name(void)
#define TEST_ENTRY(name) { #name, test_##name }
#define HP_TEST_LIST(...)                                                              \
    const struct hp_test hp_tests[] = { __VA_ARGS__ };                                 \
    const int hp_test_count = (int)(sizeof(hp_tests) / sizeof(hp_tests[0]))

#define HP_TEST_FAIL(...)                                                              \
    do {                                                                               \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                \
        fprintf(stderr, __VA_ARGS__);                                                  \
        fputc('\n', stderr);                                                           \
        return 1;                                                                      \
    } while (0)

#define ASSERT(cond)                                                                   \
    do {                                                                               \
        if (!(cond))                                                                   \
            HP_TEST_FAIL("assertion failed: %s", #cond);                               \
    } while (0)

#define ASSERT_INT_EQ(a, b)                                                            \
    do {                                                                               \
        long long a_ = (long long)(a), b_ = (long long)(b);                            \
        if (a_ != b_)                                                                  \
            HP_TEST_FAIL("%s == %s failed: %lld != %lld", #a, #b, a_, b_);             \
    } while (0)

#define ASSERT_UINT_EQ(a, b)                                                           \
    do {                                                                               \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
        if (a_ != b_)                                                                  \
            HP_TEST_FAIL("%s == %s failed: %llu != %llu", #a, #b, a_, b_);             \
    } while (0)

#define ASSERT_STR_EQ(a, b)                                                            \
    do {                                                                               \
        const char *a_ = (a), *b_ = (b);                                               \
        if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)                           \
            HP_TEST_FAIL("%s == %s failed: \"%s\" != \"%s\"", #a, #b,                 \
                         a_ ? a_ : "(null)", b_ ? b_ : "(null)");                      \
    } while (0)

#define ASSERT_STR_CONTAINS(hay, needle)                                               \
    do {                                                                               \
        const char *h_ = (hay), *n_ = (needle);                                        \
        if (h_ == NULL || strstr(h_, n_) == NULL)                                      \
            HP_TEST_FAIL("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_);     \
    } while (0)

#endif
