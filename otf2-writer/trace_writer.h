/*
 * Writing an OTF2 trace archive (traces.otf2, traces.def, traces/) from the records the
 * measurement buffered during the run. Runs at the end of measurement, never on a hot
 * path. The layout follows Score-P's (see doc/formats/CUBE4-OTF2.md §5-6 and the
 * Score-P sample traces named there), so that Vampir and the OTF2 tools
 * read it. Three files implement it: trace_archive.c (the archive: open, errors, close),
 * trace_events.c (the events of each location) and trace_defs.c (rank 0's global
 * definitions).
 *
 * Usage, on every process of the run (all MPI ranks take part; a serial program is one
 * process):
 *   hp_trace_writer_open(...)                          collective
 *   hp_trace_writer_location(...) per local location    (events of one location)
 *   hp_trace_writer_global_defs(...)                   rank 0 only
 *   hp_trace_writer_close(...)                         collective
 */
#ifndef HP_OTF2_WRITER_TRACE_WRITER_H
#define HP_OTF2_WRITER_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/OTF2_Archive.h>
#include <otf2/OTF2_Callbacks.h>

#include "profile/profile.h"
#include "measurement/trace/trace_buffer.h"

/* Events (hp_trace_event, measurement/trace/trace_buffer.h) come with time in timer ticks of
 * the writing process (mapped with the clock below) and region = a *global* region id
 * (index into the global regions). */

/* Maps a process's raw timer ticks to the trace's global time:
 * global = (uint64_t)((double)(t - t0) * slope + offset), monotonic for monotonic input. */
typedef struct hp_trace_clock {
    uint64_t t0;
    double slope;
    double offset;
} hp_trace_clock;

/* Collective operations over the processes of the run: NULL for a serial program, else
 * a function that installs collective callbacks on the archive (the MPI adapter calls
 * OTF2_MPI_Archive_SetCollectiveCallbacks, a header-only part of OTF2 that needs MPI,
 * which the writer itself must not depend on). */
typedef struct hp_trace_collectives {
    OTF2_ErrorCode (*install)(OTF2_Archive *archive, void *arg);
    /* Optional: called twice by hp_trace_writer_open on every process, with whether its
     * local preparation succeeded and then whether OTF2's collective opening did; returns
     * nonzero only when it succeeded everywhere. Without agreement, a process that failed
     * would leave the others waiting in the collectives that follow. */
    int (*agree)(int ok, void *arg);
    void *arg;
} hp_trace_collectives;

typedef struct hp_trace_writer hp_trace_writer;

/* Opens directory/traces.otf2 for writing (the directory exists). rank: this process's
 * rank (0 for serial). Returns NULL with a one-line message in err. */
hp_trace_writer *hp_trace_writer_open(const char *directory, int rank,
                                      const hp_trace_collectives *collectives,
                                      char *err, size_t errlen);

/* For tests: the event chunk size (OTF2's minimum is 256 KiB) and how many chunks of a
 * location stay in memory before OTF2 writes them out, for writers opened from now on.
 * The defaults are 1 MiB and 4; smaller ones exercise chunking with a smaller trace. */
void hp__trace_writer_set_event_chunks(uint64_t chunk_size, unsigned in_memory);

/* Writes the events of one location of this process. location_id is the OTF2 location
 * id, (uint64_t)rank << 32 | thread. events come in chunks: next(ctx, &events, &n)
 * returns 1 with a chunk, 0 at the end, -1 on error. Events must be in time order per
 * location; flush regions are ordinary Enter/Leave events of their region. Returns the
 * number of events written, or -1 with a message in err. */
int64_t hp_trace_writer_location(hp_trace_writer *w, uint64_t location_id,
                                 const hp_trace_clock *clock,
                                 int (*next)(void *ctx, const hp_trace_event **events,
                                             size_t *n),
                                 void *ctx, char *err, size_t errlen);

/* HP_TRACE_ADAPTIVE, on every process before its locations: samples carry their number
 * (attribute "sample number"), and rank 0 defines generator k = the sampling timer after
 * k halvings. Returns 0, or -1 when OTF2 cannot make an attribute list. */
int hp_trace_writer_set_adaptive(hp_trace_writer *w);

/* The halvings of the sampling frequency of the next location written (adaptive mode):
 * its samples name generator k. */
