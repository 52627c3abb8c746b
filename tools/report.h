/*
 * hp-report's subcommands: one file each (report_text.c, report_score.c, report_html.c),
 * dispatched by the table in hp-report.c. Each takes the arguments after the
 * subcommand name and returns the exit status: 0, 1 for a failure of the work, 2 for
 * bad input (bad options, unreadable or invalid profile), after a one-line message.
 */
#ifndef HP_TOOLS_REPORT_H
#define HP_TOOLS_REPORT_H

int hp_report_text(int argc, char **argv);  /* hp-report [DIR|FILE.cubex] [options] */
int hp_report_score(int argc, char **argv); /* hp-report score [--suggest-filter] ... */
int hp_report_html(int argc, char **argv);  /* hp-report html [DIR] -o report.html */
int hp_report_site(int argc, char **argv);  /* hp-report site LOG... --by --period */
int hp_report_merge(int argc, char **argv); /* hp-report merge [-o OUT] FILE...|DIR */
int hp_report_timeline(int argc, char **argv); /* hp-report timeline DIR -o run.json */

/* Each subcommand's options, as its --help and `hp-report --help` list them: a heading
 * line, then one line per option ("  --name VALUE   what it does"). */
extern const char hp_report_text_options[];
extern const char hp_report_score_options[];
extern const char hp_report_html_options[];
extern const char hp_report_site_options[];
extern const char hp_report_merge_options[];
extern const char hp_report_timeline_options[];

/* Finds the profile named by arg: a .cubex file, an experiment directory (its
 * profile.cubex), or NULL = the newest hp-* directory in the current directory.
 * Returns a malloc'd path, or NULL after printing a one-line error. */
char *hp_report_find_profile(const char *arg);

struct hp_cube_profile;

/* Finds the profile named by arg (as hp_report_find_profile) and reads it into out.
 * Returns its malloc'd path, or NULL after one line on stderr, prefixed with who when a
 * read fails ("hp-report score: x.cubex: truncated ..."). */
char *hp_report_load_profile(const char *arg, const char *who, struct hp_cube_profile *out);

#endif
