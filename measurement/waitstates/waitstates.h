/*
 * Wait states (HP_WAIT_STATES, doc/wait-states.md): Scalasca's MPI wait-state patterns,
 * computed at finalize from a compact record of the run's communicating MPI calls, with
 * no trace written.
 *
 * During the run, the MPI adapter appends one 32-byte record per point-to-point message
 * end (a send, a receive or the completion of a non-blocking receive) and per collective
 * call: enter and exit ticks, the call path, the envelope. Records come from pages of the
 * memory budget (at most half of HP_TOTAL_MEMORY); when that is used up, further calls
 * are counted but not kept, and the analysis covers the kept prefix of the run (the
 * coverage the summary states). Calls that communicate nothing never reach this module.
 *
 * At finalize the MPI adapter replays the records across ranks (mpi_waitstates.c) and
 * hands each record's waiting times to hp_ws_charge; the profile builder then asks for
 * the per-call-path values (hp_ws_node_values) of the metrics listed by hp_ws_metric.
 */
#ifndef HP_MEASUREMENT_WAITSTATES_WAITSTATES_H
#define HP_MEASUREMENT_WAITSTATES_WAITSTATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hp_cct_node;

/* What a record is. Sends and receives are point-to-point message ends; COLL is a
 * blocking collective whose class (hp_ws_coll_class) is in the tag field. */
enum hp_ws_kind {
    HP_WS_SEND = 1,  /* blocking standard/buffered/ready send (Late Receiver if it blocked) */
    HP_WS_SSEND = 2, /* blocking synchronous send */
    HP_WS_ISEND = 3, /* non-blocking send, at its start (its time travels to the receiver) */
    HP_WS_RECV = 4,  /* blocking receive, or the completion of a non-blocking one in the
                        completing call (MPI_Wait*, MPI_Test*) */
    HP_WS_COLL = 5
};

enum hp_ws_coll_class {
    HP_WS_BARRIER = 1, /* MPI_Barrier */
    HP_WS_NXN = 2,     /* Allreduce, Allgather(v), Alltoall(v,w), Reduce_scatter(_block) */
    HP_WS_1TON = 3,    /* Bcast, Scatter(v) */
    HP_WS_NTO1 = 4,    /* Reduce, Gather(v) */
    HP_WS_SCAN = 5     /* Scan, Exscan */
};

/* One kept call: 32 bytes (checked below), the figure doc/wait-states.md quotes. */
typedef struct hp_ws_record {
    uint64_t enter;       /* timer ticks of the call's start */
    uint32_t span;        /* its length in units of HP_WS_SPAN_UNIT ticks (hp_ws_exit) */
    uint32_t seq;         /* receives: the order they were posted in (hp_ws_next_seq at
                             MPI_Irecv or the blocking receive), which is the order MPI
                             matches them in; 0 otherwise */
    uint32_t node;        /* call path: hp_memory_index of its hp_cct_node */
    int32_t peer;         /* rank in comm: destination, source; root of a collective or -1 */
    int32_t tag;          /* message tag; the class of a collective */
    uint16_t comm;        /* local communicator id (adapters/mpi/mpi_comms.h) */
    uint8_t kind;         /* hp_ws_kind */
    uint8_t flags;        /* HP_WS_POSTED_EARLIER, HP_WS_NO_TIMES or 0 */
} hp_ws_record;

/* A receive completed in an MPI_Wait or MPI_Test call: it was posted before the call's
 * enter (at MPI_Irecv, whose time is not kept), so it gives its sender no Late Receiver. */
enum { HP_WS_POSTED_EARLIER = 1u << 0 };

/* A placeholder: a call that could not be recorded (no measured frame of its own: below
 * HP_PROFILING_MAX_DEPTH, an unmeasured or busy thread) still takes its place, so that
 * messages and collective instances stay matched across ranks. It has no times and no
 * call path (node 0): the replay feeds neutral values for it and charges it nothing, and
 * the coverage counts it as not kept. */
