/*
 * What every hp-report subcommand does first: find the profile it was pointed at (a
 * .cubex file, an experiment directory, or the newest hp-* directory here) and read it.
 * The subcommands call down into this file; hp-report.c only dispatches to them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cube_reader.h"
#include "report_load.h"

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* The newest (by modification time) hp-* directory in the current directory. */
static char *newest_experiment(void)
{
    DIR *d = opendir(".");
    if (d == NULL) {
        fprintf(stderr, "hp-report: cannot read the current directory: %s\n", strerror(errno));
        return NULL;
    }
    char *best = NULL;
    struct timespec best_time = { 0, 0 };
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, "hp-", 3) != 0 || stat(e->d_name, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        if (best == NULL || st.st_mtim.tv_sec > best_time.tv_sec ||
            (st.st_mtim.tv_sec == best_time.tv_sec && st.st_mtim.tv_nsec > best_time.tv_nsec)) {
            free(best);
            best = strdup(e->d_name);
            best_time = st.st_mtim;
        }
    }
    closedir(d);
    if (best == NULL)
        fprintf(stderr, "hp-report: no hp-* experiment directory here; name a directory "
                        "or a .cubex file\n");
    return best;
}

/* An experiment directory's profile: profile.cubex, or the one rank that wrote
 * profile-rank<N>.cubex after MPI_Abort. */
static char *profile_in(const char *dir)
{
    char *path = join(dir, "profile.cubex");
    struct stat st;
    if (path == NULL || stat(path, &st) == 0)
        return path;
    free(path);
    DIR *d = opendir(dir);
    char found[256] = "";
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "profile-rank", 12) == 0 && found[0] == '\0')
            snprintf(found, sizeof(found), "%s", e->d_name);
    if (d != NULL)
        closedir(d);
    if (found[0] != '\0')
        fprintf(stderr, "%s: no profile.cubex (the run was aborted); read %s/%s instead, "
                        "or merge the ranks with hp-report merge %s\n", dir, dir, found, dir);
    else
        fprintf(stderr, "%s: no profile.cubex in this directory (not an experiment "
                        "directory?)\n", dir);
    return NULL;
}

char *hp_report_find_profile(const char *arg)
{
    if (arg == NULL) {
        char *dir = newest_experiment();
        char *path = dir != NULL ? profile_in(dir) : NULL;
        free(dir);
        return path;
    }
    if (is_directory(arg))
        return profile_in(arg);
    struct stat st;
    if (stat(arg, &st) != 0) {
        fprintf(stderr, "%s: %s\n", arg, strerror(errno));
        return NULL;
    }
    char *path = strdup(arg);
    if (path == NULL)
        fprintf(stderr, "hp-report: out of memory\n");
    return path;
}

char *hp_report_load_profile(const char *arg, const char *who, hp_cube_profile *out)
{
    char *path = hp_report_find_profile(arg);
    if (path == NULL)
        return NULL;
    char err[1024];
    if (hp_cube_read(path, out, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s%s%s\n", who, who[0] ? ": " : "", err);
        free(path);
        return NULL;
    }
    return path;
}
