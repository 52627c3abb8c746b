/*
 * The agreement on an MPI job's consistent trace cut (measurement/finalize/trace_cut.h),
 * at MPI_Finalize before the trace is written, over the finalize transport's
 * communicator: the earliest stop of any rank's adaptive buffer is the cut (one
 * MPI_Allreduce; nothing more happens when no buffer stopped); each rank then sends each
 * peer its count of message events before the cut per (communicator, tag, direction)
 * (one MPI_Alltoall of sizes and one MPI_Alltoallv of counts), and both sides keep the
 * smaller count; the number of collective operations kept per communicator is the
 * smallest any member completed before the cut (one MPI_Allreduce). After the trace is
 * written, rank 0 gathers what each rank left out, and every rank's adaptive-buffer
 * statistics (halvings, events stopped), and appends them to summary.txt.
 * Every collective here waits off the CPU (mpi_offcpu.h): at finalize most ranks wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/mpi/mpi_comms.h"
#include "adapters/mpi/mpi_offcpu.h"
#include "adapters/mpi/mpi_trace_cut.h"
#include "measurement/core/location.h"
#include "measurement/trace/trace_bins.h"
#include "measurement/finalize/experiment.h"
#include "measurement/finalize/trace_cut.h"
#include "measurement/finalize/trace_output.h"
#include "util/log.h"

#define UNKNOWN UINT64_MAX

/* The job's id of a local communicator id, UNKNOWN when it has none. */
static uint64_t global_comm(uint32_t local, const uint32_t *comm_map, uint32_t ncomm_map)
{
    if (comm_map == NULL)
        return local < 2 ? local : UNKNOWN;
    return local < ncomm_map && comm_map[local] != UINT32_MAX ? comm_map[local] : UNKNOWN;
}

