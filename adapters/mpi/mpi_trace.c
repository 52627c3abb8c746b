/*
 * The MPI side of the OTF2 trace, at MPI_Finalize after the profiles were unified: rank
 * 0 sends every rank the job's region table (so each rank can translate its own region
 * ids into the global ones), the communicators the program created are unified
 * (mpi_comms.c; each rank learns their global ids), and the trace output
 * (measurement/finalize/trace_output.h), which opens, writes and closes the archive,
 * gets what it needs of MPI: OTF2's MPI collectives (on a private communicator, calling
 * PMPI), the agreement that the archive can be opened everywhere before any rank enters
 * them, the consistent cut (mpi_trace_cut.c), the unified call tree, and every
 * location's event count and the job's time span at rank 0.
 */
#include <mpi.h>

#include "adapters/mpi/mpi_offcpu.h"

/* OTF2's MPI collectives, calling PMPI, with the blocking operations they use pointed
 * at their off-CPU forms (mpi_offcpu.h): OTF2 opens and closes the archive with
 * collectives, and at many ranks per core, ranks busy-polling in them took the CPU from
 * the ones still writing. */
#define OTF2_MPI_USE_PMPI
#define PMPI_Barrier hp__mpi_offcpu_barrier
#define PMPI_Bcast hp__mpi_offcpu_bcast
#define PMPI_Gather hp__mpi_offcpu_gather
#define PMPI_Gatherv hp__mpi_offcpu_gatherv
#define PMPI_Scatter hp__mpi_offcpu_scatter
#define PMPI_Scatterv hp__mpi_offcpu_scatterv
#define PMPI_Comm_dup hp__mpi_offcpu_comm_dup
#include <otf2/OTF2_MPI_Collectives.h>
#undef PMPI_Barrier
#undef PMPI_Bcast
#undef PMPI_Gather
#undef PMPI_Gatherv
#undef PMPI_Scatter
#undef PMPI_Scatterv
#undef PMPI_Comm_dup

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/mpi/mpi_comms.h"
#include "adapters/mpi/mpi_clock.h"
#include "adapters/mpi/mpi_trace.h"
#include "adapters/mpi/mpi_trace_cut.h"
#include "adapters/mpi/mpi_transport.h"
#include "measurement/core/config.h"
#include "measurement/core/region.h"
#include "measurement/core/timer.h"
#include "measurement/finalize/finalize_timing.h"
#include "measurement/finalize/trace_output.h"
#include "util/log.h"

/* A region's identity as one string, the same on every rank. */
static size_t region_key(char *out, size_t size, const char *name, const char *mangled,
                         const char *file, int line, const char *paradigm, const char *role)
{
    int n = snprintf(out, size, "%s\x1f%s\x1f%s\x1f%d\x1f%s\x1f%s", name, mangled, file, line,
                     paradigm, role);
    return n < 0 ? 0 : (size_t)n + 1;
}

/* Rank 0: the global region keys, NUL-separated, in global id order. */
static char *pack_regions(const hp_profile *p, uint64_t *length)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t i = 0; buf != NULL && i < p->nregions; i++) {
        const hp_profile_region *r = &p->regions[i];
        size_t need = strlen(r->name) + strlen(r->mangled_name) + strlen(r->file) +
                      strlen(r->paradigm) + strlen(r->role) + 32;
        if (len + need > cap) {
            char *grown = realloc(buf, cap = 2 * (len + need));
            if (grown == NULL) {
                free(buf);
                return NULL;
            }
            buf = grown;
        }
        len += region_key(buf + len, cap - len, r->name, r->mangled_name, r->file,
                          r->begin_line, r->paradigm, r->role);
    }
    *length = buf != NULL ? len : 0;
    return buf;
}

typedef struct keyed_id {
    const char *key;
    uint32_t id;
} keyed_id;

static int compare_keyed(const void *a, const void *b)
{
    return strcmp(((const keyed_id *)a)->key, ((const keyed_id *)b)->key);
}

/* Local region id -> global id: each local region's key is looked up among the global
 * keys, sorted once. A region rank 0 does not know (cannot happen after unification)
 * maps to 0. Returns a malloc'd array of hp_region_count() ids, or NULL. */
