/*
 * The template of hp-report html's page (tools/report_html_page.html), compiled in as
 * one string by the build (report_html_page.c is generated; see Makefile.am), so that
 * the tool needs no data files at run time. The string holds the marker
 * HP_REPORT_HTML_DATA_MARKER once, where the profile's JSON goes.
 */
#ifndef HP_TOOLS_REPORT_HTML_PAGE_H
#define HP_TOOLS_REPORT_HTML_PAGE_H

#define HP_REPORT_HTML_DATA_MARKER "@HP_REPORT_DATA@"

extern const char hp__report_html_page[];

#endif
