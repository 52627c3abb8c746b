/*
 * Builds the unified profile (profile.h) of this process from the call trees of all
 * its locations: the trees are merged by call path into one tree, numbered in
 * depth-first pre-order with children in order of first appearance, and every metric
 * gets one value per (call path, location), zero where a location never took that path.
 */
#ifndef HP_MEASUREMENT_PROFILE_BUILD_H
#define HP_MEASUREMENT_PROFILE_BUILD_H

#include <stdbool.h>

#include "measurement/core/location.h"
#include "measurement/waitstates/waitstates.h"
#include "profile/profile.h"

/* The profile plus the storage behind it. */
typedef struct hp_profile_data {
    hp_profile profile;
    hp_profile_region *regions;
    hp_profile_cnode *cnodes;
    hp_profile_node node;
    hp_profile_process process;
    hp_profile_location *locations;
    char (*location_names)[32];
    hp_profile_metric metrics[9 + HP_METRICS_MAX + HP_WSM_COUNT];
    uint64_t *visits;
    double *time;
    double *min_time;
    double *max_time;
    double *recursion_depth; /* NULL unless HP_PROFILING_RECURSION=collapse */
    uint64_t *message_values[4]; /* bytes_sent, bytes_received, messages_sent, _received */
    uint64_t *counter_values[HP_METRICS_MAX]; /* metrics.h's counters, in their order */
    double *wait_values[HP_WSM_COUNT]; /* waitstates.h's metrics, NULL without them */
    hp_profile_call_count *unmeasured;
} hp_profile_data;

typedef struct hp_profile_options {
    int rank;           /* MPI rank of this process, 0 without MPI */
    bool with_messages; /* add bytes_sent, bytes_received, messages_sent, messages_received */
    bool with_recursion; /* add recursion_depth (HP_PROFILING_RECURSION=collapse) */
    bool with_wait_states; /* add the MPI and wait-state metrics (HP_WAIT_STATES) */
} hp_profile_options;

/* Builds the profile of the locations in list (any order; they are ordered by id).
 * ticks_per_second converts timer ticks. Returns 0, or -1 when memory ran out. */
int hp_profile_build(hp_profile_data *d, hp_location *list, double ticks_per_second,
                     const char *host_name, const char *creator,
                     const hp_profile_options *options);

void hp_profile_data_release(hp_profile_data *d);

#endif
