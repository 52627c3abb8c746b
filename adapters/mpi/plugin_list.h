/*
 * The HP_PLUGINS list (plugin_list.c): the splitting of the comma-separated paths, apart
 * from their loading in mpi_plugins.c so that fuzz/fuzz_plugin_list.c can run it without
 * MPI or dlopen.
 */
#ifndef HP_ADAPTERS_MPI_PLUGIN_LIST_H
#define HP_ADAPTERS_MPI_PLUGIN_LIST_H

#include <stddef.h>

typedef enum hp_plugin_list_entry {
    HP_PLUGIN_LIST_END,     /* no entry left */
    HP_PLUGIN_LIST_PATH,    /* path holds the next entry */
    HP_PLUGIN_LIST_TOO_LONG /* the next entry does not fit; path holds its beginning */
} hp_plugin_list_entry;

/* Reads the next non-empty entry of the list at *s into path (size > 0 bytes, always
 * NUL-terminated) and moves *s past it and its comma. Empty entries (",,", a comma at
 * either end) are skipped. An entry of size bytes or more is never cut to fit: it is
 * HP_PLUGIN_LIST_TOO_LONG, with its first size - 1 bytes in path for the message. */
hp_plugin_list_entry hp__plugin_list_next(const char **s, char *path, size_t size);

#endif
