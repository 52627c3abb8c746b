/*
 * The page of hp-report timeline --format html (tools/report_timeline_page.html),
 * compiled in as one string by the build the same way as hp-report html's page
 * (report_timeline_page.c is generated; see Makefile.am), so that the tool needs no data
 * files at run time. The string holds HP_REPORT_TIMELINE_DATA_MARKER once, where the
 * trace's JSON goes.
 */
#ifndef HP_TOOLS_REPORT_TIMELINE_PAGE_H
#define HP_TOOLS_REPORT_TIMELINE_PAGE_H

#define HP_REPORT_TIMELINE_DATA_MARKER "@HP_TIMELINE_DATA@"

extern const char hp__report_timeline_page[];

#endif
