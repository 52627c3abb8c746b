/*
 * The runtime's messages on stderr (util/log.h): level filter, one write(2) per message,
 * and an async-signal-safe formatter for signal handlers.
 */
#include "util/log.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    MESSAGE_SIZE = 1024, /* hp_log: longer messages are formatted into malloc'ed memory */
    SAFE_MESSAGE_SIZE = 512,
};

/* HP_VERBOSE; an atomic so that a signal handler reads a whole value. */
static _Atomic int verbosity;

void hp_log_set_verbosity(int v)
{
    atomic_store_explicit(&verbosity, v < 0 ? 0 : v, memory_order_relaxed);
}

bool hp_log_enabled(hp_log_level level)
{
    return (int)level <= HP_LOG_WARN + atomic_load_explicit(&verbosity, memory_order_relaxed);
}

/* Writes all of text to stderr, retrying after signals and partial writes. */
static void write_all(const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* stderr closed or full: nothing else to tell */
        text += n;
        len -= (size_t)n;
    }
}

/* Ends text (len bytes of a buffer of size bytes, len < size) with a newline; a text cut
 * at the end of its buffer loses its last character to it. Returns the new length. */
static size_t end_line(char *text, size_t len, size_t size)
{
    if (len > 0 && text[len - 1] == '\n')
        return len;
    if (len + 1 >= size)
        len = size - 2;
    text[len++] = '\n';
    text[len] = '\0';
    return len;
}

void hp_log_v(hp_log_level level, const char *format, va_list ap)
{
    if (!hp_log_enabled(level))
        return;
    int saved = errno;
    char stack[MESSAGE_SIZE];
    char *text = stack;
    size_t size = sizeof(stack);
    va_list again;
    va_copy(again, ap);
    size_t prefix = sizeof(HP_LOG_PREFIX) - 1;
    memcpy(text, HP_LOG_PREFIX, prefix);
    int n = vsnprintf(text + prefix, size - prefix, format, ap);
    if (n < 0)
        n = 0;
    size_t len = prefix + (size_t)n;
    if (len + 2 > size) { /* too long for the stack buffer, with the newline */
        char *big = malloc(len + 2);
        if (big != NULL) {
            memcpy(big, HP_LOG_PREFIX, prefix);
            vsnprintf(big + prefix, len + 2 - prefix, format, again);
            text = big;
            size = len + 2;
        } else {
            len = size - 1; /* cut */
        }
    }
    va_end(again);
    len = end_line(text, len, size);
    write_all(text, len);
    if (text != stack)
        free(text);
    errno = saved;
}

void hp_log(hp_log_level level, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    hp_log_v(level, format, ap);
    va_end(ap);
}

void hp_log_safe(hp_log_level level, const char *format, ...)
{
    if (!hp_log_enabled(level))
        return;
    int saved = errno;
    char text[SAFE_MESSAGE_SIZE];
    size_t prefix = sizeof(HP_LOG_PREFIX) - 1;
    memcpy(text, HP_LOG_PREFIX, prefix);
    va_list ap;
    va_start(ap, format);
    size_t len = prefix + hp_log_format_safe(text + prefix, sizeof(text) - prefix, format, ap);
    va_end(ap);
    write_all(text, end_line(text, len, sizeof(text)));
    errno = saved;
}

/* ---- the async-signal-safe formatter --------------------------------------------- */

/* An output buffer that cuts silently at its end, keeping one byte for the NUL. */
typedef struct out {
    char *buf;
    size_t size, len;
} out;

static void put_char(out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len++] = c;
}

static void put_string(out *o, const char *s, size_t max)
{
    if (s == NULL)
        s = "(null)";
    for (size_t i = 0; i < max && s[i] != '\0'; i++)
        put_char(o, s[i]);
}

/* A conversion's width and padding: "%05u" is { 5, '0' }. */
typedef struct field {
    unsigned width;
    char pad;
} field;

static void put_unsigned(out *o, unsigned long long v, unsigned base, field f)
{
    char digits[24]; /* 2^64 has 20 decimal digits */
    unsigned n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0);
    for (unsigned i = n; i < f.width; i++)
        put_char(o, f.pad);
    while (n > 0)
        put_char(o, digits[--n]);
}

