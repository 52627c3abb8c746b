/*
 * The HP_PLUGINS list: comma-separated paths of shared objects (doc/plugins.md). A path
 * may hold any byte but the comma; a path too long for the loader's buffer is reported
 * rather than cut, as a cut path could name another file that exists.
 */
#include "adapters/mpi/plugin_list.h"

#include <string.h>

hp_plugin_list_entry hp__plugin_list_next(const char **s, char *path, size_t size)
{
    const char *p = *s;
    p += strspn(p, ",");
    size_t n = strcspn(p, ",");
    *s = p + n + (p[n] == ',');
    if (n == 0) {
        path[0] = '\0';
        return HP_PLUGIN_LIST_END;
    }
    size_t kept = n < size ? n : size - 1;
    memcpy(path, p, kept);
    path[kept] = '\0';
    return n < size ? HP_PLUGIN_LIST_PATH : HP_PLUGIN_LIST_TOO_LONG;
}