static int compare_channels(const void *a, const void *b)
{
    const hp_trace_cut_channel *x = *(hp_trace_cut_channel *const *)a;
    const hp_trace_cut_channel *y = *(hp_trace_cut_channel *const *)b;
    uint64_t kx[4] = { x->gcomm, x->world, x->tag, x->dir };
    uint64_t ky[4] = { y->gcomm, y->world, y->tag, y->dir };
    for (int i = 0; i < 4; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

/* Each record received from peer src: (communicator, tag, its direction, its count). The
 * matching channel of ours (the other direction) keeps the smaller count; channels no
 * peer reported keep nothing. */
static int apply_peer_counts(hp_trace_cut *cut, const uint64_t *recs, const int *counts,
                             const int *displs, int size)
{
    hp_trace_cut_channel **sorted = malloc((cut->nchannels + 1) * sizeof(*sorted));
    if (sorted == NULL)
        return -1;
    for (size_t i = 0; i < cut->nchannels; i++) {
        sorted[i] = &cut->channels[i];
        sorted[i]->keep = 0;
    }
    qsort(sorted, cut->nchannels, sizeof(*sorted), compare_channels);
    for (int src = 0; src < size; src++) {
        for (int i = displs[src]; i < displs[src] + counts[src]; i += 4) {
            const uint64_t *r = &recs[i];
            hp_trace_cut_channel want = { .gcomm = r[0], .world = (uint64_t)src,
                                          .tag = (uint32_t)r[1], .dir = 1 - (uint32_t)r[2] };
            hp_trace_cut_channel *key = &want, **hit =
                bsearch(&key, sorted, cut->nchannels, sizeof(*sorted), compare_channels);
            if (hit != NULL)
                (*hit)->keep = (*hit)->count < r[3] ? (*hit)->count : r[3];
        }
    }
    free(sorted);
    return 0;
}

/* Every rank's message counts to the peers they name; 0, or -1 when out of memory here
 * or on some rank before an exchange (which every rank then skips). */
static int exchange_channels(hp_trace_cut *cut, MPI_Comm comm, int rank, int size,
                             const uint32_t *comm_map, uint32_t ncomm_map)
{
    int *sc = calloc((size_t)size, sizeof(int)), *sd = calloc((size_t)size, sizeof(int));
    int *rc = calloc((size_t)size, sizeof(int)), *rd = calloc((size_t)size, sizeof(int));
    int *at = calloc((size_t)size, sizeof(int));
    int ok = sc != NULL && sd != NULL && rc != NULL && rd != NULL && at != NULL;
    for (size_t i = 0; ok && i < cut->nchannels; i++) {
        hp_trace_cut_channel *ch = &cut->channels[i];
        int64_t world = hp_mpi_comm_world_rank(ch->comm, ch->peer, rank);
        ch->gcomm = global_comm(ch->comm, comm_map, ncomm_map);
        ch->world = world >= 0 && world < size && ch->gcomm != UNKNOWN ? (uint64_t)world
                                                                       : UNKNOWN;
        if (ch->world != UNKNOWN)
            sc[ch->world] += 4;
    }
    int total = 0;
    for (int p = 0; ok && p < size; p++) {
        sd[p] = at[p] = total;
        total += sc[p];
    }
    uint64_t *out = ok ? malloc(((size_t)total + 1) * sizeof(uint64_t)) : NULL, *in = NULL;
    /* Every exchange is made by all ranks or by none: a rank out of memory says so first. */
    int all_ok = 0;
    ok = out != NULL;
    hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    for (size_t i = 0; all_ok && i < cut->nchannels; i++) {
        const hp_trace_cut_channel *ch = &cut->channels[i];
        if (ch->world == UNKNOWN)
            continue;
        uint64_t *r = &out[at[ch->world]];
        r[0] = ch->gcomm, r[1] = ch->tag, r[2] = ch->dir, r[3] = ch->count;
        at[ch->world] += 4;
    }
    int received = 0;
    if (all_ok) {
        hp__mpi_offcpu_alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
        for (int p = 0; p < size; p++) {
            rd[p] = received;
            received += rc[p];
        }
        in = malloc(((size_t)received + 1) * sizeof(uint64_t));
        ok = in != NULL;
        hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    }
    if (all_ok) {
        hp__mpi_offcpu_alltoallv(out, sc, sd, MPI_UINT64_T, in, rc, rd, MPI_UINT64_T, comm);
        ok = apply_peer_counts(cut, in, rc, rd, size) == 0;
    }
    ok = ok && all_ok;
    free(in);
    free(out);
    free(sc), free(sd), free(rc), free(rd), free(at);
    return ok ? 0 : -1;
}

/* Collective operations kept per communicator: the fewest any member completed before
 * the cut. MPI_COMM_SELF is each rank's own. */
static int agree_collectives(hp_trace_cut *cut, MPI_Comm comm, const uint32_t *comm_map,
                             uint32_t ncomm_map)
{
    uint32_t nlocal = comm_map != NULL && ncomm_map > 2 ? ncomm_map : 2;
    uint64_t mine = 2, n = 0;
    for (uint32_t l = 0; l < nlocal; l++) {
        uint64_t g = global_comm(l, comm_map, ncomm_map);
        if (g != UNKNOWN && g + 1 > mine)
            mine = g + 1;
    }
    hp__mpi_offcpu_allreduce(&mine, &n, 1, MPI_UINT64_T, MPI_MAX, comm);
    uint64_t *fewest = n < (1u << 20) ? malloc(2 * n * sizeof(uint64_t)) : NULL;
    int ok = fewest != NULL, all_ok = 0;
    hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    ok = all_ok;
    for (uint64_t g = 0; ok && g < n; g++)
        fewest[g] = UINT64_MAX;
    for (uint32_t l = 0; ok && l < nlocal; l++) {
        uint64_t g = global_comm(l, comm_map, ncomm_map);
        uint64_t count = l < cut->ncomms ? cut->coll_count[l] : 0;
        if (g != UNKNOWN && g != 1 && count < fewest[g])
            fewest[g] = count;
    }
    uint64_t *agreed = fewest != NULL ? fewest + n : NULL;
    if (ok) { /* the same on every rank */
        hp__mpi_offcpu_allreduce(fewest, agreed, (int)n, MPI_UINT64_T, MPI_MIN, comm);
        for (uint32_t l = 0; l < nlocal && l < cut->ncomms; l++) {
            uint64_t g = global_comm(l, comm_map, ncomm_map);
            if (g == UNKNOWN)
                cut->coll_keep[l] = 0;
            else if (g != 1)
                cut->coll_keep[l] = agreed[g];
        }
    }
    free(fewest);
    return ok ? 0 : -1;
}

hp_trace_cut *hp_mpi_trace_cut_agree(MPI_Comm comm, int rank, int size,
                                     const uint32_t *comm_map, uint32_t ncomm_map)
{
    hp_trace_clock clock = hp_trace_output_clock();
    uint64_t mine = hp_trace_cut_local_stop(&clock), at = HP_TRACE_CUT_NONE;
    hp__mpi_offcpu_allreduce(&mine, &at, 1, MPI_UINT64_T, MPI_MIN, comm);
    if (at == HP_TRACE_CUT_NONE)
        return NULL; /* no buffer stopped: every event is kept */
    hp_trace_cut *cut = hp_trace_cut_new(at, &clock);
    int ok = cut != NULL, all_ok = 0;
    hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok) {
        ok = exchange_channels(cut, comm, rank, size, comm_map, ncomm_map) == 0;
        ok = agree_collectives(cut, comm, comm_map, ncomm_map) == 0 && ok;
        hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    }
    if (!all_ok) {
        if (rank == 0)
            hp_warn("trace: out of memory agreeing on a cut: each rank's events end at its "
                    "own stop, and messages across a stop may lack their other half");
        hp_trace_cut_free(cut);
        return NULL;
    }
    return cut;
}

/* What one rank left out, in global ns and counts. */
typedef struct rank_cut {
    uint64_t start, stop, end, events, messages; /* stop: UINT64_MAX = never */
} rank_cut;

static rank_cut this_rank(const hp_trace_cut *cut)
{
    rank_cut r = { UINT64_MAX, hp_trace_cut_local_stop(&cut->clock), cut->last,
                   cut->events_dropped, cut->messages_dropped };
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next) {
        uint64_t start = hp_trace_clock_map(&cut->clock, l->start_time);
        if (start < r.start)
            r.start = start;
        if (l->trace.bins != NULL) {
            r.events += l->trace.bins->stats.events_lost;
            r.messages += l->trace.bins->stats.messages_lost;
        }
    }
    return r;
}