static void put_signed(out *o, long long v, field f)
{
    if (v >= 0) {
        put_unsigned(o, (unsigned long long)v, 10, f);
        return;
    }
    put_char(o, '-');
    if (f.width > 0)
        f.width--;
    put_unsigned(o, 0ULL - (unsigned long long)v, 10, f); /* also for LLONG_MIN */
}

/* Reads the flag '0' and a width at *f (if any) and moves past them. */
static field read_field(const char **f)
{
    field w = { 0, ' ' };
    if (**f == '0') {
        w.pad = '0';
        (*f)++;
    }
    while (**f >= '0' && **f <= '9' && w.width < 64)
        w.width = w.width * 10 + (unsigned)(*(*f)++ - '0');
    return w;
}

enum length { LEN_INT, LEN_LONG, LEN_LONG_LONG, LEN_SIZE };

/* Reads the length modifier at *f (if any) and moves past it. */
static enum length read_length(const char **f)
{
    if ((*f)[0] == 'l' && (*f)[1] == 'l') {
        *f += 2;
        return LEN_LONG_LONG;
    }
    if ((*f)[0] == 'l' || (*f)[0] == 'z') {
        return *(*f)++ == 'l' ? LEN_LONG : LEN_SIZE;
    }
    return LEN_INT;
}

static long long signed_arg(enum length len, va_list *ap)
{
    switch (len) {
    case LEN_LONG: return va_arg(*ap, long);
    case LEN_LONG_LONG: return va_arg(*ap, long long);
    case LEN_SIZE: return (long long)va_arg(*ap, ssize_t);
    default: return va_arg(*ap, int);
    }
}

static unsigned long long unsigned_arg(enum length len, va_list *ap)
{
    switch (len) {
    case LEN_LONG: return va_arg(*ap, unsigned long);
    case LEN_LONG_LONG: return va_arg(*ap, unsigned long long);
    case LEN_SIZE: return va_arg(*ap, size_t);
    default: return va_arg(*ap, unsigned);
    }
}

/* Formats the conversion that starts after the '%' at *f; moves *f past it. */
static void put_conversion(out *o, const char **f, va_list *ap)
{
    const char *start = *f - 1; /* the '%' */
    field w = read_field(f);
    size_t precision = SIZE_MAX;
    if ((*f)[0] == '.' && (*f)[1] == '*') {
        int p = va_arg(*ap, int);
        precision = p < 0 ? SIZE_MAX : (size_t)p;
        *f += 2;
    }
    enum length len = read_length(f);
    char c = **f;
    if (c != '\0')
        (*f)++;
    switch (c) {
    case 'd':
    case 'i': put_signed(o, signed_arg(len, ap), w); break;
    case 'u': put_unsigned(o, unsigned_arg(len, ap), 10, w); break;
    case 'x': put_unsigned(o, unsigned_arg(len, ap), 16, w); break;
    case 'c': put_char(o, (char)va_arg(*ap, int)); break;
    case 's': put_string(o, va_arg(*ap, const char *), precision); break;
    case 'p':
        put_string(o, "0x", SIZE_MAX);
        put_unsigned(o, (uintptr_t)va_arg(*ap, void *), 16, (field){ 0, ' ' });
        break;
    case '%': put_char(o, '%'); break;
    default: put_string(o, start, (size_t)(*f - start)); break;
    }
}

size_t hp_log_snprintf_safe(char *buf, size_t size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    size_t n = hp_log_format_safe(buf, size, format, ap);
    va_end(ap);
    return n;
}

size_t hp_log_format_safe(char *buf, size_t size, const char *format, va_list ap)
{
    out o = { buf, size, 0 };
    va_list args;
    va_copy(args, ap);
    for (const char *f = format; *f != '\0';) {
        char c = *f++;
        if (c == '%')
            put_conversion(&o, &f, &args);
        else
            put_char(&o, c);
    }
    va_end(args);
    if (size > 0)
        buf[o.len] = '\0';
    return o.len;
}
