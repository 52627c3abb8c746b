/*
 * Cube4 (.cubex) profile writer: turns the unified profile (profile.h) into the file that
 * CubeGUI, CubeLib's tools (cube_dump, cube_stat, ...) and pycubexr/Extra-P read.
 *
 * The file is an uncompressed ustar archive holding anchor.xml (metadata: metrics,
 * regions, call tree, system tree) and one <id>.index / <id>.data pair per metric
 * (sparse index of the call-tree rows that have a non-zero value somewhere, then the
 * values of those rows, one per location). The format facts and reader quirks it obeys
 * are in doc/formats/CUBE4-OTF2.md §1-4; every file it writes passes
 * test/tools/cubecheck.py.
 *
 * It runs once, at finalize, on rank 0: it uses stdio and malloc and is not
 * async-signal-safe. It never exits or aborts the host program.
 */
#ifndef HP_PROFILE_CUBE_WRITER_H
#define HP_PROFILE_CUBE_WRITER_H

#include <stddef.h>

#include "profile.h"

/* Writes the profile as a Cube4 file at path (the name is used as given, no ".cubex" is
 * appended). The file is written to "<path>.tmp" and renamed into place, so path holds
 * either a complete file or whatever was there before; the temporary file is removed on
 * failure. The profile must satisfy the invariants listed in profile.h (they are checked;
 * a violation is reported as an error, nothing is written).
 *
 * Returns 0, or -1 with a one-line message in err (what failed, the path, strerror where
 * a system call failed); err may be NULL when errlen is 0. */
int hp_cube_write(const hp_profile *p, const char *path, char *err, size_t errlen);

#endif