enum { RANKS_LISTED = 16 };

/* Rank 0: the lines for summary.txt, times in seconds after the job's start. */
static void say_cut(const hp_trace_cut *cut, const rank_cut *all, int size)
{
    uint64_t start = UINT64_MAX, events = 0, messages = 0;
    int longest = 0;
    for (int r = 0; r < size; r++) {
        start = all[r].start < start ? all[r].start : start;
        events += all[r].events;
        messages += all[r].messages;
        if (all[r].end > all[longest].end)
            longest = r;
    }
    double at = (double)(cut->at - (start < cut->at ? start : cut->at)) / 1e9;
    size_t cap = 512 + 128 * (size_t)(size < RANKS_LISTED ? size : RANKS_LISTED);
    char *text = malloc(cap);
    if (text == NULL)
        return;
    int n = snprintf(text, cap,
                     "\nTrace cut (HP_TRACE_ADAPTIVE): events stopped at their share on some "
                     "rank, so the trace keeps every rank's events up to the job's earliest "
                     "stop, %.3f s after the start, each kept message with both halves; "
                     "samples go on to the end. Left out (TRACE EVENTS DROPPED in the trace): "
                     "%llu events, %llu messages on %d ranks, the latest up to %.3f s on rank %d\n",
                     at, (unsigned long long)events, (unsigned long long)messages, size,
                     all[longest].end > start ? (double)(all[longest].end - start) / 1e9 : at,
                     longest);
    for (int r = 0; r < size && r < RANKS_LISTED && n > 0 && (size_t)n < cap; r++) {
        double end = all[r].end > start ? (double)(all[r].end - start) / 1e9 : at;
        char stop[48] = "never stopped";
        if (all[r].stop != UINT64_MAX)
            snprintf(stop, sizeof(stop), "stopped at %.3f s",
                     (double)(all[r].stop - (start < all[r].stop ? start : all[r].stop)) / 1e9);
        n += snprintf(text + n, cap - (size_t)n,
                      "  rank %d: events %s; from %.3f to %.3f s left out: %llu events, "
                      "%llu messages\n", r, stop, at, end > at ? end : at,
                      (unsigned long long)all[r].events, (unsigned long long)all[r].messages);
    }
    if (size > RANKS_LISTED && n > 0 && (size_t)n < cap)
        snprintf(text + n, cap - (size_t)n, "  (ranks from %d on not listed)\n", RANKS_LISTED);
    hp_experiment_append_summary(text);
    hp_warn("trace: cut at %.3f s, the earliest stop of a rank's events: %llu events "
            "(%llu messages) left out on %d ranks (summary.txt)", at,
            (unsigned long long)events, (unsigned long long)messages, size);
    free(text);
}

