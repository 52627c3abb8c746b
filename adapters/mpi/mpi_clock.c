/*
 * One clock per host for the trace of an MPI job. The ranks of one host
 * (MPI_Comm_split_type SHARED) read the same counter (an invariant TSC, or
 * CLOCK_MONOTONIC), so they map their ticks with one set of numbers: the host's first
 * rank (its leader) sends its start-up reference pair at MPI_Init and its tick rate at
 * MPI_Finalize to the others. Only the leaders measure an offset against the reference
 * host (MPI rank 0's), by ping-pong with rank 0 at MPI_Init and MPI_Finalize; each
 * leader hands its host the offsets and their uncertainty (half the shortest round
 * trip). A message between two ranks of one host is then received after it was sent in
 * the trace exactly when it was on the host's counter, and no rank's timestamps are
 * bent by a correction of its own.
 */
#include <stdbool.h>
#include <stdint.h>

#include "adapters/mpi/mpi_trace.h"
#include "adapters/mpi/mpi_transport.h"
#include "measurement/core/timer.h"
#include "measurement/finalize/trace_output.h"
#include "util/nap.h"

enum { SYNC_ROUNDS = 10, SYNC_TAG = 7302 };

/* What a leader sends its host at MPI_Init. */
typedef struct init_numbers {
    uint64_t timer_tsc; /* 1: ticks are TSC ticks, 0: monotonic ns */
    uint64_t ticks, ns; /* the leader's reference pair */
    uint64_t t_sync;    /* host monotonic ns of the offset measurement */
    double offset, error;
} init_numbers;

static MPI_Comm host_comm = MPI_COMM_NULL;    /* the ranks of this host */
static MPI_Comm leaders_comm = MPI_COMM_NULL; /* the host leaders; rank 0 = MPI rank 0 */
static hp_trace_host_clock clock_numbers;
static bool own_timer; /* this rank's timer differs from its leader's: own calibration */

/* Waits for r, off the CPU between tests. Ranks that only wait during a measurement
 * (the host's other ranks, leaders before their turn) would otherwise busy-poll
 * (MPICH does) and, with more ranks than cores, take the CPU from the two leaders
 * measuring: their round trips would grow to scheduler time slices (milliseconds). */
static void wait_off_cpu(MPI_Request *r)
{
    int done = 0;
    for (PMPI_Test(r, &done, MPI_STATUS_IGNORE); !done; PMPI_Test(r, &done, MPI_STATUS_IGNORE))
        hp_nap(20000);
}

/* Broadcasts from the host leader; the others wait off the CPU. */
static void host_bcast(void *buf, int bytes)
{
    MPI_Request r;
    PMPI_Ibcast(buf, bytes, MPI_BYTE, 0, host_comm, &r);
    wait_off_cpu(&r);
}

/* The offset of this leader's monotonic clock against the reference leader's (rank 0
 * of leaders, which measures every other leader in turn), and its uncertainty: of
 * SYNC_ROUNDS round trips the shortest gives the offset, and half its length bounds
 * the error (the true reply time lies within the round trip). Both 0 on the reference
 * leader. */
static void measure_offset(MPI_Comm leaders, double *offset, double *error)
{
    int rank, size;
    PMPI_Comm_rank(leaders, &rank);
    PMPI_Comm_size(leaders, &size);
    double mine[2] = { 0, 0 };
    for (int peer = 1; peer < size; peer++) {
        if (rank == 0) {
            double best_rtt = 1e300, result[2] = { 0, 0 };
            for (int i = 0; i < SYNC_ROUNDS; i++) {
                uint64_t t_remote, t_send = hp_timer_monotonic_ns();
                PMPI_Send(&t_send, 1, MPI_UINT64_T, peer, SYNC_TAG, leaders);
                PMPI_Recv(&t_remote, 1, MPI_UINT64_T, peer, SYNC_TAG, leaders,
                          MPI_STATUS_IGNORE);
                double rtt = (double)(hp_timer_monotonic_ns() - t_send);
                if (rtt < best_rtt) {
                    best_rtt = rtt;
                    result[0] = (double)t_remote - ((double)t_send + rtt / 2);
                    result[1] = rtt / 2;
                }
            }
            PMPI_Send(result, 2, MPI_DOUBLE, peer, SYNC_TAG, leaders);
        } else if (rank == peer) {
            for (int i = 0; i < SYNC_ROUNDS; i++) {
                uint64_t t;
                MPI_Request r;
                PMPI_Irecv(&t, 1, MPI_UINT64_T, 0, SYNC_TAG, leaders, &r);
                if (i == 0) /* until rank 0 comes to this leader */
                    wait_off_cpu(&r);
                else
                    PMPI_Wait(&r, MPI_STATUS_IGNORE);
                t = hp_timer_monotonic_ns();
                PMPI_Send(&t, 1, MPI_UINT64_T, 0, SYNC_TAG, leaders);
            }
            PMPI_Recv(mine, 2, MPI_DOUBLE, 0, SYNC_TAG, leaders, MPI_STATUS_IGNORE);
        }
    }
    *offset = mine[0];
    *error = mine[1];
}

/* Leaders: the host's monotonic time now and its offset, measured among the leaders.
 * Others: nothing (they receive the leader's numbers). */
static void leader_sync(uint64_t *t_sync, double *offset, double *error)
{
    *t_sync = hp_timer_monotonic_ns();
    *offset = *error = 0;
    if (leaders_comm != MPI_COMM_NULL)
        measure_offset(leaders_comm, offset, error);
}

/* The communicators: one per host (key: MPI rank, so rank 0 leads its host) and one
 * of the leaders (ordered by MPI rank: rank 0 is the reference leader). */
static void split_hosts(MPI_Comm comm, int rank)
{
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host_comm);
    int host_rank;
    PMPI_Comm_rank(host_comm, &host_rank);
    PMPI_Comm_split(comm, host_rank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders_comm);
}

void hp_mpi_trace_sync_clocks(void)
{
    const hp_transport *t = hp__mpi_transport();
    split_hosts(hp__mpi_transport_comm(), t->rank);
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
    if (host_comm == MPI_COMM_NULL)
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
    if (leaders_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&leaders_comm);
    PMPI_Comm_free(&host_comm);
}
