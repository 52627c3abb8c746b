/*
 * MPI_Init, MPI_Finalize and MPI_Abort as the measurement sees them.
 *
 * After MPI_Init, rank 0 creates the experiment directory and tells every rank its
 * name, so that all ranks of a job write into one directory. Before MPI_Finalize every
 * rank builds its own profile and the profiles are merged along a binomial tree
 * (log2(P) rounds; each rank sends once, rank 0 ends up with the whole job) over a
 * private duplicate of MPI_COMM_WORLD, so no user message can match ours. Rank 0 writes
 * the result. A rank that fails to build its profile still takes part (it sends an
 * empty one), so a failure can never leave another rank waiting.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/mpi/mpi_adapter.h"
#include "adapters/mpi/mpi_plugins.h"
#include "adapters/mpi/mpi_trace.h"
#include "measurement/config.h"
#include "measurement/experiment.h"
#include "measurement/timer.h"
#include "measurement/trace_output.h"
#include "measurement/profile_build.h"
#include "measurement/profile_merge.h"
#include "measurement/runtime.h"
#include "measurement/sampling.h"
#include "measurement/signals.h"

enum { UNIFY_TAG = 7301, DIRECTORY_SIZE = 4096, CHUNK = 1 << 30 };

static MPI_Comm unify_comm = MPI_COMM_NULL;
static int world_rank, world_size;

/* Offset of this rank's monotonic clock against rank 0's, in ns (0 on rank 0): rank 0
 * exchanges a few round trips with every rank on another host in turn and takes the one
 * with the shortest round trip (the smallest error); the rank learns its offset from
 * rank 0. Ranks on rank 0's host share its CLOCK_MONOTONIC exactly, so they measure
 * nothing: a measured offset could only add the error of an asymmetric round trip. */
enum { SYNC_ROUNDS = 10, SYNC_TAG = 7302, HOST_SIZE = 256 };

static double measure_offset(MPI_Comm comm, int rank, int size)
{
    char host[HOST_SIZE] = "", root_host[HOST_SIZE] = "";
    gethostname(host, sizeof(host) - 1);
    memcpy(root_host, host, sizeof(host));
    PMPI_Bcast(root_host, HOST_SIZE, MPI_CHAR, 0, comm);
    int remote = strcmp(host, root_host) != 0;
    int *remote_ranks = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    PMPI_Gather(&remote, 1, MPI_INT, remote_ranks, 1, MPI_INT, 0, comm);
    double offset = 0;
    for (int peer = 1; peer < size; peer++) {
        int measured = rank == 0 ? (remote_ranks != NULL && remote_ranks[peer]) : remote;
        if (!measured)
            continue;
        if (rank == 0) {
            double best_rtt = 1e300, best = 0;
            for (int i = 0; i < SYNC_ROUNDS; i++) {
                uint64_t t_remote, t_send = hp_timer_monotonic_ns();
                PMPI_Send(&t_send, 1, MPI_UINT64_T, peer, SYNC_TAG, comm);
                PMPI_Recv(&t_remote, 1, MPI_UINT64_T, peer, SYNC_TAG, comm,
                          MPI_STATUS_IGNORE);
                uint64_t t_back = hp_timer_monotonic_ns();
                double rtt = (double)(t_back - t_send);
                if (rtt < best_rtt) {
                    best_rtt = rtt;
                    best = (double)t_remote - ((double)t_send + rtt / 2);
                }
            }
            PMPI_Send(&best, 1, MPI_DOUBLE, peer, SYNC_TAG, comm);
        } else if (rank == peer) {
            for (int i = 0; i < SYNC_ROUNDS; i++) {
                uint64_t t;
                PMPI_Recv(&t, 1, MPI_UINT64_T, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
                t = hp_timer_monotonic_ns();
                PMPI_Send(&t, 1, MPI_UINT64_T, 0, SYNC_TAG, comm);
            }
            PMPI_Recv(&offset, 1, MPI_DOUBLE, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        }
    }
    free(remote_ranks);
    return offset;
}

static uint64_t sync_time_init;
static double sync_offset_init;

/* The rank of a process whose MPI was initialized without our MPI_Init wrapper seeing
 * it; -1 when MPI was never initialized. */
static int probe_rank(void)
{
    int initialized = 0, finalized = 0, rank = -1;
    if (PMPI_Initialized(&initialized) != MPI_SUCCESS || !initialized)
        return -1;
    PMPI_Finalized(&finalized);
    if (!finalized) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return rank;
    }
    const char *env = getenv("PMI_RANK"); /* MPICH's process manager sets it */
    return env != NULL ? atoi(env) : 0;
}

__attribute__((constructor)) static void register_probe(void)
{
    hp_runtime_set_mpi_probe(probe_rank);
}

/* Every rank takes part in the collectives below, measuring or not (measurement can be
 * off on one rank only: a failed memory reservation, a different environment), so no
 * rank can wait for another or match a user's collective with ours. */
void hp_mpi_after_init(void)
{
    bool measuring = hp_runtime_ensure_started();
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &unify_comm) != MPI_SUCCESS)
        unify_comm = MPI_COMM_NULL;
    char dir[DIRECTORY_SIZE] = "";
    if (world_rank == 0 && measuring && hp_cfg.enable_profiling &&
        hp_experiment_create_directory(dir, sizeof(dir)) < 0)
        dir[0] = '\0';
    if (unify_comm != MPI_COMM_NULL)
        PMPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, unify_comm);
    if (world_rank != 0 && dir[0] != '\0')
        hp_experiment_set_directory(dir);
    if (unify_comm != MPI_COMM_NULL && hp_cfg.enable_tracing) { /* same on every rank */
        sync_time_init = hp_timer_monotonic_ns();
        sync_offset_init = measure_offset(unify_comm, world_rank, world_size);
    }
    if (measuring) {
        hp_runtime_set_mpi(world_rank, world_size);
        hp__mpi_plugins_load(world_rank, world_size);
        hp_sampling_resume(hp__tls_location);
    }
}

