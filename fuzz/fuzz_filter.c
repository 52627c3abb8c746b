/*
 * libFuzzer target for the filter-file parser and matcher (measurement/core/filter.c).
 * The input is a filter file, optionally followed by FUZZ_SEPARATOR and queries: lines
 * taken three at a time as a region's source file, displayed name and mangled name. The
 * parser must give a filter or exactly one message naming the origin; each query's file
 * name is also normalised, and the result checked for the properties the header promises
 * (no "//", "/./" or trailing "/", idempotent, the same result in an exactly sized buffer).
 */
#include "fuzz/fuzz.h"

#include "measurement/core/filter.h"

enum { MAX_QUERIES = 16, ERR_SIZE = 256, PATH_SIZE = 4096 };

static void check_normalized(const char *path)
{
    static char out[PATH_SIZE], again[PATH_SIZE];
    if (hp_filter_normalize_path(path, out, sizeof(out)) != 0)
        return;
    size_t n = strlen(out);
    FUZZ_CHECK(n > 0);
    FUZZ_CHECK((path[0] == '/') == (out[0] == '/'));
    FUZZ_CHECK(strstr(out, "//") == NULL && strstr(out, "/./") == NULL);
    FUZZ_CHECK(strncmp(out, "./", 2) != 0 && (n < 2 || strcmp(out + n - 2, "/.") != 0));
    FUZZ_CHECK(n == 1 || out[n - 1] != '/');
    FUZZ_CHECK(hp_filter_normalize_path(out, again, sizeof(again)) == 0);
    FUZZ_CHECK(strcmp(out, again) == 0);
    /* An exactly sized buffer (ASan sees a write past it) gives the same result. */
    char *exact = malloc(n + 1);
    if (exact != NULL && hp_filter_normalize_path(path, exact, n + 1) == 0)
        FUZZ_CHECK(strcmp(exact, out) == 0);
    free(exact);
}

static void run_queries(const hp_filter *f, fuzz_part rest)
{
    for (int q = 0; q < MAX_QUERIES && rest.p != NULL; q++) {
        char *s[3];
        for (int i = 0; i < 3; i++)
            s[i] = fuzz_string(fuzz_next_part(&rest, "\n"));
        if (s[0] != NULL && s[1] != NULL && s[2] != NULL) {
            check_normalized(s[0]);
            hp_filter_verdict v = hp_filter_decide(f, s[0], s[1], s[2]);
            FUZZ_CHECK(v == HP_FILTER_DEFAULT || v == HP_FILTER_INCLUDED ||
                       v == HP_FILTER_EXCLUDED);
            FUZZ_CHECK(hp_filter_excludes(f, s[0], s[1], s[2]) == (v == HP_FILTER_EXCLUDED));
        }
        for (int i = 0; i < 3; i++)
            free(s[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_part rest = { data, size };
    char *text = fuzz_string(fuzz_next_part(&rest, FUZZ_SEPARATOR));
    char *err = malloc(ERR_SIZE);
    if (text != NULL && err != NULL) {
        hp_filter *f = hp_filter_parse(text, "fuzz.filter", err, ERR_SIZE);
        if (f == NULL)
            FUZZ_CHECK(strncmp(err, "fuzz.filter:", 12) == 0 && strchr(err, '\n') == NULL);
        else
            FUZZ_CHECK(err[0] == '\0');
        run_queries(f, rest);
        hp_filter_free(f);
    }
    free(err);
    free(text);
    return 0;
}
