/*
 * hp-report timeline: the model of a trace that the timeline writers need, read from an
 * OTF2 archive with libotf2's reader (report_timeline.c), and the two writers
 * (report_timeline_write.c): the Chrome/Perfetto trace-event JSON and the
 * self-contained HTML timeline. The model is a set of tracks (one per OTF2 location:
 * a rank's thread), each holding its kept slices (a region visit with start, duration
 * and call path), its samples, and the messages between tracks. Call paths are interned
 * in one tree shared by all tracks (node = parent, region), so that a slice or a sample
 * names its whole call path with one number.
 */
#ifndef HP_TOOLS_REPORT_TIMELINE_H
#define HP_TOOLS_REPORT_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HP_TIMELINE_BINS 2000  /* the run is cut into this many bins for thinning */
#define HP_TIMELINE_NO_PATH UINT32_MAX

typedef struct {
    uint64_t start_ns;  /* since the start of the trace */
    uint64_t dur_ns;
    uint32_t path;      /* node of the call-path tree; its region is the slice's */
} hp_timeline_slice;

typedef struct {
    uint64_t ts_ns;
    uint32_t path;
} hp_timeline_sample;

typedef struct {
    uint32_t from_track, to_track;
    uint64_t send_ns, recv_ns;
    uint64_t bytes;
    uint32_t tag;
} hp_timeline_message;

typedef struct {
    uint64_t location;       /* OTF2 location id */
    char *process;           /* location group's name, e.g. "MPI Rank 1" */
    char *thread;            /* location's name, e.g. "Master thread" */
    uint32_t pid;            /* index of the location group */
    hp_timeline_slice *slices;
    size_t nslices, cap_slices;
    hp_timeline_sample *samples;
    size_t nsamples, cap_samples;
    uint64_t enters, dropped; /* region visits read; visits thinned away */
} hp_timeline_track;

typedef struct {
    uint32_t parent;  /* HP_TIMELINE_NO_PATH for a root */
    uint32_t region;
    uint32_t depth;   /* 0 for a root */
} hp_timeline_path;

typedef struct {
    char **region_names;
    bool *region_is_mpi;
    size_t nregions;
    hp_timeline_path *paths;
    size_t npaths;
    hp_timeline_track *tracks;
    size_t ntracks;
    hp_timeline_message *messages;
    size_t nmessages;
    uint64_t events;          /* OTF2 events read, of every kind */
    uint64_t samples;         /* CallingContextSample events read */
    uint64_t unmatched_sends, unmatched_recvs;
    uint64_t unclosed;        /* visits open at the trace's end, ended there */
    uint64_t length_ns;       /* the trace's length */
    unsigned max_per_bin;     /* 0 = no thinning */
} hp_timeline;

/* Writers: 0 on success, -1 after a message on stderr (the output could not be written). */
int hp__timeline_write_json(const hp_timeline *tl, FILE *out);
int hp__timeline_write_html(const hp_timeline *tl, FILE *out);

#endif