static uint32_t *map_regions(const char *packed, uint64_t length)
{
    size_t nglobal = 0;
    for (uint64_t i = 0; i < length; i++)
        nglobal += packed[i] == '\0';
    keyed_id *global = malloc((nglobal ? nglobal : 1) * sizeof(keyed_id));
    uint32_t nlocal = hp_region_count();
    uint32_t *map = calloc(nlocal ? nlocal : 1, sizeof(uint32_t));
    if (global == NULL || map == NULL) {
        free(global);
        free(map);
        return NULL;
    }
    const char *k = packed;
    for (size_t i = 0; i < nglobal; i++, k += strlen(k) + 1)
        global[i] = (keyed_id){ k, (uint32_t)i };
    qsort(global, nglobal, sizeof(keyed_id), compare_keyed);
    for (uint32_t id = 0; id < nlocal; id++) {
        const hp_region *r = hp_region_at(id);
        char key[4096];
        region_key(key, sizeof(key), r->name, r->mangled, r->file, r->line,
                   hp_paradigm_name(r->paradigm), r->role);
        keyed_id want = { key, 0 };
        const keyed_id *hit = bsearch(&want, global, nglobal, sizeof(keyed_id), compare_keyed);
        map[id] = hit != NULL ? hit->id : 0;
    }
    free(global);
    return map;
}

/* Rank 0's region table to every rank, then this rank's map. */
static uint32_t *share_region_map(const hp_profile *merged, MPI_Comm comm, int rank)
{
    uint64_t length = 0;
    char *packed = rank == 0 && merged != NULL ? pack_regions(merged, &length) : NULL;
    hp__mpi_offcpu_bcast(&length, 1, MPI_UINT64_T, 0, comm);
    if (rank != 0)
        packed = length > 0 ? malloc(length) : NULL;
    int ok = length > 0 && packed != NULL && length < INT32_MAX;
    int all_ok = 0;
    hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    uint32_t *map = NULL;
    if (all_ok) {
        hp__mpi_offcpu_bcast(packed, (int)length, MPI_CHAR, 0, comm);
        map = map_regions(packed, length);
    }
    free(packed);
    return map;
}

/* With sampling on, rank 0's unified call tree to every rank: its nodes are the calling
 * contexts of the samples (trace_contexts.h), which every rank resolves for its own.
 * The configuration, the same on every rank, decides, so all ranks take part or none.
 * Returns a malloc'd array of *n nodes, or NULL (no sampling, out of memory). */
static hp_profile_cnode *share_call_tree(const hp_profile *merged, MPI_Comm comm, int rank,
                                         uint64_t *n)
{
    *n = 0;
    if (hp_cfg.sampling_frequency == 0)
        return NULL;
    uint64_t count = rank == 0 && merged != NULL ? merged->ncnodes : 0;
    hp__mpi_offcpu_bcast(&count, 1, MPI_UINT64_T, 0, comm);
    hp_profile_cnode *tree = count > 0 ? malloc(count * sizeof(*tree)) : NULL;
    if (rank == 0 && tree != NULL)
        memcpy(tree, merged->cnodes, count * sizeof(*tree));
    int ok = tree != NULL && count < INT32_MAX / 2, all_ok = 0;
    hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(tree);
        return NULL;
    }
    _Static_assert(sizeof(hp_profile_cnode) == 2 * sizeof(uint32_t),
                   "a call-tree node is sent as two uint32_t");
    hp__mpi_offcpu_bcast(tree, (int)(2 * count), MPI_UINT32_T, 0, comm);
    *n = count;
    return tree;
}

/* The MPI side of one trace: the communicator, this rank and the job's size, and the
 * first rank whose archive could not be opened (INT_MAX = none). */
typedef struct mpi_trace_job {
    MPI_Comm comm;
    int rank, size;
    int first_failed;
    const uint32_t *comm_map;
    uint32_t ncomm_map;
} mpi_trace_job;

static mpi_trace_job *mpi_of(const hp_trace_job *job)
{
    return job->arg;
}

/* Event counts of every location of the job at rank 0, in rank then thread order (the
 * order of the unified profile's locations). Returns a malloc'd array on rank 0. */
