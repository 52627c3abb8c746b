/*
 * The score of a profile (hp-report score): what every region and region type costs in
 * visits, time, estimated trace bytes and measurement memory, and which regions a
 * filter should leave out. The computations work on the unified profile model
 * (profile/profile.h) only, so that they can be tested on hand-built profiles; the
 * HTML report uses the region types, too.
 *
 * Region types (as in scorep-score): MPI = paradigm "mpi"; OMP = paradigm "openmp";
 * ART = measurement and artificial regions (the program root, pseudo-regions such as
 * "TRACE BUFFER FLUSH"); COM = user code with at least one call path that leads to an
 * MPI or OpenMP region; USR = all other user code.
 *
 * Trace model (documented in doc/hp-report-score-html.md): every visit of a region
 * writes an Enter and a Leave event of HP_SCORE_EVENT_BYTES each; an MPI call with the
 * role "point2point" adds one message event, a collective (barrier, one2one, one2all,
 * all2one, all2all, other collective) adds a begin and an end event.
 */
#ifndef HP_TOOLS_REPORT_SCORE_H
#define HP_TOOLS_REPORT_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

/* The OTF2 issue's target for an Enter or Leave event on disk (timestamps as deltas);
 * OTF2 buffers events in memory in the same encoding, so it also sizes the buffer. */
#define HP_SCORE_EVENT_BYTES 12u
#define HP_SCORE_MESSAGE_EVENT_BYTES 16u    /* MpiSend/MpiRecv/MpiIsend/...: peer, comm, tag, length */
#define HP_SCORE_COLLECTIVE_EVENT_BYTES 12u /* MpiCollectiveBegin or MpiCollectiveEnd */

/* Profile memory, from measurement/core/cct.h and memory.h: a call-tree node (112 bytes in
 * the arena) plus its share of the hash table; two pages per location (arena, shadow
 * stack); a region's definition and names; fixed tables of the registry. */
#define HP_SCORE_CNODE_BYTES 144u
#define HP_SCORE_LOCATION_BYTES (2u * 32u * 1024u)
#define HP_SCORE_REGION_BYTES 256u
#define HP_SCORE_PROCESS_BYTES (4u * 32u * 1024u)
/* Trace buffers are handed out in 32 KiB pages per location; one spare page each. */
#define HP_SCORE_TRACE_PAGE_BYTES (32u * 1024u)
/* What leaving out one measured call saves, in ns: unfiltered minus filtered cost per
 * call from doc/bench.md (20.2 - 3.3 ns, profiling with the TSC timer). */
#define HP_SCORE_FILTER_SAVING_NS 17.0

typedef enum hp_score_type {
    HP_SCORE_USR,
    HP_SCORE_COM,
    HP_SCORE_MPI,
    HP_SCORE_OMP,
    HP_SCORE_ART,
    HP_SCORE_NTYPES
} hp_score_type;

/* Totals of one region or one type, over all locations. */
typedef struct hp_score_row {
    hp_score_type type;
    uint64_t visits;
    double time_excl;     /* seconds */
    double time_incl;     /* seconds, outermost calls only (recursion counted once) */
    uint64_t trace_bytes; /* all processes */
    uint64_t max_buf;     /* the largest trace of one process for this row's regions */
    uint64_t cnodes;      /* call paths that end in this region */
} hp_score_row;

typedef struct hp_score {
    const hp_profile *profile;
    hp_score_row *regions; /* indexed by region id */
    hp_score_row types[HP_SCORE_NTYPES];
    hp_score_row all;
    uint64_t *process_trace_bytes;   /* per process: events only */
    uint64_t type_max_buf[HP_SCORE_NTYPES]; /* per type: the largest process's trace */
    uint64_t *process_profile_bytes; /* per process: call trees, regions, fixed */
    uint64_t max_trace_buffer;       /* largest process: events rounded to pages */
    uint64_t max_profile_bytes;      /* largest process */
    uint64_t memory_profiling;       /* HP_TOTAL_MEMORY needed without tracing */
    uint64_t memory_tracing;         /* ... with tracing */
} hp_score;

/* Which regions --suggest-filter proposes: type USR, at least min_visits visits, at most
 * max_us_per_visit inclusive microseconds per visit, and at least min_share_pct percent
 * of all estimated trace bytes. */
typedef struct hp_score_thresholds {
    double max_us_per_visit;
    double min_share_pct;
    uint64_t min_visits;
} hp_score_thresholds;

#define HP_SCORE_THRESHOLDS_DEFAULT { 1.0, 1.0, 10000 }

/* Computes the score of p, which must have the metrics "visits" and "time". Returns 0,
 * or -1 with a one-line message in err (missing metric, out of memory). */
int hp_score_compute(const hp_profile *p, hp_score *s, char *err, size_t errlen);
void hp_score_release(hp_score *s);

const char *hp_score_type_name(hp_score_type t);

/* The type of every region of p into types[nregions] (needs no metric). Returns 0 or -1
 * when out of memory. */
int hp_score_classify(const hp_profile *p, hp_score_type *types);

/* Trace bytes one visit of r writes (Enter, Leave and its MPI events). */
uint64_t hp_score_visit_bytes(const hp_profile_region *r);

/* Memory to set as HP_TOTAL_MEMORY for `needed` bytes: 25% headroom, whole MiB. */
uint64_t hp_score_suggest_memory(uint64_t needed);

/* True when --suggest-filter proposes region r. */
bool hp_score_suggests(const hp_score *s, uint32_t r, const hp_score_thresholds *t);

/* Writes the scorep-score-like tables: totals, memory advice, one row per type, then
 * one per region (by max_buf, then time). Returns 0 or -1 on a write error. */
int hp_score_write_table(FILE *out, const hp_score *s, const char *source);

/* Writes a Score-P filter file excluding the suggested regions, with the predicted cut
 * in events, trace bytes and overhead as comments. Returns 0 or -1 on a write error. */
int hp_score_write_filter(FILE *out, const hp_score *s, const hp_score_thresholds *t,
                          const char *source);

#endif
