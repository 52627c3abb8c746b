/* Unit tests of the runtime's messages (util/log.c): once-only across threads, HP_VERBOSE
 * levels, and the async-signal-safe formatter against the C library's snprintf. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "measurement/core/config.h"
#include "util/log.h"

#include "test.h"

/* ---- what the helper writes on file descriptor 2 ------------------------------- */

static int saved_stderr = -1, capture_fd = -1;

static int capture_begin(void)
{
    char path[] = "/tmp/hp-test-log-XXXXXX";
    capture_fd = mkstemp(path);
    if (capture_fd < 0)
        return -1;
    unlink(path);
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    return dup2(capture_fd, STDERR_FILENO) < 0 ? -1 : 0;
}

/* Ends the capture; returns what was written, in out (NUL-terminated). */
static const char *capture_end(char *out, size_t size)
{
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    ssize_t n = pread(capture_fd, out, size - 1, 0);
    close(capture_fd);
    out[n > 0 ? n : 0] = '\0';
    return out;
}

static unsigned count_lines(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---- once-only ------------------------------------------------------------------- */

enum { THREADS = 8, CALLS = 2000 };

static pthread_barrier_t start_together;

static void warn_here(long id)
{
    hp_warn_once("first warning, from thread %ld", id);
}

static void *race(void *arg)
{
    long id = (long)(intptr_t)arg;
    pthread_barrier_wait(&start_together);
    for (int i = 0; i < CALLS; i++) {
        warn_here(id);
        hp_log_safe_once(HP_LOG_WARN, "second site, thread %ld", id);
    }
    return NULL;
}

TEST(once_only_across_threads)
{
    char out[4096];
    pthread_t t[THREADS];
    hp_log_set_verbosity(0);
    ASSERT_INT_EQ(pthread_barrier_init(&start_together, NULL, THREADS), 0);
    ASSERT_INT_EQ(capture_begin(), 0);
    for (long i = 0; i < THREADS; i++)
        ASSERT_INT_EQ(pthread_create(&t[i], NULL, race, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        ASSERT_INT_EQ(pthread_join(t[i], NULL), 0);
    capture_end(out, sizeof(out));
    pthread_barrier_destroy(&start_together);
    ASSERT_UINT_EQ(count_lines(out, "hpmeasure: first warning, from thread "), 1);
    ASSERT_UINT_EQ(count_lines(out, "hpmeasure: second site, thread "), 1);
    ASSERT_UINT_EQ(count_lines(out, "\n"), 2);
    return 0;
}

TEST(filtered_once_message_keeps_its_one_time)
{
    char out[1024];
    ASSERT_INT_EQ(capture_begin(), 0);
    for (int verbosity = 0; verbosity <= 1; verbosity++) {
        hp_log_set_verbosity(verbosity);
        for (int i = 0; i < 3; i++)
            hp_log_once(HP_LOG_INFO, "info once at verbosity %d", verbosity);
    }
    ASSERT_STR_EQ(capture_end(out, sizeof(out)), "hpmeasure: info once at verbosity 1\n");
    return 0;
}

/* ---- HP_VERBOSE ------------------------------------------------------------------- */

static void say_all_levels(void)
{
    hp_error("error %d", 1);
    hp_warn("warn %s", "two");
    hp_info("info %u", 3u);
    hp_debug("debug %c", '4');
}

TEST(verbosity_filters_levels)
{
    static const char *const expected[] = {
        "hpmeasure: error 1\nhpmeasure: warn two\n",
        "hpmeasure: error 1\nhpmeasure: warn two\nhpmeasure: info 3\n",
        "hpmeasure: error 1\nhpmeasure: warn two\nhpmeasure: info 3\nhpmeasure: debug 4\n",
        "hpmeasure: error 1\nhpmeasure: warn two\nhpmeasure: info 3\nhpmeasure: debug 4\n",
    };
    char out[1024];
    for (int v = 0; v <= 3; v++) {
        hp_log_set_verbosity(v);
        ASSERT_INT_EQ(capture_begin(), 0);
        say_all_levels();
        ASSERT_STR_EQ(capture_end(out, sizeof(out)), expected[v]);
        ASSERT(hp_log_enabled(HP_LOG_INFO) == (v >= 1));
        ASSERT(hp_log_enabled(HP_LOG_DEBUG) == (v >= 2));
    }
    hp_log_set_verbosity(-5); /* counts as 0 */
    ASSERT(hp_log_enabled(HP_LOG_WARN) && !hp_log_enabled(HP_LOG_INFO));
    return 0;
}

static const char *verbose_env;

static const char *fake_getenv(const char *name)
{
    return strcmp(name, "HP_VERBOSE") == 0 ? verbose_env : NULL;
}

TEST(hp_verbose_is_read_when_the_configuration_loads)
{
    char err[256], out[1024];
    verbose_env = "1";
    ASSERT_INT_EQ(hp_config_load(fake_getenv, err, sizeof(err)), 0);
    ASSERT_INT_EQ(capture_begin(), 0);
    say_all_levels();
    ASSERT_STR_EQ(capture_end(out, sizeof(out)),
                  "hpmeasure: error 1\nhpmeasure: warn two\nhpmeasure: info 3\n");
    verbose_env = NULL; /* the default, 0 */
    ASSERT_INT_EQ(hp_config_load(fake_getenv, err, sizeof(err)), 0);
    ASSERT(!hp_log_enabled(HP_LOG_INFO));
    return 0;
}

/* ---- lines ------------------------------------------------------------------------ */

TEST(one_line_per_message)
{
    char out[8192], big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    hp_log_set_verbosity(0);
    ASSERT_INT_EQ(capture_begin(), 0);
    errno = ERANGE;
    hp_warn("ends in a newline already\n");
    ASSERT_INT_EQ(errno, ERANGE);
    hp_warn("two lines:\nsecond");
    hp_warn("%s|", big); /* longer than the stack buffer */
    hp_log_safe(HP_LOG_ERROR, "safe %d", -7);
    ASSERT_INT_EQ(errno, ERANGE);
    capture_end(out, sizeof(out));
    char expected[8192];
    snprintf(expected, sizeof(expected),
             "hpmeasure: ends in a newline already\nhpmeasure: two lines:\nsecond\n"
             "hpmeasure: %s|\nhpmeasure: safe -7\n", big);
    ASSERT_STR_EQ(out, expected);
    return 0;
}

static void on_signal(int sig)
{
    hp_log_safe(HP_LOG_WARN, "in the handler of signal %d", sig);
}

TEST(safe_form_from_a_signal_handler)
{
    char out[256], expected[64];
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    ASSERT_INT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    hp_log_set_verbosity(0);
    ASSERT_INT_EQ(capture_begin(), 0);
    raise(SIGUSR1);
    capture_end(out, sizeof(out));
    snprintf(expected, sizeof(expected), "hpmeasure: in the handler of signal %d\n", SIGUSR1);
    ASSERT_STR_EQ(out, expected);
    return 0;
}

/* ---- the async-signal-safe formatter ----------------------------------------------- */

/* Formats with both the safe formatter and snprintf; fails the test if they differ. */
#define SAME_AS_SNPRINTF(...)                                                              \
    do {                                                                                   \
        char ours_[256], libc_[256];                                                       \
        size_t n_ = hp_log_snprintf_safe(ours_, sizeof(ours_), __VA_ARGS__);               \
        snprintf(libc_, sizeof(libc_), __VA_ARGS__);                                       \
        ASSERT_STR_EQ(ours_, libc_);                                                       \
        ASSERT_UINT_EQ(n_, strlen(libc_));                                                 \
    } while (0)

TEST(safe_format_integers)
{
    SAME_AS_SNPRINTF("%d %d %d %i", 0, 42, -42, INT_MAX);
    SAME_AS_SNPRINTF("%d", INT_MIN);
    SAME_AS_SNPRINTF("%u %u %x %x", 0u, UINT_MAX, 255u, 0xdeadbeefu);
    SAME_AS_SNPRINTF("%ld %lu %lx", LONG_MIN, ULONG_MAX, 0x123456789abcUL);
    SAME_AS_SNPRINTF("%lld %lld %llu", LLONG_MIN, LLONG_MAX, ULLONG_MAX);
    SAME_AS_SNPRINTF("%zu %zu", (size_t)0, SIZE_MAX);
    SAME_AS_SNPRINTF("%llu.%03llu s", 12ULL, 7ULL);
    SAME_AS_SNPRINTF("[%5d] [%05d] [%3u] [%02x]", 42, -42, 12345u, 10u);
    SAME_AS_SNPRINTF("%p", (void *)(uintptr_t)0x7ffc1234abcdUL);
    return 0;
}

TEST(safe_format_strings)
{
    const char *volatile none = NULL; /* volatile: no compile-time warning about NULL */
    SAME_AS_SNPRINTF("%s and %s", "this", "");
    SAME_AS_SNPRINTF("%c%c%c 100%%", 'a', 'b', 'c');
    SAME_AS_SNPRINTF("%.*s|%.*s", 3, "abcdef", 10, "ab");
    SAME_AS_SNPRINTF("[%s]", none); /* glibc prints (null) too */
    char buf[64];
    const char *unknown = "a %q b %d";
    hp_log_snprintf_safe(buf, sizeof(buf), unknown, 5);
    ASSERT_STR_EQ(buf, "a %q b 5");
    return 0;
}

TEST(safe_format_cuts_at_the_buffer_size)
{
    char buf[8];
    memset(buf, '#', sizeof(buf));
    ASSERT_UINT_EQ(hp_log_snprintf_safe(buf, sizeof(buf), "%s-%d", "abcdef", 12345), 7);
    ASSERT_STR_EQ(buf, "abcdef-");
    ASSERT_UINT_EQ(hp_log_snprintf_safe(buf, 1, "%d", 5), 0);
    ASSERT_STR_EQ(buf, "");
    ASSERT_UINT_EQ(hp_log_snprintf_safe(buf, sizeof(buf), "%llu", ULLONG_MAX), 7);
    ASSERT_STR_EQ(buf, "1844674");
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(once_only_across_threads),
             TEST_ENTRY(filtered_once_message_keeps_its_one_time),
             TEST_ENTRY(verbosity_filters_levels),
             TEST_ENTRY(hp_verbose_is_read_when_the_configuration_loads),
             TEST_ENTRY(one_line_per_message), TEST_ENTRY(safe_form_from_a_signal_handler),
             TEST_ENTRY(safe_format_integers), TEST_ENTRY(safe_format_strings),
             TEST_ENTRY(safe_format_cuts_at_the_buffer_size));
