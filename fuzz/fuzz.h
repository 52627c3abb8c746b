/*
 * Helpers shared by the libFuzzer targets of fuzz/ (fuzz/run-fuzz.sh): splitting an input
 * into parts, copying a part into a string of its own, and checking a property of the
 * code under test. A failed check aborts, which libFuzzer reports as a crash with the
 * input that caused it.
 */
#ifndef HP_FUZZ_FUZZ_H
#define HP_FUZZ_FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem; include this header first */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Separates the parts of an input where a target takes more than one. */
#define FUZZ_SEPARATOR "\n--8<--\n"

/* Aborts with the failed condition when cond is false. */
#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

typedef struct fuzz_part {
    const uint8_t *p;
    size_t n;
} fuzz_part;

/* Takes the bytes of *rest up to the first occurrence of sep (or all of them) as a part
 * and moves *rest behind sep; *rest becomes { NULL, 0 } after the last part. */
static inline fuzz_part fuzz_next_part(fuzz_part *rest, const char *sep)
{
    size_t seplen = strlen(sep);
    fuzz_part part = *rest;
    const uint8_t *q = rest->p != NULL ? memmem(rest->p, rest->n, sep, seplen) : NULL;
    if (q == NULL) {
        *rest = (fuzz_part){ NULL, 0 };
        return part;
    }
    part.n = (size_t)(q - rest->p);
    rest->n -= part.n + seplen;
    rest->p = q + seplen;
    return part;
}

/* A NUL-terminated copy of part (malloc'ed; an embedded NUL ends the string early, as it
 * would in a file read into a C string). NULL when out of memory. */
static inline char *fuzz_string(fuzz_part part)
{
    char *s = malloc(part.n + 1);
    if (s != NULL) {
        if (part.n > 0)
            memcpy(s, part.p, part.n);
        s[part.n] = '\0';
    }
    return s;
}

#endif