void hp_trace_writer_set_halvings(hp_trace_writer *w, unsigned halvings);

/* Hybrid traces (sampling on): instrumented regions are CallingContextEnter/Leave
 * events over the unified call tree (context i = call path i). The trace's own marker
 * regions (TRACE BUFFER FLUSH and the like) are not in that tree; marker region k
 * (0 <= k < nmarkers) entered below context parent gets the context computed here
 * (parent UINT32_MAX: at the top), the same on every process without communication. */
static inline uint32_t hp_trace_marker_context(size_t ncnodes, unsigned k, uint32_t parent)
{
    size_t below = parent < ncnodes ? parent : ncnodes;
    return (uint32_t)(ncnodes + (size_t)k * (ncnodes + 1) + below);
}

/* The marker regions (global ids), before global_defs (rank 0): with sampling on, the
 * definitions include every marker context above. The writer keeps the pointer. */
void hp_trace_writer_set_markers(hp_trace_writer *w, const uint32_t *regions, unsigned n);

/* Global definitions, on rank 0 only: clock properties (ticks per second of the global
 * time, the smallest and largest global timestamp of all events), the regions (the
 * unified profile's regions: paradigm strings "compiler", "mpi", "user",
 * "measurement" map to OTF2 paradigms, roles to OTF2 region roles), the system tree
 * (machine -> nodes -> one PROCESS location group per process, "MPI Rank r" or
 * "Process"), and one CPU_THREAD location per profile location with its event count
 * (events[i] for profile location i; its OTF2 id is rank << 32 | thread).
 * Returns 0 or -1 with a message in err. */
int hp_trace_writer_global_defs(hp_trace_writer *w, const hp_profile *p,
                                const uint64_t *events, double ticks_per_second,
                                uint64_t first_time, uint64_t last_time,
                                char *err, size_t errlen);

/* The communicators an MPI program created, defined after MPI_COMM_WORLD (0) and
 * MPI_COMM_SELF (1) with ids 2, 3, ... in array order; call before global_defs (rank 0).
 * The writer keeps the pointer until global_defs. */
typedef struct hp_trace_comm {
    const char *name;        /* "" = unnamed: readers show "Comm ${id}" (paradigm property) */
    uint32_t parent;         /* global id of the parent (smaller than its own), UINT32_MAX = none */
    uint32_t nmembers;
    const uint64_t *members; /* MPI_COMM_WORLD ranks in communicator rank order */
} hp_trace_comm;

void hp_trace_writer_set_comms(hp_trace_writer *w, const hp_trace_comm *comms, uint32_t n);

/* Closes the archive (collective). Returns 0 or -1 with a message in err; the writer is
 * freed either way. */
int hp_trace_writer_close(hp_trace_writer *w, char *err, size_t errlen);

/* Additions for the caller (not in the first version of this interface): */

/* Every location defined in the global definitions must have been passed to
 * hp_trace_writer_location by its process, with an empty stream if need be: its local
 * .def file is written at close, and without it otf2-print and the Python reader fail. */

/* The mapping above as the writer applies it: a tick before t0 maps below offset (not
 * wrapped), negative results become 0. Use it to compute first/last for global_defs. */
uint64_t hp_trace_clock_map(const hp_trace_clock *clock, uint64_t t);

/* MPI runs: the uncertainty of this process's clock mapping (ns of global time) at the
 * two times (global) its host's offset was measured; every location of the process
 * gets two ClockOffset definitions (offset 0: timestamps are written global) carrying
 * them as standard deviation. Without a call no ClockOffset is written. */
void hp_trace_writer_set_clock_error(hp_trace_writer *w, uint64_t t_init, double err_init,
                                     uint64_t t_fin, double err_fin);

/* Timestamps this process raised to the previous one of their location because the
 * clock mapping made them go backwards (OTF2 refuses decreasing timestamps). */
uint64_t hp_trace_writer_clamped(const hp_trace_writer *w);

/* The smallest and largest timestamp this process wrote (after mapping and clamping):
 * returns 1 with them, 0 when it wrote no events. Reduce over the processes (min/max)
 * for global_defs' first_time/last_time; rank 0 also widens the range with its own. */
int hp_trace_writer_time_range(const hp_trace_writer *w, uint64_t *first, uint64_t *last);

#endif