static uint64_t *gather_counts(const hp_trace_job *job, const uint64_t *mine, int nmine,
                               size_t *ntotal)
{
    const mpi_trace_job *m = mpi_of(job);
    int *counts = m->rank == 0 ? calloc((size_t)m->size, sizeof(int)) : NULL;
    int *displs = m->rank == 0 ? calloc((size_t)m->size, sizeof(int)) : NULL;
    hp__mpi_offcpu_gather(&nmine, 1, MPI_INT, counts, 1, MPI_INT, 0, m->comm);
    uint64_t *all = NULL;
    int total = 0;
    if (m->rank == 0 && counts != NULL && displs != NULL) {
        for (int r = 0; r < m->size; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = calloc(total > 0 ? (size_t)total : 1, sizeof(uint64_t));
    }
    hp__mpi_offcpu_gatherv(mine, nmine, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0,
                           m->comm);
    free(counts);
    free(displs);
    *ntotal = all != NULL ? (size_t)total : 0;
    return all;
}

static void reduce_span(const hp_trace_job *job, uint64_t span[2])
{
    const mpi_trace_job *m = mpi_of(job);
    uint64_t global[2];
    hp__mpi_offcpu_reduce(&span[0], &global[0], 1, MPI_UINT64_T, MPI_MIN, 0, m->comm);
    hp__mpi_offcpu_reduce(&span[1], &global[1], 1, MPI_UINT64_T, MPI_MAX, 0, m->comm);
    span[0] = global[0];
    span[1] = global[1];
}

static hp_profile_cnode *call_tree(const hp_trace_job *job, const hp_profile *merged,
                                   uint64_t *n)
{
    const mpi_trace_job *m = mpi_of(job);
    return share_call_tree(merged, m->comm, m->rank, n);
}

static hp_trace_cut *agree_cut(const hp_trace_job *job)
{
    const mpi_trace_job *m = mpi_of(job);
    return hp_mpi_trace_cut_agree(m->comm, m->rank, m->size, m->comm_map, m->ncomm_map);
}

/* OTF2's collectives over the communicator, calling PMPI (off-CPU, see above). */
static OTF2_ErrorCode install_mpi_collectives(OTF2_Archive *archive, void *arg)
{
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, ((mpi_trace_job *)arg)->comm,
                                                   MPI_COMM_NULL);
}

/* Whether every rank could prepare the archive, and which failed first. */
static int agree_on_open(int ok, void *arg)
{
    mpi_trace_job *m = arg;
    int mine = ok ? INT_MAX : m->rank;
    hp__mpi_offcpu_allreduce(&mine, &m->first_failed, 1, MPI_INT, MPI_MIN, m->comm);
    return m->first_failed == INT_MAX;
}

static bool says_why(const hp_trace_job *job)
{
    const mpi_trace_job *m = mpi_of(job);
    return m->first_failed == m->rank || m->first_failed == INT_MAX;
}

/* Collective over comm: the job's definitions unified, then every rank writes its
 * locations into directory/traces.otf2 through the trace output (trace_output.h), which
 * opens and closes the archive with the collectives given here. */
static void write_trace(const char *directory, const hp_profile *merged, MPI_Comm comm,
                        int rank, int size)
{
    hp_finalize_phase_enter(HP_PHASE_UNIFY); /* the definitions, then the files */
    uint32_t *map = share_region_map(merged, comm, rank);
    hp_trace_comm *comms = NULL;
    uint32_t ncomms = 0, *comm_map = NULL, ncomm_map = 0;
    if (hp_mpi_comms_unify(comm, rank, &comms, &ncomms, &comm_map, &ncomm_map) < 0 &&
        rank == 0)
        hp_warn("trace: out of memory unifying the communicators; events "
                "on communicators the program created are left out");
    if (hp_mpi_comms_lost() > 0)
        hp_warn("rank %d: trace: %llu communicators were not recorded "
                "(registry full); their events are left out", rank,
                (unsigned long long)hp_mpi_comms_lost());
    hp_finalize_phase_enter(HP_PHASE_TRACE);
    int ok = map != NULL && directory[0] != '\0', all_ok = 0;
    hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    mpi_trace_job m = { .comm = comm, .rank = rank, .size = size, .first_failed = INT_MAX,
                        .comm_map = comm_map, .ncomm_map = ncomm_map };
    hp_trace_collectives otf2 = { .install = install_mpi_collectives,
                                  .agree = agree_on_open, .arg = &m };
    hp_trace_job job = { .rank = rank, .otf2 = &otf2, .says_why = says_why,
                         .agree_cut = agree_cut, .call_tree = call_tree,
                         .gather_counts = gather_counts, .reduce_span = reduce_span,
                         .arg = &m };
    hp_trace_unified unified = { .region_map = map, .comm_map = comm_map,
                                 .ncomm_map = ncomm_map, .comms = comms, .ncomms = ncomms };
    hp_trace_cut *cut = NULL;
    if (all_ok)
        cut = hp_trace_output_write(directory, merged, &job, &unified);
    else if (rank == 0)
        hp_error("trace not written (no experiment directory or out "
                 "of memory on some rank)");
    hp_mpi_trace_cut_report(cut, comm, rank, size); /* every rank's notes, cut or not */
    hp_trace_cut_free(cut);
    hp_mpi_comms_free_defs(comms, ncomms);
    free(comm_map);
    free(map);
}

/* The clocks are measured again now (mpi_clock.c), so the trace can correct drift
 * between MPI_Init and MPI_Finalize. */
void hp_mpi_trace_write(const hp_transport *t, const char *directory, const hp_profile *merged)
{
    hp_mpi_trace_finish_clocks();
    write_trace(directory, merged, hp__mpi_transport_comm(), t->rank, t->size);
}
