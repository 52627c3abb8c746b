/*
 * Finding and reading the profile a subcommand is pointed at (tools/report_load.c).
 * Every subcommand that reads one profile starts here.
 */
#ifndef HP_TOOLS_REPORT_LOAD_H
#define HP_TOOLS_REPORT_LOAD_H

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
