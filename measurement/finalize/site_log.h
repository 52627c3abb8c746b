/*
 * The site accounting log (HP_SITE_LOG, doc/site.md): at the end of a job, the process
 * that writes the job's profile (MPI rank 0, or the only process) appends one JSON line
 * describing the job to a log shared by every job of a site.
 */
#ifndef HP_MEASUREMENT_SITE_LOG_H
#define HP_MEASUREMENT_SITE_LOG_H

#include "profile/profile.h"

/* Appends the record of the job whose unified profile is p to HP_SITE_LOG, when set:
 * one write() with O_APPEND, never through a symbolic link, only to a regular file. A log
 * that cannot be written gets one message on stderr; the job goes on. Finalize only. */
void hp_site_log_append(const hp_profile *p);

#endif