enum { HP_WS_NO_TIMES = 1u << 1 };

_Static_assert(sizeof(hp_ws_record) == 32, "a wait-state record is 32 bytes");

/* A call's length is kept in units of 256 ticks (about 0.1 us with the TSC, 0.26 us with
 * the monotonic clock), rounded up, so that 32 bits reach 18 minutes (TSC at 3.5 GHz);
 * longer calls are kept as that long. */
#define HP_WS_SPAN_UNIT 256u

static inline void hp_ws_set_exit(hp_ws_record *r, uint64_t exit)
{
    uint64_t units = exit > r->enter ? (exit - r->enter + HP_WS_SPAN_UNIT - 1) / HP_WS_SPAN_UNIT
                                     : 0;
    r->span = units < UINT32_MAX ? (uint32_t)units : UINT32_MAX;
}

static inline uint64_t hp_ws_exit(const hp_ws_record *r)
{
    return r->enter + (uint64_t)r->span * HP_WS_SPAN_UNIT;
}

/* The next number of the process-wide order in which receives are posted (never 0). */
uint32_t hp_ws_next_seq(void);

/* True when records are kept (HP_WAIT_STATES and an MPI job); set by the MPI adapter. */
extern bool hp_ws_on;

/* Appends a record (thread-safe, lock-free; no system call) and returns where it was
 * kept, so that its exit can be set once the call's own exit stamp is taken (the record
 * stays where it is until finalize). Returns NULL, counting the call as dropped, when
 * the record's share of the budget is used up. */
hp_ws_record *hp_ws_append(const hp_ws_record *r);

/* The kept records, in the order they were appended, and how many calls were dropped. */
size_t hp_ws_count(void);
hp_ws_record *hp_ws_at(size_t i);
uint64_t hp_ws_dropped(void);

/* ---- results ---- */

/* The wait-state metrics and the MPI-time metrics above them, in the order of Scalasca's
 * metric tree (parents before children). */
enum hp_ws_metric_id {
    HP_WSM_MPI,
    HP_WSM_SYNC,
    HP_WSM_SYNC_COLL,
    HP_WSM_BARRIER_WAIT,
    HP_WSM_BARRIER_COMPLETION,
    HP_WSM_COMM,
    HP_WSM_P2P,
    HP_WSM_LATE_SENDER,
    HP_WSM_LS_WRONG_ORDER,
    HP_WSM_LSWO_DIFFERENT,
    HP_WSM_LSWO_SAME,
    HP_WSM_LATE_RECEIVER,
    HP_WSM_COLL,
    HP_WSM_EARLY_REDUCE,
    HP_WSM_EARLY_SCAN,
    HP_WSM_LATE_BROADCAST,
    HP_WSM_WAIT_NXN,
    HP_WSM_NXN_COMPLETION,
    HP_WSM_COUNT
};

typedef struct hp_ws_metric_info {
    const char *uniq_name; /* Scalasca's: "mpi_latesender" */
    const char *disp_name; /* "Late Sender" */
    const char *parent;    /* uniq name of the parent metric ("time" for mpi) */
    const char *descr;
} hp_ws_metric_info;

const hp_ws_metric_info *hp_ws_metric(unsigned id);

/* Adds seconds of pattern `metric` (a waiting pattern, not one of the MPI-time metrics)
 * to the call path of record r. Not thread-safe (finalize). */
void hp_ws_charge(const hp_ws_record *r, unsigned metric, double seconds);

/* The values of node for every metric (HP_WSM_COUNT doubles, seconds, exclusive in the
 * call tree, inclusive in the metric tree): the MPI-time metrics from the node's own
 * region and time, the patterns from hp_ws_charge. */
void hp_ws_node_values(const struct hp_cct_node *node, double ticks_per_second,
                       double *out);

/* Job-wide figures, set on rank 0 by the replay: the note for the summary ("" = none). */
void hp_ws_set_note(const char *note);
const char *hp_ws_note(void);

/* For tests: forget records and results. */
void hp_ws_reset(void);

#endif
