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

#endif
