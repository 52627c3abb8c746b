/*
 * One clock per host for the trace of an MPI job. The ranks of one host read the same
 * counter (an invariant TSC, or CLOCK_MONOTONIC), so they map their ticks with one set
 * of numbers: the host's first rank (its leader) sends its start-up reference pair at
 * MPI_Init and its tick rate at MPI_Finalize to the others. Only the leaders measure an
 * offset against the reference host (MPI rank 0's), by ping-pong with rank 0 at
 * MPI_Init and MPI_Finalize; each leader hands its host the offsets and their
 * uncertainty (half the shortest round trip). A message between two ranks of one host
 * is then received after it was sent in the trace exactly when it was on the host's
 * counter, and no rank's timestamps are bent by a correction of its own.
 *
 * Hosts are told apart by a hash of their name, gathered once at MPI_Init; everything
 * after that is point-to-point on the transport's communicator. No communicator is
 * split for it: MPI_Comm_split(_type) has no nonblocking form, and with more ranks than
 * cores its busy-polling cost seconds at 64 ranks on 2 cores (every other wait here is
 * off the CPU, mpi_offcpu.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "adapters/mpi/mpi_offcpu.h"
#include "adapters/mpi/mpi_clock.h"
#include "adapters/mpi/mpi_transport.h"
#include "measurement/core/timer.h"
#include "measurement/finalize/trace_output.h"

enum { SYNC_ROUNDS = 10, SYNC_TAG = 7302, HOST_TAG = 7303 };

/* What a leader sends its host at MPI_Init. */
typedef struct init_numbers {
    uint64_t timer_tsc; /* 1: ticks are TSC ticks, 0: monotonic ns */
    uint64_t ticks, ns; /* the leader's reference pair */
    uint64_t t_sync;    /* host monotonic ns of the offset measurement */
    double offset, error;
} init_numbers;

/* This rank's view of the job's hosts, ranks of the transport's communicator. The two
 * lists have room for every rank (allocated before the ranks agree that all could). */
static struct hosts {
    bool known;       /* sync_clocks grouped the ranks; finish_clocks is due */
    int leader;       /* this host's leader (its lowest rank) */
    int *members;     /* filled on a leader: the other ranks of its host */
    int nmembers;
    int *leaders;     /* filled on rank 0: the other hosts' leaders */
    int nleaders;
} hosts;
static hp_trace_host_clock clock_numbers;
static bool own_timer; /* this rank's timer differs from its leader's: own calibration */

/* FNV-1a of the host name: the same on every rank of a host. MPICH's test setting
 * MPIR_CVAR_ODD_EVEN_CLIQUES=1 makes odd and even ranks two pretend hosts (for
 * MPI_COMM_TYPE_SHARED and its shared-memory paths); the key follows it, so a job on one
 * machine can be run as two hosts (t042, bench/soak-clock.sh). */
static uint64_t host_key(int rank)
{
    char name[256] = "localhost";
    gethostname(name, sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = name; *c != '\0'; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    const char *cliques = secure_getenv("MPIR_CVAR_ODD_EVEN_CLIQUES");
    if (cliques != NULL && atoi(cliques) == 1)
        h = (h ^ (uint64_t)(rank & 1)) * 1099511628211ULL;
    return h;
}

uint64_t hp_mpi_host_key(int rank)
{
    return host_key(rank);
}

typedef struct keyed_rank {
    uint64_t key;
    int rank;
} keyed_rank;

static int by_key_then_rank(const void *a, const void *b)
{
    const keyed_rank *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* This rank's leader, and the lists a leader and rank 0 need, from every rank's host
 * key sorted by (key, rank): a host's ranks are one run, its leader first. O(P log P). */
static void find_leaders(keyed_rank *all, int rank, int size)
{
    qsort(all, (size_t)size, sizeof(*all), by_key_then_rank);
    for (int start = 0, end; start < size; start = end) {
        bool mine = false;
        for (end = start; end < size && all[end].key == all[start].key; end++)
            mine |= all[end].rank == rank;
        if (rank == 0 && all[start].rank != 0)
            hosts.leaders[hosts.nleaders++] = all[start].rank;
        if (!mine)
            continue;
        hosts.leader = all[start].rank;
        for (int i = start + 1; hosts.leader == rank && i < end; i++)
            hosts.members[hosts.nmembers++] = all[i].rank;
    }
}

/* Every rank's host key, gathered off the CPU, then the leaders. Returns false on
 * every rank when memory ran out on one: the trace keeps each rank's own clock then. */
static bool group_hosts(MPI_Comm comm, int rank, int size)
{
    uint64_t mine = host_key(rank);
    uint64_t *keys = malloc((size_t)size * sizeof(*keys));
    keyed_rank *all = malloc((size_t)size * sizeof(*all));
    hosts = (struct hosts){ .leader = rank };
    hosts.members = malloc((size_t)size * sizeof(int));
    hosts.leaders = malloc((size_t)size * sizeof(int));
    int ok = keys != NULL && all != NULL && hosts.members != NULL && hosts.leaders != NULL;
    int all_ok = 0;
    MPI_Request r;
    hp__mpi_offcpu_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok && PMPI_Iallgather(&mine, 1, MPI_UINT64_T, keys, 1, MPI_UINT64_T, comm, &r) ==
                      MPI_SUCCESS) {
        hp__mpi_offcpu_wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < size; i++)
            all[i] = (keyed_rank){ keys[i], i };
        find_leaders(all, rank, size);
        hosts.known = true;
    } else {
        free(hosts.members);
        free(hosts.leaders);
        hosts = (struct hosts){ .known = false };
    }
    free(keys);
    free(all);
    return hosts.known;
}

