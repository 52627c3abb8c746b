/*
 * GNU attributes and small portability macros, in one place (see STYLE.md §3).
 */
#ifndef HP_UTIL_COMPILER_H
#define HP_UTIL_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define HP_API __attribute__((visibility("default")))
/* On the declaration of a variable that the library defines itself (hidden, as all of
 * it is): under -fPIC the hot paths then address it directly, not through the GOT. */
#define HP_HIDDEN __attribute__((visibility("hidden")))
#define HP_NOINSTR __attribute__((no_instrument_function))
#define HP_COLD __attribute__((cold, noinline))
#define HP_ALWAYS_INLINE inline __attribute__((always_inline))
#define HP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define HP_UNUSED __attribute__((unused))

#endif
