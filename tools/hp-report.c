/*
 * hp-report: reads profiles (profile.cubex, ours or Score-P's) and answers questions
 * about them. main() only dispatches: the first argument names a subcommand from the
 * table below, one file each (report_text.c, report_score.c, report_html.c,
 * report_site.c, report_merge.c, report_timeline.c); without one, the default subcommand (the text report)
 * gets all arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
