/*
 * The consistent cut of an MPI job's trace (trace_cut.c): when the adaptive buffer of some
 * location stopped holding events (trace_bins.h), the processes agree at finalize on one
 * time T, the earliest stop of the job, and every location keeps only its events before
 * T; its samples go on to the end. Within that range a message is kept only when both its
 * halves are: for each channel (communicator, peer, tag, direction) a process keeps the
 * first min(its own count, its peer's count) message events, and for each communicator
 * the first n collective operations, n the smallest number completed before T on any
 * member. Regions open at T are left at T, and the dropped range is the region TRACE
 * EVENTS DROPPED, from T to the location's last record.
 *
 * This file counts and filters; the agreement itself (one minimum over the job, counts
 * exchanged with peers) is the transport's (adapters/mpi/mpi_trace_cut.c). Runs at the
 * end of measurement only: malloc is fine.
 */
#ifndef HP_MEASUREMENT_FINALIZE_TRACE_CUT_H
#define HP_MEASUREMENT_FINALIZE_TRACE_CUT_H

#include <stddef.h>
#include <stdint.h>

#include "measurement/trace/trace_buffer.h"
#include "otf2-writer/trace_writer.h"
#include "util/hash.h"

#define HP_TRACE_CUT_NONE UINT64_MAX

enum { HP_TRACE_CUT_SEND = 0, HP_TRACE_CUT_RECV = 1 };

/* Message events of one direction between this process and one peer of a communicator,
 * with one tag (MPI's non-overtaking order holds within it). */
typedef struct hp_trace_cut_channel {
    uint32_t comm;  /* local communicator id of the events */
    uint32_t peer;  /* rank in that communicator */
    uint32_t tag;
    uint32_t dir;   /* HP_TRACE_CUT_SEND or HP_TRACE_CUT_RECV */
    uint64_t count; /* events before the cut */
    uint64_t keep;  /* agreed: the first keep of them are written */
    uint64_t used;  /* written so far */
    uint64_t gcomm; /* for the transport: the job's id of comm */
    uint64_t world; /* for the transport: the peer's rank in the job */
} hp_trace_cut_channel;

/* Request ids (unique in a process) with a value each; open addressing. */
typedef struct hp_trace_cut_set {
    uint64_t *keys;   /* id + 1; 0 = empty, UINT64_MAX = removed */
    uint64_t *values;
    size_t size, used;
} hp_trace_cut_set;

typedef struct hp_trace_cut {
    uint64_t at;                  /* T, global ns */
    hp_trace_clock clock;         /* this process's mapping of ticks to global time */
    hp_trace_cut_channel *channels;
    size_t nchannels, capacity;
    hp_hash_index index;          /* the channels by key (util/hash.h) */
    hp_trace_cut_set requests;    /* pass 1: requests open at T (value: channel + 1, or 0);
                                     pass 2: requests whose events are left out */
    hp_trace_cut_set receives;    /* MPI_Irecv requests completed before T: channel + 1
                                     << 32 | the receive's number in its channel */
    uint64_t *coll_count;         /* per local communicator: operations completed before T */
    uint64_t *coll_keep;          /* agreed: the first coll_keep[c] are written */
    uint64_t *coll_used;
    uint32_t ncomms;
    /* What the filter dropped on this process, for the summary. */
    uint64_t events_dropped, messages_dropped;
    uint64_t last;                /* global ns of the latest record of a location cut */
    int failed;                   /* out of memory while counting */
} hp_trace_cut;

/* The earliest time (global ns) at which an adaptive buffer of this process stopped
 * holding events, HP_TRACE_CUT_NONE when none did. */
uint64_t hp_trace_cut_local_stop(const hp_trace_clock *clock);

/* Counts this process's message channels and collective operations before at (global
 * ns); every keep is set to its count until the transport lowers it. Returns NULL when
 * out of memory. */
hp_trace_cut *hp_trace_cut_new(uint64_t at, const hp_trace_clock *clock);
void hp_trace_cut_free(hp_trace_cut *c);

/* The channel of (comm, peer, tag, dir), NULL when this process has none. */
hp_trace_cut_channel *hp_trace_cut_find(hp_trace_cut *c, uint32_t comm, uint32_t peer,
                                        uint32_t tag, uint32_t dir);

/* One location's records through the cut, as hp_trace_reader_next gives them. */
typedef struct hp_trace_cut_filter {
    hp_trace_cut *cut;
    hp_trace_reader *reader;
    uint32_t dropped_region;      /* local id of TRACE EVENTS DROPPED */
    uint32_t *open;               /* regions entered before T and not left */
    size_t nopen, open_capacity;
    hp_trace_event *out;
    size_t out_capacity;
    uint64_t last_raw;            /* ticks of the latest record read */
    uint64_t last_kept_raw;       /* ticks of the latest record written */
    uint64_t range_raw;           /* ticks at which the dropped range starts */
    int past;                     /* T was reached: the marker is open */
    int done;
    int skip_coll_end;            /* a collective's Begin was dropped: drop its End */
} hp_trace_cut_filter;

void hp_trace_cut_filter_init(hp_trace_cut_filter *f, hp_trace_cut *c, hp_trace_reader *r,
                              uint32_t dropped_region);
int hp_trace_cut_filter_next(hp_trace_cut_filter *f, const hp_trace_event **events,
                             size_t *n);
void hp_trace_cut_filter_release(hp_trace_cut_filter *f);

#endif
