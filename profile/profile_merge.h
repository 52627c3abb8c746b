/*
 * Profiles of several processes (MPI ranks) as one: a profile can be flattened into a
 * byte buffer (to send it to another rank), read back, and merged with another profile.
 *
 * Merging unites the region definitions (same name, mangled name, file, line, paradigm
 * and role = same region), the call trees (by call path) and the system trees (nodes by
 * host name); the locations of the second profile follow those of the first, and every
 * metric value keeps its (call path, location), zero where a location never took that
 * path. Both profiles must have the same metrics in the same order.
 */
#ifndef HP_PROFILE_PROFILE_MERGE_H
#define HP_PROFILE_PROFILE_MERGE_H

#include <stddef.h>

#include "profile.h"

/* A profile that owns all of its memory. */
typedef struct hp_owned_profile {
    hp_profile profile;
    void *storage; /* private */
} hp_owned_profile;

/* Flattens p into a new malloc'ed buffer. Returns 0, or -1 when memory ran out. */
int hp_profile_serialize(const hp_profile *p, void **buffer, size_t *length);

/* Reads a buffer made by hp_profile_serialize (on a machine of the same byte order).
 * Returns 0, or -1 when the buffer is malformed or memory ran out. */
int hp_profile_deserialize(const void *buffer, size_t length, hp_owned_profile *out);

/* out = a followed by b. Returns 0, or -1 (memory, or different metric sets). */
int hp_profile_merge(const hp_profile *a, const hp_profile *b, hp_owned_profile *out);

void hp_owned_profile_release(hp_owned_profile *p);

#endif
