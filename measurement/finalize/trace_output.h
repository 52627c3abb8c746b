/*
 * Turning the locations' trace buffers into the OTF2 archive of the experiment, at the
 * end of measurement: the glue between the core (locations, regions, timer) and the
 * OTF2 writer (otf2-writer/). Global time is nanoseconds of CLOCK_MONOTONIC of the
 * reference host (MPI rank 0's): the processes of one host map their timer ticks onto
 * it with one shared mapping (hp_trace_output_set_host_clock), other hosts add their
 * measured offset.
 */
#ifndef HP_MEASUREMENT_FINALIZE_TRACE_OUTPUT_H
#define HP_MEASUREMENT_FINALIZE_TRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "otf2-writer/trace_writer.h"
#include "profile/profile.h"

/* This process's mapping of timer ticks to global time. */
hp_trace_clock hp_trace_output_clock(void);

/* The clock of this process's host (MPI runs): every process on one host maps its ticks
 * with the same numbers, so their events keep the order the host's counter gave them.
 * The host's first rank took the reference pair and the tick rate; its host leader
 * measured the offset of the host's CLOCK_MONOTONIC against the reference host's at
 * MPI_Init and MPI_Finalize (0 on the reference host), with the uncertainty of each
 * measurement (half the shortest round trip; 0 on the reference host). */
typedef struct hp_trace_host_clock {
    uint64_t ticks, ns;       /* reference pair: timer ticks and monotonic ns read together */
    double ticks_per_second;  /* of the timer */
    uint64_t t_init, t_fin;   /* host monotonic ns at the two offset measurements */
    double off_init, off_fin; /* host clock minus reference clock, ns */
    double err_init, err_fin; /* uncertainty of off_init and off_fin, ns */
} hp_trace_host_clock;

/* Uses c for this process's mapping from now on. Without a call (serial programs) the
 * process maps its ticks with its own calibration and no offset. */
void hp_trace_output_set_host_clock(const hp_trace_host_clock *c);

struct hp_trace_cut; /* trace_cut.h */

/* What the processes of a job hand the trace output, which opens, writes and closes
 * the archive: OTF2's collectives over them and the few collectives of the trace step
 * itself, each called on every process in the same order. The MPI trace step fills it
 * (adapters/mpi/mpi_trace.c); a NULL member means one process, which has all it needs
 * itself (hp_trace_output_serial). */
typedef struct hp_trace_job hp_trace_job;
struct hp_trace_job {
    int rank;
    const hp_trace_collectives *otf2; /* OTF2's collectives (trace_writer.h) */
    /* After a failed open: whether this process says why (the first process that
     * failed; the others failed because it did). */
    bool (*says_why)(const hp_trace_job *job);
    /* After the open: the job's consistent cut (trace_cut.h), or NULL for none. */
    struct hp_trace_cut *(*agree_cut)(const hp_trace_job *job);
    /* The unified call tree on every process, from merged on rank 0: *n malloc'd nodes,
     * or NULL (no sampling, out of memory). */
    hp_profile_cnode *(*call_tree)(const hp_trace_job *job, const hp_profile *merged,
                                   uint64_t *n);
    /* Every location's event count at rank 0, in rank then location order, from this
     * process's n counts: a malloc'd array of *total counts on rank 0, NULL elsewhere.
     * A process that could not count sends none, so *total may fall short. */
    uint64_t *(*gather_counts)(const hp_trace_job *job, const uint64_t *mine, int n,
                               size_t *total);
    /* The job's time span at rank 0: the smallest first, the largest last. */
    void (*reduce_span)(const hp_trace_job *job, uint64_t span[2]);
    void *arg;
};

/* What the job unified before its trace: region ids (local -> global; NULL = the same),
 * communicator ids of the events (local -> global; NULL = WORLD and SELF only), and the
 * communicators the program created (rank 0's, for the definitions). */
typedef struct hp_trace_unified {
    const uint32_t *region_map;
    const uint32_t *comm_map;
    uint32_t ncomm_map;
    const hp_trace_comm *comms;
    uint32_t ncomms;
} hp_trace_unified;

/* Collective over the job: opens directory/traces.otf2 on every process or on none,
 * writes this process's locations, rank 0 the global definitions from merged (the
 * unified profile, NULL elsewhere), and closes the archive. Problems are said on
 * stderr. Returns the consistent cut the trace was written with (NULL: none), which the
 * caller reports and frees. */
struct hp_trace_cut *hp_trace_output_write(const char *directory, const hp_profile *merged,
                                           const hp_trace_job *job,
                                           const hp_trace_unified *unified);

/* The whole trace of a serial program into directory. */
void hp_trace_output_serial(const char *directory, const hp_profile *p);

/* Flushes of all locations (for the notes). */
uint64_t hp_trace_output_flushes(void);

/* Samples of all locations that could not be recorded in the trace (for the notes). */
uint64_t hp_trace_output_lost_samples(void);
/* Adaptive mode (HP_TRACE_ADAPTIVE): events (and messages among them) dropped after the
 * events of a buffer filled their share, summed over this process's locations, with the
 * number of locations that stopped and the earliest and latest stop in seconds after
 * their thread's start (for the notes). */
typedef struct hp_trace_output_adaptive {
    uint64_t lost, messages_lost, unclosed, halvings;
    unsigned stopped_locations, halved_locations;
    double first_stop, last_stop;
    uint64_t longest_period; /* ns: the lowest sampling frequency a location ended at */
} hp_trace_output_adaptive;

void hp_trace_output_adaptive_stats(hp_trace_output_adaptive *out);

#endif
