/*
 * hp-report: reads profiles (profile.cubex, ours or Score-P's) and answers questions
 * about them. main() only dispatches: the first argument names a subcommand from the
 * table below, one file each (report_text.c, report_score.c, report_html.c,
 * report_site.c, report_merge.c, report_timeline.c); without one, the default subcommand (the text report)
 * gets all arguments. This file also holds what every subcommand needs first: finding the profile to read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cube_reader.h"
#include "report.h"

enum command_flags {
    CMD_DEFAULT = 1U << 0 /* runs when the first argument is not a subcommand */
};

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *options; /* for --help */
    unsigned flags;
} commands[] = {
    { "text", hp_report_text, hp_report_text_options, CMD_DEFAULT },
    { "score", hp_report_score, hp_report_score_options, 0 },
    { "html", hp_report_html, hp_report_html_options, 0 },
    { "site", hp_report_site, hp_report_site_options, 0 },
    { "merge", hp_report_merge, hp_report_merge_options, 0 },
    { "timeline", hp_report_timeline, hp_report_timeline_options, 0 },
};

enum { NCOMMANDS = sizeof(commands) / sizeof(commands[0]) };

static void usage(FILE *out)
{
    fprintf(out, "usage: hp-report [text] [DIR|FILE.cubex] [--metric NAME] [--rank R] "
                 "[--depth N] [--threshold PCT] [--format text|csv|json]\n"
                 "       hp-report score [DIR|FILE.cubex] [--suggest-filter]\n"
                 "       hp-report html [DIR|FILE.cubex] -o report.html\n"
                 "       hp-report site LOG... --by user|app --period week|month "
                 "[--format text|csv|json|html]\n"
                 "       hp-report merge [-o OUT.cubex] FILE.cubex...|DIR\n"
                 "       hp-report timeline DIR|traces.otf2 [--format json|html] -o FILE "
                 "[--max-per-bin N|--no-thinning]\n"
                 "DIR defaults to the newest hp-* experiment directory here.\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "\n%s", commands[i].options);
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A word that is neither an option nor an existing path: a mistyped subcommand. */
static int looks_like_command(const char *arg)
{
    struct stat st;
    return arg[0] != '-' && strchr(arg, '/') == NULL && strchr(arg, '.') == NULL &&
           stat(arg, &st) != 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; argc > 1 && i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    if (argc > 1 && looks_like_command(argv[1])) {
        fprintf(stderr, "hp-report: unknown subcommand or missing file '%s' "
                        "(subcommands: text, score, html, site, merge, timeline)\n", argv[1]);
        return 2;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].flags & CMD_DEFAULT)
            return commands[i].fn(argc, argv);
    return 2;
}

/* ------------------------------------------------------------------ finding profiles */

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
