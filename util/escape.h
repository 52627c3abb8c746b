/*
 * Text from an input (a filter file, an environment variable) made safe to echo in a
 * message: control characters, DEL, the C1 controls (U+0080 to U+009F, which some
 * terminals obey like ESC) and bytes that are not UTF-8 are written as \n, \t, \r or \xHH,
 * so that a message can neither move the cursor nor change the terminal's state, and a
 * NUL or a stray byte is visible. Printable ASCII and valid UTF-8 are copied as they are.
 *
 * Header-only: the filter parser is also compiled alone into the GCC plug-in.
 */
#ifndef HP_UTIL_ESCAPE_H
#define HP_UTIL_ESCAPE_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence of a printable character (not C1) at s, of at
 * most n bytes, or 0. */
static inline size_t hp_escape_utf8_length(const unsigned char *s, size_t n)
{
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (s[0] == 0xc2)
        lo = 0xa0; /* U+0080..U+009F are the C1 controls */
    else if (s[0] == 0xe0)
        lo = 0xa0; /* overlong */
    else if (s[0] == 0xed)
        hi = 0x9f; /* surrogates */
    else if (s[0] == 0xf0)
        lo = 0x90; /* overlong */
    else if (s[0] == 0xf4)
        hi = 0x8f; /* above U+10FFFF */
    if (len > n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

/* Writes the escaped form of the len bytes at s into out (size bytes, NUL-terminated) and
 * returns out. Text that does not fit is cut at a character and ends in "...". */
static inline char *hp_escape_text(char *out, size_t size, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t used = 0;
    if (size == 0)
        return out;
    for (size_t i = 0; i < len;) {
        char piece[8];
        size_t n = hp_escape_utf8_length(u + i, len - i), take = n ? n : 1;
        if (n > 0)
            snprintf(piece, sizeof(piece), "%.*s", (int)n, s + i);
        else if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r')
            snprintf(piece, sizeof(piece), "\\%c", u[i] == '\n' ? 'n' : u[i] == '\t' ? 't' : 'r');
        else if (u[i] < 0x20 || u[i] >= 0x7f)
            snprintf(piece, sizeof(piece), "\\x%02x", u[i]);
        else
            snprintf(piece, sizeof(piece), "%c", u[i]);
        size_t plen = strlen(piece);
        /* Room for this piece, and for "..." unless it is the last one. */
        if (used + plen + (i + take < len ? 3 : 0) >= size) {
            snprintf(out + used, size - used, "...");
            return out;
        }
        memcpy(out + used, piece, plen);
        used += plen;
        i += take;
    }
    out[used] = '\0';
    return out;
}

#endif