/* Rank 0: the job's adaptive-buffer notes (summed over ranks) for summary.txt and
 * stderr, in place of rank 0's own, which the profile left out (experiment.c). */
static void say_adaptive(const hp_trace_output_adaptive *all, int size)
{
    hp_trace_output_adaptive job = { .first_stop = -1 };
    for (int r = 0; r < size; r++) {
        const hp_trace_output_adaptive *a = &all[r];
        job.lost += a->lost;
        job.messages_lost += a->messages_lost;
        job.unclosed += a->unclosed;
        job.halvings += a->halvings;
        job.halved_locations += a->halved_locations;
        job.stopped_locations += a->stopped_locations;
        if (a->stopped_locations > 0 && (job.first_stop < 0 || a->first_stop < job.first_stop))
            job.first_stop = a->first_stop;
        if (a->stopped_locations > 0 && a->last_stop > job.last_stop)
            job.last_stop = a->last_stop;
        if (a->longest_period > job.longest_period)
            job.longest_period = a->longest_period;
    }
    char notes[2][256], text[2 * 256 + 128];
    size_t n = hp_experiment_adaptive_notes(&job, notes);
    if (n == 0)
        return;
    int len = snprintf(text, sizeof(text), "\nMeasurement notes on the trace (all %d ranks):\n",
                       size);
    for (size_t i = 0; i < n && len > 0 && (size_t)len < sizeof(text); i++) {
        len += snprintf(text + len, sizeof(text) - (size_t)len, "  - %s\n", notes[i]);
        hp_warn("%s", notes[i]);
    }
    hp_experiment_append_summary(text);
}

/* What one rank sends rank 0 after the trace is written. */
typedef struct rank_report {
    rank_cut cut; /* zeros when there was no cut */
    hp_trace_output_adaptive adaptive;
} rank_report;

void hp_mpi_trace_cut_report(const hp_trace_cut *cut, MPI_Comm comm, int rank, int size)
{
    rank_report mine = { { 0, 0, 0, 0, 0 }, { 0 } };
    if (cut != NULL)
        mine.cut = this_rank(cut);
    hp_trace_output_adaptive_stats(&mine.adaptive);
    rank_report *all = rank == 0 ? malloc((size_t)size * sizeof(*all)) : NULL;
    rank_cut *cuts = rank == 0 ? malloc((size_t)size * sizeof(*cuts)) : NULL;
    hp_trace_output_adaptive *adaptive =
        rank == 0 ? malloc((size_t)size * sizeof(*adaptive)) : NULL;
    /* The ranks of one job run one build on one kind of machine: the records are sent
     * as bytes. */
    int room = rank != 0 || (all != NULL && cuts != NULL && adaptive != NULL);
    /* rank 0 out of memory: no report, no gather */
    hp__mpi_offcpu_bcast(&room, 1, MPI_INT, 0, comm);
    if (room)
        hp__mpi_offcpu_gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine),
                              MPI_BYTE, 0, comm);
    if (rank == 0 && all != NULL && cuts != NULL && adaptive != NULL) {
        for (int r = 0; r < size; r++) {
            cuts[r] = all[r].cut;
            adaptive[r] = all[r].adaptive;
        }
        if (cut != NULL)
            say_cut(cut, cuts, size);
        if (size > 1)
            say_adaptive(adaptive, size);
    }
    free(all);
    free(cuts);
    free(adaptive);
}
