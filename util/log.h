/*
 * Messages of the measurement runtime on stderr, all through here: one prefix
 * ("hpmeasure: "), four levels, HP_VERBOSE as the filter, once-only warnings, and a form
 * that signal handlers may call.
 *
 * Levels: errors and warnings are always shown; info needs HP_VERBOSE >= 1 (what is
 * written where), debug HP_VERBOSE >= 2. The verbosity is read once, when the
 * configuration is loaded (measurement/config.c calls hp_log_set_verbosity); before
 * that it is 0.
 *
 * Each message is written with one write(2) on file descriptor 2, so messages of
 * different threads and ranks do not interleave within a line. A newline is added when
 * the text does not end in one; the text itself carries no prefix. errno is preserved.
 *
 * Thread safety: every function here may be called from any thread. hp_log_safe and
 * hp_log_format_safe are also async-signal-safe (no malloc, no stdio, no locks) and may be
 * called from signal handlers and hot paths; hp_log is not (it uses vsnprintf and, for a
 * message longer than 1 KiB, malloc).
 */
#ifndef HP_UTIL_LOG_H
#define HP_UTIL_LOG_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

typedef enum hp_log_level {
    HP_LOG_ERROR, /* something failed: data is lost or the program stops */
    HP_LOG_WARN,  /* measurement degraded, or a problem the user should know of */
    HP_LOG_INFO,  /* what is written where (HP_VERBOSE >= 1) */
    HP_LOG_DEBUG, /* more detail (HP_VERBOSE >= 2) */
} hp_log_level;

#define HP_LOG_PREFIX "hpmeasure: "

/* Sets the verbosity (HP_VERBOSE): negative values count as 0. */
void hp_log_set_verbosity(int verbosity);

/* True when a message of this level would be shown. Async-signal-safe. */
bool hp_log_enabled(hp_log_level level);

/* Writes HP_LOG_PREFIX, the printf-formatted text and a newline, when level is enabled. */
void hp_log(hp_log_level level, const char *format, ...) HP_PRINTF(2, 3);
void hp_log_v(hp_log_level level, const char *format, va_list ap) HP_PRINTF(2, 0);

/* hp_log for signal handlers and hot paths: formats into a stack buffer (messages are cut
 * at 512 bytes) with the subset of printf that hp_log_format_safe knows. */
void hp_log_safe(hp_log_level level, const char *format, ...) HP_PRINTF(2, 3);

/* Async-signal-safe vsnprintf for %s %d %i %u %x %p %c %%, with the length modifiers l,
 * ll and z, a width with or without the flag 0 on integers ("%03llu"), and %.*s. Writes at
 * most size bytes including the terminating NUL (cutting the text) and returns the length
 * written, without the NUL. An unknown conversion is copied as it stands. */
size_t hp_log_format_safe(char *buf, size_t size, const char *format, va_list ap);
size_t hp_log_snprintf_safe(char *buf, size_t size, const char *format, ...) HP_PRINTF(3, 4);

#define hp_error(...) hp_log(HP_LOG_ERROR, __VA_ARGS__)
#define hp_warn(...) hp_log(HP_LOG_WARN, __VA_ARGS__)
#define hp_info(...) hp_log(HP_LOG_INFO, __VA_ARGS__)
#define hp_debug(...) hp_log(HP_LOG_DEBUG, __VA_ARGS__)

/* True the first time it is called with flag, false afterwards, in any thread.
 * Async-signal-safe (atomic_flag is lock-free). */
static inline bool hp_log_first_time(atomic_flag *flag)
{
    return !atomic_flag_test_and_set_explicit(flag, memory_order_relaxed);
}

/* hp_log once per call site for the whole process: later calls of the same site say
 * nothing, whatever their arguments. A message filtered out by HP_VERBOSE does not use
 * up the site's one time. hp_log_safe_once is the async-signal-safe form. */
#define hp_log_once(level, ...) HP_LOG_ONCE_(hp_log, level, __VA_ARGS__)
#define hp_log_safe_once(level, ...) HP_LOG_ONCE_(hp_log_safe, level, __VA_ARGS__)
#define hp_warn_once(...) hp_log_once(HP_LOG_WARN, __VA_ARGS__)

#define HP_LOG_ONCE_(fn, level, ...)                                                       \
    do {                                                                                   \
        static atomic_flag hp_log_said_ = ATOMIC_FLAG_INIT;                                \
        if (hp_log_enabled(level) && hp_log_first_time(&hp_log_said_))                     \
            fn(level, __VA_ARGS__);                                                        \
    } while (0)

#endif
