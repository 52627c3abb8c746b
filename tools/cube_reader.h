/*
 * Reading Cube4 (.cubex) profiles, ours and Score-P's, into the profile model of
 * profile/profile.h, so that every report (hp-report, summary.txt) is one
 * implementation working on one model.
 *
 * The reader follows doc/formats/CUBE4-OTF2.md: tar members through libarchive,
 * anchor.xml through a real XML parser, data rows by metric enumeration order (not by
 * cnode id), sparse and dense indexes, inclusive vs exclusive storage. The profile it
 * returns satisfies profile.h's invariants: cnodes renumbered in depth-first pre-order
 * with a single root (files with several roots get an artificial root named after the
 * file), metric values per (cnode, location) stored as the metric's kind says.
 */
#ifndef HP_TOOLS_CUBE_READER_H
#define HP_TOOLS_CUBE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* What the file says about one metric of profile.metrics (same index). */
typedef struct hp_cube_metric_info {
    long file_id;            /* the metric's id in the file (names its data members) */
    const char *parent_name; /* uniq_name of the parent in the metric tree, or NULL */
    bool has_data;           /* false: no <id>.index/.data, the values are all zero */
} hp_cube_metric_info;

/* A profile read from a file; it owns all of its memory. Metrics that have no values of
 * their own (derived metrics) or whose values are not one number (RATE, COMPLEX,
 * TAU_ATOMIC, HISTOGRAM, NDOUBLES, SCALE_FUNC) are left out; integer dtypes become
 * HP_DTYPE_UINT64 (HP_DTYPE_DOUBLE when a signed metric has a negative value). */
typedef struct hp_cube_profile {
    hp_profile profile;
    const uint32_t *file_cnode_ids;         /* per profile cnode: its id in the file;
                                               UINT32_MAX for an artificial root */
    const hp_cube_metric_info *metric_info; /* per profile metric */
    void *storage;                          /* private */
} hp_cube_profile;

/* Reads path. Returns 0, or -1 with a one-line message naming the file and the problem
 * in err ("x.cubex: not a Cube4 file (no anchor.xml)", ...). Never crashes on bad
 * input. */
int hp_cube_read(const char *path, hp_cube_profile *out, char *err, size_t errlen);

/* The same for a .cubex file already in memory (len bytes at data, not modified); name
 * stands for the file in messages. */
int hp_cube_read_memory(const char *name, const void *data, size_t len, hp_cube_profile *out,
                        char *err, size_t errlen);

void hp_cube_profile_release(hp_cube_profile *p);

#endif
