/*
 * Where an installation's library and headers are, for the commands (hp-instrument,
 * hp-run): an environment variable first (the test harness points it at the build
 * tree), then a relocated installation next to the running executable, then the
 * configured prefix.
 */
#if !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* realpath(), readlink() */
#endif

#include "install_dirs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Returns a malloc'd copy of a followed by b, or NULL when out of memory. */
char *hp_concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);

    if (s == NULL)
        return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    return s;
}

/*
 * Returns the canonical path of "<directory of this executable>/../<sibling>" if
 * <marker> exists inside it (a relocated installation), else NULL. The result is
 * malloc'd (realpath).
 */
static char *installed_sibling_dir(const char *sibling, const char *marker)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash, *candidate, *marker_path, *dir = NULL;

    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    slash[1] = '\0';
    candidate = hp_concat(exe, sibling);
    if (candidate == NULL)
        return NULL;
    marker_path = hp_concat(candidate, marker);
    if (marker_path != NULL && access(marker_path, F_OK) == 0)
        dir = realpath(candidate, NULL);
    free(marker_path);
    free(candidate);
    return dir;
}

/*
 * Environment first (the test harness points it at the build tree), then a relocated
 * installation next to this executable, then the configured prefix. Returns a malloc'd
 * string, or NULL when out of memory.
 */
char *hp_install_dir(const char *env_var, const char *sibling, const char *marker,
                        const char *configured)
{
    const char *env = getenv(env_var);
    char *dir;

    if (env != NULL && env[0] != '\0')
        return hp_concat(env, "");
    dir = installed_sibling_dir(sibling, marker);
    if (dir != NULL)
        return dir;
    return hp_concat(configured, "");
}