/* Sends or receives a byte buffer of any size in chunks MPI's int counts can hold. */
void hp__mpi_send_bytes(const char *data, uint64_t length, int peer)
{
    PMPI_Send(&length, 1, MPI_UINT64_T, peer, UNIFY_TAG, unify_comm);
    for (uint64_t done = 0; done < length; done += CHUNK) {
        uint64_t n = length - done < CHUNK ? length - done : CHUNK;
        PMPI_Send(data + done, (int)n, MPI_BYTE, peer, UNIFY_TAG, unify_comm);
    }
}

/* Returns a malloc'ed buffer (NULL when the peer sent nothing or memory ran out; the
 * message is received and dropped then, so both sides stay in step). */
char *hp__mpi_recv_bytes(int peer, uint64_t *length)
{
    PMPI_Recv(length, 1, MPI_UINT64_T, peer, UNIFY_TAG, unify_comm, MPI_STATUS_IGNORE);
    char *data = *length > 0 ? malloc(*length) : NULL;
    static char sink[1 << 16];
    for (uint64_t done = 0; done < *length; done += CHUNK) {
        uint64_t n = *length - done < CHUNK ? *length - done : CHUNK;
        if (data != NULL) {
            PMPI_Recv(data + done, (int)n, MPI_BYTE, peer, UNIFY_TAG, unify_comm,
                      MPI_STATUS_IGNORE);
            continue;
        }
        for (uint64_t part = 0; part < n; part += sizeof(sink)) /* drop it */
            PMPI_Recv(sink, (int)(n - part < sizeof(sink) ? n - part : sizeof(sink)),
                      MPI_BYTE, peer, UNIFY_TAG, unify_comm, MPI_STATUS_IGNORE);
    }
    return data;
}

/* acc = acc + the profile in data (either may be missing). */
static void absorb(hp_owned_profile *acc, int *have, const char *data, uint64_t length)
{
    hp_owned_profile other, merged;
    if (data == NULL || hp_profile_deserialize(data, length, &other) < 0)
        return;
    if (!*have) {
        *acc = other;
        *have = 1;
        return;
    }
    if (hp_profile_merge(&acc->profile, &other.profile, &merged) == 0) {
        hp_owned_profile_release(acc);
        *acc = merged;
    } else {
        fprintf(stderr, "hpmeasure: rank %d: could not merge a profile (out of memory)\n",
                world_rank);
    }
    hp_owned_profile_release(&other);
}

/* The binomial-tree reduction: in round k, ranks with bit k set send what they hold to
 * rank - 2^k and drop out; the others receive from rank + 2^k. Rank 0 ends with all. */
static void unify(hp_owned_profile *acc, int *have)
{
    for (int step = 1; step < world_size; step <<= 1) {
        if (world_rank & step) {
            void *out = NULL;
            size_t length = 0;
            if (*have && hp_profile_serialize(&acc->profile, &out, &length) < 0)
                length = 0;
            hp__mpi_send_bytes(out, length, world_rank - step);
            free(out);
            return;
        }
        if (world_rank + step < world_size) {
            uint64_t length;
            char *data = hp__mpi_recv_bytes(world_rank + step, &length);
            absorb(acc, have, data, length);
            free(data);
        }
    }
}

void hp_mpi_before_finalize(void)
{
    if (unify_comm == MPI_COMM_NULL)
        return;
    hp_signals_hold(); /* a signal now waits until the merged profile is written */
    hp__mpi_plugins_finalize();
    int have = 0;
    hp_owned_profile acc;
    if (hp_runtime_mpi_active() && hp_runtime_stop()) {
        hp_profile_data local;
        void *buf = NULL;
        size_t length = 0;
        if (hp_experiment_build(&local) == 0) {
            if (hp_profile_serialize(&local.profile, &buf, &length) < 0)
                length = 0;
            hp_profile_data_release(&local);
        }
        absorb(&acc, &have, buf, length);
        free(buf);
    }
    unify(&acc, &have);
    if (world_rank == 0 && have)
        hp_experiment_write_profile(&acc.profile, "");
    /* Collective, so decided by the configuration, the same on every rank (not by whether
     * this rank measured): a rank without data takes part with nothing to write. */
    if (hp_cfg.enable_tracing) {
        uint64_t t_fin = hp_timer_monotonic_ns();
        double off_fin = measure_offset(unify_comm, world_rank, world_size);
        hp_trace_output_set_offsets(sync_time_init, sync_offset_init, t_fin, off_fin);
        hp_mpi_trace_write(hp_experiment_directory(), world_rank == 0 && have ? &acc.profile
                                                                             : NULL,
                           unify_comm, world_rank, world_size);
    }
    if (have)
        hp_owned_profile_release(&acc);
    PMPI_Comm_free(&unify_comm);
    hp_signals_release();
}

void hp_mpi_before_abort(int errorcode)
{
    if (!hp_runtime_mpi_active() || !hp_runtime_stop())
        return;
    fprintf(stderr, "hpmeasure: rank %d calls MPI_Abort(%d); writing its own "
                    "profile-rank%d.cubex\n", world_rank, errorcode, world_rank);
    hp_experiment_write_rank(world_rank);
}
