/*
 * libFuzzer target for the HP_PLUGINS list (adapters/mpi/plugin_list.c), not the loading.
 * The first input byte picks the size of the path buffer (1 to 64 bytes, or the loader's
 * 1024); the rest is the list. The entries read must be exactly the list's non-empty
 * comma-separated fields, in order, each either whole or reported as too long, never cut.
 */
#include "fuzz/fuzz.h"

#include "adapters/mpi/plugin_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t path_size = data[0] < 64 ? (size_t)data[0] + 1 : 1024;
    char *list = fuzz_string((fuzz_part){ data + 1, size - 1 });
    char *path = malloc(path_size); /* exactly sized: ASan sees a write past it */
    if (list == NULL || path == NULL)
        goto out;
    const char *s = list, *field = list; /* field: the reference split */
    hp_plugin_list_entry e;
    while ((e = hp__plugin_list_next(&s, path, path_size)) != HP_PLUGIN_LIST_END) {
        field += strspn(field, ",");
        size_t n = strcspn(field, ",");
        FUZZ_CHECK(n > 0);
        if (e == HP_PLUGIN_LIST_PATH) {
            FUZZ_CHECK(n < path_size && strlen(path) == n && memcmp(path, field, n) == 0);
        } else {
            FUZZ_CHECK(e == HP_PLUGIN_LIST_TOO_LONG);
            FUZZ_CHECK(n >= path_size && strlen(path) == path_size - 1);
            FUZZ_CHECK(memcmp(path, field, path_size - 1) == 0);
        }
        field += n;
        FUZZ_CHECK(s >= field && s <= list + strlen(list));
    }
    FUZZ_CHECK(field[strspn(field, ",")] == '\0'); /* no field was left out */
out:
    free(path);
    free(list);
    return 0;
}