/* Sends the leader's bytes to the other ranks of its host; they wait off the CPU. */
static void host_bcast(void *buf, int bytes)
{
    MPI_Comm comm = hp__mpi_transport_comm();
    int rank = hp__mpi_transport()->rank;
    if (rank != hosts.leader) {
        hp__mpi_offcpu_recv(buf, bytes, MPI_BYTE, hosts.leader, HOST_TAG, comm,
                            MPI_STATUS_IGNORE);
        return;
    }
    for (int i = 0; i < hosts.nmembers; i++)
        hp__mpi_offcpu_send(buf, bytes, MPI_BYTE, hosts.members[i], HOST_TAG, comm);
}

/* The offset of this leader's monotonic clock against the reference leader's (rank 0,
 * which measures every other leader in turn), and its uncertainty: of SYNC_ROUNDS
 * round trips the shortest gives the offset, and half its length bounds the error (the
 * true reply time lies within the round trip). Both 0 on the reference leader. */
static void measure_offset(MPI_Comm comm, int rank, double *offset, double *error)
{
    double mine[2] = { 0, 0 };
    for (int l = 0; rank == 0 && l < hosts.nleaders; l++) {
        int peer = hosts.leaders[l];
        double best_rtt = 1e300, result[2] = { 0, 0 };
        for (int i = 0; i < SYNC_ROUNDS; i++) {
            uint64_t t_remote, t_send = hp_timer_monotonic_ns();
            PMPI_Send(&t_send, 1, MPI_UINT64_T, peer, SYNC_TAG, comm);
            PMPI_Recv(&t_remote, 1, MPI_UINT64_T, peer, SYNC_TAG, comm, MPI_STATUS_IGNORE);
            double rtt = (double)(hp_timer_monotonic_ns() - t_send);
            if (rtt < best_rtt) {
                best_rtt = rtt;
                result[0] = (double)t_remote - ((double)t_send + rtt / 2);
                result[1] = rtt / 2;
            }
        }
        PMPI_Send(result, 2, MPI_DOUBLE, peer, SYNC_TAG, comm);
    }
    if (rank != 0 && hosts.leader == rank) {
        for (int i = 0; i < SYNC_ROUNDS; i++) {
            uint64_t t;
            if (i == 0) /* until rank 0 comes to this leader */
                hp__mpi_offcpu_recv(&t, 1, MPI_UINT64_T, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
            else
                PMPI_Recv(&t, 1, MPI_UINT64_T, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
            t = hp_timer_monotonic_ns();
            PMPI_Send(&t, 1, MPI_UINT64_T, 0, SYNC_TAG, comm);
        }
        hp__mpi_offcpu_recv(mine, 2, MPI_DOUBLE, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
    }
    *offset = mine[0];
    *error = mine[1];
}

/* Leaders: the host's monotonic time now and its offset, measured among the leaders.
 * Others: nothing (they receive the leader's numbers). */
static void leader_sync(uint64_t *t_sync, double *offset, double *error)
{
    const hp_transport *t = hp__mpi_transport();
    *t_sync = hp_timer_monotonic_ns();
    *offset = *error = 0;
    if (hosts.leader == t->rank)
        measure_offset(hp__mpi_transport_comm(), t->rank, offset, error);
}

void hp_mpi_trace_sync_clocks(void)
{
    const hp_transport *t = hp__mpi_transport();
    if (!group_hosts(hp__mpi_transport_comm(), t->rank, t->size))
        return;
    init_numbers n = { .timer_tsc = hp__timer_tsc };
    hp_timer_reference(&n.ticks, &n.ns);
    leader_sync(&n.t_sync, &n.offset, &n.error);
    host_bcast(&n, (int)sizeof(n));
    own_timer = n.timer_tsc != (uint64_t)hp__timer_tsc; /* mixed HP_TIMER on one host */
    if (own_timer)
        hp_timer_reference(&n.ticks, &n.ns);
    clock_numbers = (hp_trace_host_clock){ .ticks = n.ticks, .ns = n.ns, .t_init = n.t_sync,
                                           .off_init = n.offset, .err_init = n.error };
}

/* What a leader sends its host at MPI_Finalize. */
typedef struct finish_numbers {
    double ticks_per_second;
    uint64_t t_sync;
    double offset, error;
} finish_numbers;

void hp_mpi_trace_finish_clocks(void)
{
    if (!hosts.known)
        return;
    finish_numbers n = { .ticks_per_second = hp_timer_ticks_per_second() };
    leader_sync(&n.t_sync, &n.offset, &n.error);
    host_bcast(&n, (int)sizeof(n));
    hp_trace_host_clock *c = &clock_numbers;
    c->ticks_per_second = own_timer ? hp_timer_ticks_per_second() : n.ticks_per_second;
    c->t_fin = n.t_sync;
    c->off_fin = n.offset;
    c->err_fin = n.error;
    hp_trace_output_set_host_clock(c);
    free(hosts.members);
    free(hosts.leaders);
    hosts = (struct hosts){ .known = false };
}
