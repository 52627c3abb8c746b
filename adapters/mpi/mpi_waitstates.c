/*
 * Wait states, the MPI side (measurement/waitstates/waitstates.h, doc/wait-states.md):
 * the hooks that keep a record of each communicating call, and the parallel replay at
 * finalize that turns the records of all ranks into Scalasca's patterns.
 *
 * Recording: the trace rules of mpi-semantics.txt (mpi_trace_rules.c) and the request
 * completions and persistent starts (mpi_requests.c) call the hooks below after the real
 * call returned, so calls that communicate nothing (MPI_Comm_rank, ...) and the common
 * path of hp_mpi_enter/hp_mpi_exit pay nothing. A record takes the call's enter time and
 * call path from the location's top frame (the MPI call's own: measured MPI calls do not
 * nest) and stays open in the frame until hp_mpi_exit closes it with the call's exit
 * stamp: a record reads no clock of its own. A call without a frame of its own keeps a
 * placeholder (HP_WS_NO_TIMES), so that every rank's k-th message end or collective on a
 * channel stays the k-th in the replay; the replay charges placeholders nothing.
 *
 * Replay, collective over the finalize transport's communicator, before the profiles
 * are built, in nine collectives whatever the number of communicators, each waiting
 * off the CPU (mpi_offcpu.h: at finalize most ranks wait, and MPICH's busy polling takes
 * the CPU from the ranks with work when a job has more ranks than cores):
 *  - one Allreduce opens it: the job's earliest record, whether every rank could
 *    prepare, the fewest MPI_COMM_WORLD collectives any rank kept, and whether any rank
 *    made an MPI_Scan/Exscan there (so that all or none take part in the Scan), and
 *    whether all ran on one host (hp_mpi_host_key);
 *  - a forward exchange (Alltoall of counts, Allreduce of "all could take theirs",
 *    Alltoallv): every rank sends each destination the times and envelopes of the
 *    messages it sent; the receiver matches them to its receives by (communicator,
 *    source, tag) in order, which is MPI's own non-overtaking rule, and computes Late
 *    Sender and its wrong-order part. In the same exchange each member of a
 *    sub-communicator sends the enter/exit times of its collectives there to the
 *    communicator's leader (its rank 0), which reduces them per instance;
 *  - a backward exchange: for each matched blocking send the receive's enter time
 *    (the sender computes Late Receiver), and the leaders' reductions to the members;
 *  - MPI_COMM_WORLD's collectives: one Allreduce of the enter/exit times of all its
 *    instances (and one Scan for MPI_Scan/Exscan), started before the exchanges and
 *    waited for after them;
 *  - one Reduce of the coverage figures to rank 0, overlapping that wait.
 * So seven collectives follow one another, and two run alongside them.
 * Times are compared across ranks as timer ticks since the job's earliest record; the
 * ranks of one host share the clock (TSC or CLOCK_MONOTONIC). The clocks of different
 * hosts are not synchronised for this (the trace's synchronisation, mpi_clock.c, costs
 * ping-pongs at MPI_Init and MPI_Finalize): the coverage note says when ranks ran on
 * several hosts, see doc/wait-states.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_Events.h>

#include "adapters/mpi/mpi_adapter.h"
#include "adapters/mpi/mpi_comms.h"
#include "adapters/mpi/mpi_event.h"
#include "adapters/mpi/mpi_functions.h"
#include "adapters/mpi/mpi_offcpu.h"
#include "adapters/mpi/mpi_clock.h"
#include "adapters/mpi/mpi_transport.h"
#include "adapters/mpi/mpi_waitstates.h"
#include "measurement/core/config.h"
#include "measurement/core/location.h"
#include "measurement/core/memory.h"
#include "measurement/core/timer.h"
#include "measurement/finalize/finalize_timing.h"
#include "measurement/waitstates/waitstates.h"
#include "util/compiler.h"
#include "util/hash.h"
#include "util/log.h"

/* ------------------------------------------------------------------ recording */

/* The record of f's call so far (enter, call path), or a placeholder (HP_WS_NO_TIMES)
 * when the call has no measured frame of its own on top of the location's stack; false
 * when comm's id does not fit a record. */
static HP_ALWAYS_INLINE bool start_record(const hp_mpi_frame *f, hp_ws_record *r,
                                          MPI_Comm comm)
{
    uint32_t id = hp_mpi_comm_local_id(comm);
    if (id > UINT16_MAX)
        return false; /* an intercommunicator, or one the registry could not take */
    *r = (hp_ws_record){ .comm = (uint16_t)id, .flags = HP_WS_NO_TIMES };
    hp_location *loc = f->loc;
    if (loc == NULL || hp_location_ignores_events(loc) || loc->depth == 0 ||
        loc->dropped_depth != 0)
        return true;
    const hp_frame *top = &loc->sp[-1];
    if (top->node == NULL || top->node->region->paradigm != HP_PARADIGM_MPI)
        return true;
    r->enter = top->start;
    r->node = hp_memory_index(top->node);
    r->flags = 0;
    return true;
}

/* Appends r with its exit still open: the call's exit stamp closes it (mpi_event.c,
 * exit_closing). A call keeps two open (MPI_Sendrecv); more (an MPI_Waitall completing
 * many receives) are closed now with a clock read of their own. */
static HP_ALWAYS_INLINE void keep_open(hp_mpi_frame *f, const hp_ws_record *r)
{
    if (r->flags & HP_WS_NO_TIMES) { /* no frame of its own: nothing to close */
        hp_ws_append(r);
        return;
    }
    unsigned bit = !(f->trace & HP_MPI_TRACE_WS_OPEN0) ? 0
                   : !(f->trace & HP_MPI_TRACE_WS_OPEN1) ? 1
                                                          : 2;
    hp_ws_record *kept = hp_ws_append(r);
    if (kept == NULL)
        return;
    if (bit == 2) {
        hp_ws_set_exit(kept, hp_timer_now());
        return;
    }
    f->ws_open[bit] = kept;
    f->trace |= bit == 0 ? HP_MPI_TRACE_WS_OPEN0 : HP_MPI_TRACE_WS_OPEN1;
}

void hp__mpi_ws_send(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm, int nonblocking)
{
    hp_ws_record r;
    if (dest == MPI_PROC_NULL || !start_record(f, &r, comm))
        return;
    r.kind = nonblocking                                                           ? HP_WS_ISEND
             : f->fn == HP_MPI_FN_MPI_Ssend || f->fn == HP_MPI_FN_MPI_Ssend_c ? HP_WS_SSEND
                                                                                   : HP_WS_SEND;
    r.peer = dest;
    r.tag = tag;
    keep_open(f, &r);
}

void hp__mpi_ws_recv(hp_mpi_frame *f, const MPI_Status *status, MPI_Comm comm)
{
    hp_ws_record r;
    if (status == MPI_STATUS_IGNORE || status->MPI_SOURCE == MPI_PROC_NULL ||
        !start_record(f, &r, comm))
        return;
    r.kind = HP_WS_RECV;
    r.peer = status->MPI_SOURCE;
    r.tag = status->MPI_TAG;
    r.seq = hp_ws_next_seq();
    keep_open(f, &r);
}

void hp__mpi_ws_recv_done(hp_mpi_frame *f, uint32_t comm, uint32_t seq,
                          const MPI_Status *status)
{
    hp_ws_record r;
    int cancelled = 0;
    if (comm > UINT16_MAX || status->MPI_SOURCE == MPI_PROC_NULL ||
        !start_record(f, &r, MPI_COMM_WORLD))
        return;
    PMPI_Test_cancelled(status, &cancelled);
    if (cancelled)
        return;
    r.comm = (uint16_t)comm;
    r.seq = seq;
    r.flags |= HP_WS_POSTED_EARLIER;
    r.kind = HP_WS_RECV;
    r.peer = status->MPI_SOURCE;
    r.tag = status->MPI_TAG;
    keep_open(f, &r);
}

void hp__mpi_ws_start_send(hp_mpi_frame *f, uint32_t comm, int dest, int tag)
{
    hp_ws_record r;
    if (comm > UINT16_MAX || dest == MPI_PROC_NULL || !start_record(f, &r, MPI_COMM_WORLD))
        return;
    r.comm = (uint16_t)comm;
    r.kind = HP_WS_ISEND;
    r.peer = dest;
    r.tag = tag;
    keep_open(f, &r);
}

void hp__mpi_ws_recv_untracked(uint32_t comm, int source, int tag)
{
    if (comm > UINT16_MAX)
        return;
    hp_ws_record r = { .seq = hp_ws_next_seq(), .peer = source, .tag = tag,
                       .comm = (uint16_t)comm, .kind = HP_WS_RECV, .flags = HP_WS_NO_TIMES };
    hp_ws_append(&r);
}

static int coll_class(unsigned fn)
{
    switch ((int)hp_mpi_collective_op(fn) - 1) {
    case OTF2_COLLECTIVE_OP_BARRIER: return HP_WS_BARRIER;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return HP_WS_1TON;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV: return HP_WS_NTO1;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN: return HP_WS_SCAN;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return HP_WS_NXN;
    default: return 0;
    }
}

void hp__mpi_ws_coll(hp_mpi_frame *f, int root, MPI_Comm comm)
{
    hp_ws_record r;
    int cls = coll_class(f->fn);
    if (cls == 0 || !start_record(f, &r, comm))
        return;
    r.kind = HP_WS_COLL;
    r.peer = root;
    r.tag = cls;
    keep_open(f, &r);
}

/* ------------------------------------------------------------------ replay: common */

typedef struct replay {
    MPI_Comm comm; /* the transport's duplicate of MPI_COMM_WORLD */
    int rank, size;
    uint64_t base; /* the job's earliest record, in ticks */
    double tps;
    int *scratch; /* 8 * size ints: the exchanges' counts and offsets */
} replay;

static double seconds(const replay *rp, uint64_t ticks)
{
    return (double)(int64_t)(ticks - rp->base) / rp->tps;
}

static double clamp(double v, double hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

/* World rank of rank `peer` of local communicator `comm`, or -1. */
static int world_rank_of(const replay *rp, uint32_t comm, int peer, uint64_t *key)
{
    const int32_t *members;
    uint32_t n;
    if (hp_mpi_comm_info(comm, key, &members, &n) < 0 || peer < 0)
        return -1;
    if (comm == HP_MPI_COMM_WORLD_ID)
        return peer < rp->size ? peer : -1;
    if (comm == HP_MPI_COMM_SELF_ID)
        return peer == 0 ? rp->rank : -1;
    return (uint32_t)peer < n ? members[peer] : -1;
}

/* Whether every rank can go on (ok on this one): a step that one rank cannot take is
 * skipped by all, so that none waits for another. */
static bool all_ok(MPI_Comm comm, bool ok)
{
    int mine = ok, all = 0;
    hp__mpi_offcpu_allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return all != 0;
}

/* One kind of item in an exchange: out holds items of `width` bytes grouped by
 * destination, counts[d] of them for rank d (NULL: none); the exchange fills in with the
 * incoming ones grouped by source and in_counts (both malloc'd; NULL when this rank ran
 * out of memory or the exchange failed). */
typedef struct flow {
    const void *out;
    const int *counts;
    size_t width;
    void *in;
    int *in_counts;
} flow;

/* The items of fl[0] then fl[1] for each destination, in one buffer (NULL when out of
 * memory). */
static char *pack_flows(const replay *rp, const flow *fl, long bytes)
{
    char *packed = malloc((size_t)bytes + 1), *at = packed;
    size_t from[2] = { 0, 0 };
    for (int d = 0; packed != NULL && d < rp->size; d++)
        for (int k = 0; k < 2; k++) {
            size_t n = fl[k].counts != NULL ? (size_t)fl[k].counts[d] * fl[k].width : 0;
            if (n > 0)
                memcpy(at, (const char *)fl[k].out + from[k], n);
            at += n;
            from[k] += n;
        }
    return packed;
}

/* The received bytes, grouped by source as fl[0]'s then fl[1]'s items, into each flow's
 * own array. A rank out of memory here only loses its own results. */
static void unpack_flows(const replay *rp, flow *fl, const char *raw, const int *ic)
{
    size_t total[2] = { 0, 0 }, to[2] = { 0, 0 };
    for (int s = 0; s < rp->size; s++)
        for (int k = 0; k < 2; k++)
            total[k] += (size_t)ic[2 * s + k];
    for (int k = 0; k < 2; k++) {
        fl[k].in = malloc(total[k] * fl[k].width + 1);
        fl[k].in_counts = malloc((size_t)rp->size * sizeof(int));
    }
    if (!fl[0].in || !fl[1].in || !fl[0].in_counts || !fl[1].in_counts) {
        for (int k = 0; k < 2; k++) {
            free(fl[k].in), free(fl[k].in_counts);
            fl[k].in = fl[k].in_counts = NULL;
        }
        return;
    }
    for (int s = 0; s < rp->size; s++)
        for (int k = 0; k < 2; k++) {
            size_t n = (size_t)ic[2 * s + k] * fl[k].width;
            memcpy((char *)fl[k].in + to[k], raw, n);
            raw += n;
            to[k] += n;
            fl[k].in_counts[s] = ic[2 * s + k];
        }
}

/* Exchanges the items of two flows at once: one Alltoall of their counts (-1 from a
 * rank that cannot send, which every rank receives), one Allreduce on whether all could
 * take theirs, one Alltoallv of the bytes. Returns 0, or -1 (every in NULL on every
 * rank) when some rank could not send or receive. */
static int exchange(const replay *rp, flow *fl)
{
    int n = rp->size;
    int *sc = rp->scratch, *ic = sc + 2 * n, *sb = ic + 2 * n, *sd = sb + n, *rb = sd + n,
        *rd = rb + n;
    long out_bytes = 0, in_bytes = 0;
    fl[0].in = fl[1].in = NULL;
    fl[0].in_counts = fl[1].in_counts = NULL;
    for (int d = 0; d < n; d++)
        for (int k = 0; k < 2; k++) {
            sc[2 * d + k] = fl[k].counts != NULL ? fl[k].counts[d] : 0;
            out_bytes += sc[2 * d + k] * (long)fl[k].width;
        }
    char *packed = out_bytes <= INT32_MAX ? pack_flows(rp, fl, out_bytes) : NULL;
    for (int d = 0; packed == NULL && d < n; d++)
        sc[2 * d] = -1;
    hp__mpi_offcpu_alltoall(sc, 2, MPI_INT, ic, 2, MPI_INT, rp->comm);
    bool ok = packed != NULL;
    for (int s = 0; s < n; s++) {
        ok = ok && ic[2 * s] >= 0;
        in_bytes += ic[2 * s] * (long)fl[0].width + ic[2 * s + 1] * (long)fl[1].width;
    }
    char *raw = ok && in_bytes <= INT32_MAX ? malloc((size_t)in_bytes + 1) : NULL;
    if (!all_ok(rp->comm, raw != NULL)) {
        free(packed);
        free(raw);
        return -1;
    }
    for (int p = 0, out_at = 0, in_at = 0; p < n; p++) {
        sb[p] = (int)(sc[2 * p] * fl[0].width + sc[2 * p + 1] * fl[1].width);
        rb[p] = (int)(ic[2 * p] * fl[0].width + ic[2 * p + 1] * fl[1].width);
        sd[p] = out_at;
        rd[p] = in_at;
        out_at += sb[p];
        in_at += rb[p];
    }
    hp__mpi_offcpu_alltoallv(packed, sb, sd, MPI_BYTE, raw, rb, rd, MPI_BYTE, rp->comm);
    unpack_flows(rp, fl, raw, ic);
    free(packed);
    free(raw);
    return 0;
}

/* ------------------------------------------------------------------ replay: p2p */

typedef struct sent_msg { /* what travels to the receiver */
    double enter, exit;
    uint64_t key; /* communicator */
    int32_t tag;
    uint32_t index; /* the send's record index at the sender */
    uint32_t blocking; /* a blocking send: Late Receiver applies */
    uint32_t no_times; /* a placeholder send: its receive is matched, not charged */
} sent_msg;

typedef struct recv_reply { /* what travels back to a blocking sender */
    double enter; /* the receive's enter */
    uint32_t index;
    uint32_t pad;
} recv_reply;

typedef struct p2p_stats {
    uint64_t receives, matched;
} p2p_stats;

/* The incoming messages by channel (communicator key, source, tag): a channel chains its
 * messages in arrival order through next[], and the index finds a channel. */
typedef struct channel {
    uint64_t key;
    int32_t src, tag;
    int64_t head, tail; /* the first message not yet matched (-1: none), the last */
} channel;

typedef struct msg_index {
    hp_hash_index index;
    channel *channels;
    uint32_t nchannels;
    int64_t *next; /* per message: the next one on its channel, or -1 */
} msg_index;

static uint64_t channel_hash(uint64_t key, int32_t src, int32_t tag)
{
    return hp_hash_mix(key) ^ ((uint64_t)(uint32_t)src << 20) ^
           (uint64_t)(uint32_t)tag * 0xC2B2AE3D27D4EB4Full;
}

static uint64_t channel_entry_hash(const void *ctx, uint32_t index)
{
    const channel *c = &((const msg_index *)ctx)->channels[index];
    return channel_hash(c->key, c->src, c->tag);
}

static bool channel_is(const void *ctx, uint32_t index, const void *wanted)
{
    const channel *c = &((const msg_index *)ctx)->channels[index], *w = wanted;
    return c->key == w->key && c->src == w->src && c->tag == w->tag;
}

/* The channel (key, src, tag), or NULL when no message came on it. */
static channel *find_channel(msg_index *x, uint64_t key, int32_t src, int32_t tag)
{
    const channel wanted = { key, src, tag, -1, -1 };
    uint32_t i = hp_hash_index_find(&x->index, channel_hash(key, src, tag), channel_is, x,
                                    &wanted);
    return i != UINT32_MAX ? &x->channels[i] : NULL;
}

/* Appends message m to its channel, which it opens when it is the channel's first. */
static int index_message(msg_index *x, const sent_msg *msg, int32_t src, size_t m)
{
    x->next[m] = -1;
    channel *c = find_channel(x, msg->key, src, msg->tag);
    if (c != NULL) {
        x->next[c->tail] = (int64_t)m;
        c->tail = (int64_t)m;
        return 0;
    }
    x->channels[x->nchannels] = (channel){ msg->key, src, msg->tag, (int64_t)m, (int64_t)m };
    if (hp_hash_index_add(&x->index, channel_hash(msg->key, src, msg->tag), x->nchannels,
                          channel_entry_hash, x) != 0)
        return -1;
    x->nchannels++;
    return 0;
}

static int index_messages(msg_index *x, const sent_msg *in, const int *counts, int size)
{
    size_t total = 0;
    for (int s = 0; s < size; s++)
        total += (size_t)counts[s];
    if (total >= UINT32_MAX - 1) /* the index counts channels in 32 bits */
        return -1;
    x->channels = malloc((total + 1) * sizeof(channel));
    x->next = malloc((total + 1) * sizeof(int64_t));
    if (x->channels == NULL || x->next == NULL || hp_hash_index_init(&x->index, total) != 0)
        return -1;
    size_t m = 0;
    for (int s = 0; s < size; s++)
        for (int k = 0; k < counts[s]; k++, m++)
            if (index_message(x, &in[m], s, m) < 0)
                return -1;
    return 0;
}

static void release_index(msg_index *x)
{
    hp_hash_index_release(&x->index);
    free(x->channels);
    free(x->next);
}

/* Source rank of message m of the incoming array (grouped by source). */
static int source_of(const int *counts, int size, size_t m)
{
    for (int s = 0; s < size; s++) {
        if (m < (size_t)counts[s])
            return s;
        m -= (size_t)counts[s];
    }
    return -1;
}

typedef struct matched {
    size_t record; /* the receive's record */
    int src;
    double send_enter, late;
} matched;

/* Late Sender's wrong-order part: a late receive whose message was sent after one that
 * this rank received later (from the same sender or another). */
static void charge_wrong_order(const replay *rp, const matched *mt, size_t n)
{
    double *min_src = malloc((size_t)rp->size * sizeof(double));
    if (min_src == NULL)
        return;
    for (int s = 0; s < rp->size; s++)
        min_src[s] = HUGE_VAL;
    double min_all = HUGE_VAL;
    for (size_t i = n; i-- > 0;) {
        const matched *m = &mt[i];
        if (m->late > 0 && min_all < m->send_enter) {
            const hp_ws_record *r = hp_ws_at(m->record);
            hp_ws_charge(r, HP_WSM_LS_WRONG_ORDER, m->late);
            hp_ws_charge(r, min_src[m->src] < m->send_enter ? HP_WSM_LSWO_SAME
                                                              : HP_WSM_LSWO_DIFFERENT,
                         m->late);
        }
        if (m->send_enter < min_all)
            min_all = m->send_enter;
        if (m->send_enter < min_src[m->src])
            min_src[m->src] = m->send_enter;
    }
    free(min_src);
}

/* Packs this rank's sends by destination. Returns the malloc'd array and counts. */
static sent_msg *pack_sends(const replay *rp, int *counts)
{
    size_t n = hp_ws_count(), total = 0;
    int *dest = malloc((n + 1) * sizeof(int));
    if (dest == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const hp_ws_record *r = hp_ws_at(i);
        uint64_t key;
        dest[i] = -1;
        if (r->kind == HP_WS_SEND || r->kind == HP_WS_SSEND || r->kind == HP_WS_ISEND)
            dest[i] = world_rank_of(rp, r->comm, r->peer, &key);
        if (dest[i] >= 0) {
            counts[dest[i]]++;
            total++;
        }
    }
    sent_msg *out = malloc((total + 1) * sizeof(sent_msg));
    int *at = calloc((size_t)rp->size, sizeof(int));
    for (int d = 0, sum = 0; at != NULL && d < rp->size; d++) {
        at[d] = sum;
        sum += counts[d];
    }
    for (size_t i = 0; out != NULL && at != NULL && i < n; i++) {
        const hp_ws_record *r = hp_ws_at(i);
        if (dest[i] < 0)
            continue;
        uint64_t key = 0;
        world_rank_of(rp, r->comm, r->peer, &key);
        out[at[dest[i]]++] = (sent_msg){ seconds(rp, r->enter), seconds(rp, hp_ws_exit(r)), key,
                                         r->tag, (uint32_t)i, r->kind != HP_WS_ISEND,
                                         (r->flags & HP_WS_NO_TIMES) != 0 };
    }
    if (out == NULL || at == NULL) {
        free(out);
        out = NULL;
        memset(counts, 0, (size_t)rp->size * sizeof(int));
    }
    free(at);
    free(dest);
    return out;
}

/* Receives in the order they were posted (then kept), which is the order MPI matched
 * them in: a non-blocking receive completed after a later one still took the earlier
 * message. */
static int by_post(const void *a, const void *b)
{
    const hp_ws_record *x = hp_ws_at(*(const size_t *)a), *y = hp_ws_at(*(const size_t *)b);
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int by_record(const void *a, const void *b)
{
    size_t x = ((const matched *)a)->record, y = ((const matched *)b)->record;
    return x < y ? -1 : x > y;
}

/* Matches this rank's receives to the incoming messages, charges Late Sender, and
 * fills the replies to blocking senders (grouped by source; counts in reply_counts). */
static recv_reply *match_receives(const replay *rp, const sent_msg *in, const int *in_counts,
                                  int *reply_counts, p2p_stats *st)
{
    msg_index x = { 0 };
    size_t n = hp_ws_count(), total_in = 0;
    for (int s = 0; s < rp->size; s++)
        total_in += (size_t)in_counts[s];
    matched *mt = malloc((n + 1) * sizeof(matched));
    size_t *reply_of = malloc((total_in + 1) * sizeof(size_t)); /* message -> receive */
    size_t *order = malloc((n + 1) * sizeof(size_t));
    recv_reply *replies = NULL;
    size_t nm = 0, nr = 0;
    if (mt == NULL || reply_of == NULL || order == NULL ||
        index_messages(&x, in, in_counts, rp->size) < 0)
        goto out;
    for (size_t m = 0; m < total_in; m++)
        reply_of[m] = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (hp_ws_at(i)->kind == HP_WS_RECV)
            order[nr++] = i;
    qsort(order, nr, sizeof(size_t), by_post);
    for (size_t k = 0; k < nr; k++) {
        size_t i = order[k];
        const hp_ws_record *r = hp_ws_at(i);
        uint64_t key;
        bool placeholder = (r->flags & HP_WS_NO_TIMES) != 0;
        st->receives += !placeholder;
        int src = world_rank_of(rp, r->comm, r->peer, &key);
        if (src < 0)
            continue;
        channel *c = find_channel(&x, key, src, r->tag);
        int64_t m = c != NULL ? c->head : -1;
        if (m < 0)
            continue; /* its send was not kept */
        c->head = x.next[m];
        if (placeholder || in[m].no_times)
            continue; /* the message is taken, so later ones stay matched */
        double enter = seconds(rp, r->enter), exit = seconds(rp, hp_ws_exit(r));
        double late = clamp(in[m].enter - enter, exit - enter);
        hp_ws_charge(r, HP_WSM_LATE_SENDER, late);
        mt[nm++] = (matched){ i, src, in[m].enter, late };
        reply_of[m] = i;
        st->matched++;
    }
    qsort(mt, nm, sizeof(matched), by_record); /* "received later": in completion order */
    charge_wrong_order(rp, mt, nm);
    replies = malloc((total_in + 1) * sizeof(recv_reply));
    for (size_t m = 0, k = 0; replies != NULL && m < total_in; m++) {
        if (reply_of[m] == SIZE_MAX || !in[m].blocking ||
            (hp_ws_at(reply_of[m])->flags & HP_WS_POSTED_EARLIER))
            continue;
        int s = source_of(in_counts, rp->size, m);
        reply_counts[s]++;
        replies[k++] = (recv_reply){ seconds(rp, hp_ws_at(reply_of[m])->enter), in[m].index,
                                     0 };
    }
    if (replies == NULL)
        memset(reply_counts, 0, (size_t)rp->size * sizeof(int));
out:
    release_index(&x);
    free(order);
    free(mt);
    free(reply_of);
    return replies;
}

/* Late Receiver from the replies of the backward flow. */
static void charge_late_receivers(const replay *rp, const recv_reply *back, const int *counts)
{
    size_t nback = 0;
    for (int s = 0; back != NULL && s < rp->size; s++)
        nback += (size_t)counts[s];
    for (size_t k = 0; k < nback; k++) {
        if (back[k].index >= hp_ws_count())
            continue;
        const hp_ws_record *r = hp_ws_at(back[k].index);
        double enter = seconds(rp, r->enter), exit = seconds(rp, hp_ws_exit(r));
        hp_ws_charge(r, HP_WSM_LATE_RECEIVER, clamp(back[k].enter - enter, exit - enter));
    }
}

/* ------------------------------------------------------------------ replay: collectives */

/* The waiting in one instance of a collective, from the job-wide reductions: red holds
 * the latest enter, minus the earliest exit, minus the earliest enter of a non-root and
 * the root's enter; scan_max the latest enter of the ranks up to this one. */
static void charge_collective(const replay *rp, const hp_ws_record *r, const double *red,
                              double scan_max, int csize, bool root)
{
    double enter = seconds(rp, r->enter), exit = seconds(rp, hp_ws_exit(r)), dur = exit - enter;
    double last_enter = red[0], first_exit = -red[1];
    double first_other = -red[2], root_enter = red[3];
    double wait;
    switch (r->tag) {
    case HP_WS_BARRIER:
        wait = clamp(last_enter - enter, dur);
        hp_ws_charge(r, HP_WSM_BARRIER_WAIT, wait);
        hp_ws_charge(r, HP_WSM_BARRIER_COMPLETION, clamp(exit - first_exit, dur - wait));
        break;
    case HP_WS_NXN:
        wait = clamp(last_enter - enter, dur);
        hp_ws_charge(r, HP_WSM_WAIT_NXN, wait);
        hp_ws_charge(r, HP_WSM_NXN_COMPLETION, clamp(exit - first_exit, dur - wait));
        break;
    case HP_WS_1TON: /* the ranks that are not the root wait for it */
        if (isfinite(root_enter) && !root)
            hp_ws_charge(r, HP_WSM_LATE_BROADCAST, clamp(root_enter - enter, dur));
        break;
    case HP_WS_NTO1: /* the root waits for the first of the others */
        if (csize > 1 && isfinite(first_other) && root)
            hp_ws_charge(r, HP_WSM_EARLY_REDUCE, clamp(first_other - enter, dur));
        break;
    case HP_WS_SCAN:
        hp_ws_charge(r, HP_WSM_EARLY_SCAN, clamp(scan_max - enter, dur));
        break;
    }
}

/* Whether r is the root's record of a rooted collective, this rank being crank of its
 * communicator (compared by rank: two ranks may enter at the same time). */
static bool is_root(const hp_ws_record *r, int crank)
{
    return (r->tag == HP_WS_1TON || r->tag == HP_WS_NTO1) && r->peer == crank;
}

/* Charges r unless it is a placeholder, which takes its instance but has no times. */
static void charge_instance(const replay *rp, const hp_ws_record *r, const double *red,
                            double scan_max, int csize, int crank)
{
    if (!(r->flags & HP_WS_NO_TIMES))
        charge_collective(rp, r, red, scan_max, csize, is_root(r, crank));
}

/* The four values of one instance that the members reduce with MAX (charge_collective's
 * red), for this rank as rank crank of the communicator; a placeholder's are neutral in
 * every maximum. */
static void coll_values(const replay *rp, const hp_ws_record *r, int crank, double *v)
{
    if (r->flags & HP_WS_NO_TIMES) {
        v[0] = v[1] = v[2] = v[3] = -HUGE_VAL;
        return;
    }
    double enter = seconds(rp, r->enter);
    bool has_root = r->tag == HP_WS_1TON || r->tag == HP_WS_NTO1;
    bool root = is_root(r, crank);
    v[0] = enter;
    v[1] = -seconds(rp, hp_ws_exit(r));
    v[2] = has_root && !root ? -enter : -HUGE_VAL;
    v[3] = root ? enter : -HUGE_VAL;
}

/* A communicator this rank made collectives on: its records (idx, n of them). */
typedef struct comm_colls {
    uint64_t key;
    const int32_t *members; /* world ranks in its rank order (NULL for WORLD) */
    uint32_t nmembers;
    int crank; /* this rank's rank in it */
    size_t *idx, n;
} comm_colls;

/* This rank's collectives on local communicator `local`, in the order it made them. */
static int collect(comm_colls *c, uint32_t local)
{
    size_t total = hp_ws_count();
    c->n = 0;
    c->idx = malloc((total + 1) * sizeof(size_t));
    if (c->idx == NULL)
        return -1;
    for (size_t i = 0; i < total; i++) {
        const hp_ws_record *r = hp_ws_at(i);
        if (r->kind == HP_WS_COLL && r->comm == local)
            c->idx[c->n++] = i;
    }
    return 0;
}

/* MPI_COMM_WORLD's collectives, the first n of them (n: the fewest any rank kept, agreed
 * by the opening reduction): one Allreduce of the enter/exit times of all of them, and
 * one Scan when some rank made an MPI_Scan/Exscan there (agreed there too), started before the exchanges and finished
 * after them (finish_world), so that they overlap. v has room for 10 * n doubles
 * (allocated before the agreement, so that no rank fails after it). */
typedef struct world_replay {
    long n;
    double *v;
    bool any_scan;
    MPI_Request req[2];
} world_replay;

static void start_world(const replay *rp, const comm_colls *w, world_replay *wr)
{
    long n = wr->n;
    wr->req[0] = wr->req[1] = MPI_REQUEST_NULL;
    if (n <= 0)
        return;
    double *v = wr->v, *red = v + 4 * n, *enters = v + 8 * n, *scan = v + 9 * n;
    for (long k = 0; k < n; k++) {
        const hp_ws_record *r = hp_ws_at(w->idx[k]);
        coll_values(rp, r, rp->rank, &v[4 * k]);
        enters[k] = v[4 * k];
    }
    PMPI_Iallreduce(v, red, (int)(4 * n), MPI_DOUBLE, MPI_MAX, rp->comm, &wr->req[0]);
    if (wr->any_scan)
        PMPI_Iscan(enters, scan, (int)n, MPI_DOUBLE, MPI_MAX, rp->comm, &wr->req[1]);
}

static void finish_world(const replay *rp, const comm_colls *w, world_replay *wr)
{
    long n = wr->n;
    if (n <= 0)
        return;
    hp__mpi_offcpu_wait(&wr->req[0], MPI_STATUS_IGNORE);
    hp__mpi_offcpu_wait(&wr->req[1], MPI_STATUS_IGNORE); /* MPI_REQUEST_NULL: at once */
    const double *red = wr->v + 4 * n, *scan = wr->v + 9 * n;
    for (long k = 0; k < n; k++)
        charge_instance(rp, hp_ws_at(w->idx[k]), &red[4 * k], wr->any_scan ? scan[k] : 0,
                        rp->size, rp->rank);
}

/* The sub-communicators' collectives go to each one's leader (its rank 0) in the
 * forward exchange and their job-wide values come back in the backward one: no
 * communicator is rebuilt and no collective is added per communicator. */
typedef struct coll_up { /* one instance, from a member to the leader */
    uint64_t key;
    uint32_t k, crank;
    double v[4];
} coll_up;

typedef struct coll_down { /* its reduction, from the leader to a member */
    uint64_t key;
    uint32_t k, pad;
    double red[4];
    double scan; /* the latest enter of the members up to this one */
} coll_down;

typedef struct subs {
    comm_colls *c; /* sorted by key */
    size_t n;
} subs;

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const comm_colls *)a)->key, y = ((const comm_colls *)b)->key;
    return x < y ? -1 : x > y;
}

static const comm_colls *find_sub(const subs *s, uint64_t key)
{
    comm_colls probe = { .key = key };
    return s->n > 0 ? bsearch(&probe, s->c, s->n, sizeof(comm_colls), by_key) : NULL;
}

static void release_subs(subs *s)
{
    for (size_t i = 0; s->c != NULL && i < s->n; i++)
        free(s->c[i].idx);
    free(s->c);
    s->c = NULL;
    s->n = 0;
}

/* The registered intracommunicators with more than one member that this rank is in. */
static int find_subs(const replay *rp, subs *s)
{
    uint32_t end = hp_mpi_comm_end();
    s->n = 0;
    s->c = calloc((size_t)(end > HP_MPI_COMM_FIRST_ID ? end - HP_MPI_COMM_FIRST_ID : 0) + 1,
                  sizeof(comm_colls));
    if (s->c == NULL)
        return -1;
    for (uint32_t id = HP_MPI_COMM_FIRST_ID; id < end; id++) {
        comm_colls *c = &s->c[s->n];
        if (hp_mpi_comm_info(id, &c->key, &c->members, &c->nmembers) < 0 || c->nmembers < 2)
            continue;
        c->crank = -1;
        for (uint32_t k = 0; k < c->nmembers; k++)
            if (c->members[k] == rp->rank)
                c->crank = (int)k;
        if (c->crank < 0)
            continue;
        s->n++;
        if (collect(c, id) < 0)
            return -1;
    }
    qsort(s->c, s->n, sizeof(comm_colls), by_key);
    return 0;
}

/* The upward flow: every instance of every sub-communicator's collectives, to its
 * leader's world rank (NULL, counts 0 when out of memory). */
static coll_up *pack_up(const replay *rp, const subs *s, int *counts)
{
    size_t total = 0;
    for (size_t i = 0; i < s->n; i++) {
        counts[s->c[i].members[0]] += (int)s->c[i].n;
        total += s->c[i].n;
    }
    coll_up *out = malloc((total + 1) * sizeof(coll_up));
    int *at = calloc((size_t)rp->size, sizeof(int));
    for (int d = 0, sum = 0; at != NULL && d < rp->size; d++) {
        at[d] = sum;
        sum += counts[d];
    }
    for (size_t i = 0; out != NULL && at != NULL && i < s->n; i++) {
        const comm_colls *c = &s->c[i];
        for (size_t k = 0; k < c->n; k++) {
            coll_up *u = &out[at[c->members[0]]++];
            *u = (coll_up){ c->key, (uint32_t)k, (uint32_t)c->crank, { 0, 0, 0, 0 } };
            coll_values(rp, hp_ws_at(c->idx[k]), c->crank, u->v);
        }
    }
    if (out == NULL || at == NULL) {
        free(out);
        out = NULL;
        memset(counts, 0, (size_t)rp->size * sizeof(int));
    }
    free(at);
    return out;
}

static int by_instance(const void *a, const void *b)
{
    const coll_up *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->crank < y->crank ? -1 : x->crank > y->crank;
}

/* One instance whose nm members all sent theirs (up[0..nm-1], by rank): its reduction
 * to each member, appended to down with the member's world rank in dest. */
static void reduce_instance(const comm_colls *c, const coll_up *up, coll_down *down,
                            int *dest, size_t *nd)
{
    coll_down r = { c->key, up[0].k, 0, { -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL }, 0 };
    for (uint32_t m = 0; m < c->nmembers; m++)
        for (int j = 0; j < 4; j++)
            r.red[j] = up[m].v[j] > r.red[j] ? up[m].v[j] : r.red[j];
    double scan = -HUGE_VAL;
    for (uint32_t m = 0; m < c->nmembers; m++) {
        scan = up[m].v[0] > scan ? up[m].v[0] : scan;
        r.scan = scan;
        dest[*nd] = c->members[m];
        down[(*nd)++] = r;
    }
}

/* At a leader: the incoming instances reduced per communicator, the first n of each (n
 * the fewest any member kept), as the downward flow by destination. */
static coll_down *reduce_up(const replay *rp, const subs *s, coll_up *in, const int *in_counts,
                            int *counts)
{
    size_t total = 0, nd = 0;
    for (int p = 0; in != NULL && p < rp->size; p++)
        total += (size_t)in_counts[p];
    qsort(in, total, sizeof(coll_up), by_instance);
    coll_down *down = malloc((total + 1) * sizeof(coll_down));
    coll_down *out = malloc((total + 1) * sizeof(coll_down));
    int *dest = malloc((total + 1) * sizeof(int)), *at = calloc((size_t)rp->size, sizeof(int));
    for (size_t i = 0; down && out && dest && at && i < total;) {
        size_t j = i;
        while (j < total && in[j].key == in[i].key && in[j].k == in[i].k)
            j++;
        const comm_colls *c = find_sub(s, in[i].key);
        bool whole = c != NULL && c->members[0] == rp->rank && j - i == c->nmembers;
        for (size_t m = i; whole && m < j; m++)
            whole = in[m].crank == m - i; /* each member once */
        if (whole)
            reduce_instance(c, &in[i], down, dest, &nd);
        i = j;
    }
    for (size_t i = 0; at != NULL && dest != NULL && i < nd; i++)
        counts[dest[i]]++;
    for (int d = 0, sum = 0; at != NULL && d < rp->size; d++) {
        at[d] = sum;
        sum += counts[d];
    }
    for (size_t i = 0; out != NULL && at != NULL && dest != NULL && i < nd; i++)
        out[at[dest[i]]++] = down[i];
    if (!down || !out || !dest || !at) {
        free(out);
        out = NULL;
        memset(counts, 0, (size_t)rp->size * sizeof(int));
    }
    free(down);
    free(dest);
    free(at);
    return out;
}

/* At a member: the reductions of its sub-communicators' instances. */
static void charge_down(const replay *rp, const subs *s, const coll_down *in,
                        const int *in_counts)
{
    size_t total = 0;
    for (int p = 0; in != NULL && p < rp->size; p++)
        total += (size_t)in_counts[p];
    for (size_t i = 0; i < total; i++) {
        const comm_colls *c = find_sub(s, in[i].key);
        if (c != NULL && in[i].k < c->n)
            charge_instance(rp, hp_ws_at(c->idx[in[i].k]), in[i].red, in[i].scan,
                            (int)c->nmembers, c->crank);
    }
}

/* ------------------------------------------------------------------ replay: entry */

/* The job's coverage, summed to rank 0 while the world's collectives finish. */
typedef struct coverage {
    uint64_t mine[5], sum[5]; /* kept, dropped, receives, matched, placeholders */
    bool hosts; /* the ranks ran on several hosts (from the opening reduction) */
    MPI_Request req;
} coverage;

static void start_coverage(const replay *rp, const p2p_stats *st, bool hosts, coverage *cv)
{
    *cv = (coverage){ { hp_ws_count(), hp_ws_dropped(), st->receives, st->matched, 0 },
                      { 0, 0, 0, 0, 0 },
                      hosts,
                      MPI_REQUEST_NULL };
    for (size_t i = 0; i < cv->mine[0]; i++)
        cv->mine[4] += (hp_ws_at(i)->flags & HP_WS_NO_TIMES) != 0;
    PMPI_Ireduce(cv->mine, cv->sum, 5, MPI_UINT64_T, MPI_SUM, 0, rp->comm, &cv->req);
}

/* Rank 0 states it as the note of the summary. Placeholders count as calls not kept. */
static void state_coverage(const replay *rp, coverage *cv)
{
    hp__mpi_offcpu_wait(&cv->req, MPI_STATUS_IGNORE);
    if (rp->rank != 0)
        return;
    const uint64_t *sum = cv->sum;
    uint64_t calls = sum[0] + sum[1];
    char text[1024], unseen[192] = "";
    if (sum[4] > 0)
        snprintf(unseen, sizeof(unseen),
                 "; calls without times (below HP_PROFILING_MAX_DEPTH, on an unmeasured "
                 "thread, or receives the request table could not take): %llu, nothing "
                 "charged to them",
                 (unsigned long long)sum[4]);
    snprintf(text, sizeof(text),
             "%.1f%% of %llu communicating MPI calls kept (%zu bytes each)%s%s; %llu of %llu "
             "kept receives matched to their sends%s",
             calls > 0 ? 100.0 * (double)(sum[0] - sum[4]) / (double)calls : 100.0,
             (unsigned long long)calls, sizeof(hp_ws_record),
             sum[1] > 0 ? ", the rest dropped when the budget's half for them was full "
                          "(HP_TOTAL_MEMORY): patterns cover the kept part"
                        : "",
             unseen, (unsigned long long)sum[3], (unsigned long long)sum[2],
             cv->hosts ? "; the ranks ran on several hosts, whose clocks "
                                             "are compared unsynchronised: patterns between "
                                             "ranks of different hosts are unreliable "
                                             "(doc/wait-states.md)"
                                           : "");
    hp_ws_set_note(text);
}

/* What a rank prepares before the opening reduction, so that nothing it needs later can
 * fail on one rank only. */
typedef struct prepared {
    comm_colls world;
    double *world_v; /* 10 doubles per world collective */
    subs subs;
    int *counts; /* 4 * size: the flows' counts */
} prepared;

static bool prepare(replay *rp, prepared *pr)
{
    size_t n = (size_t)rp->size;
    rp->scratch = malloc(8 * n * sizeof(int));
    pr->counts = calloc(4 * n, sizeof(int));
    bool ok = rp->scratch != NULL && pr->counts != NULL &&
              collect(&pr->world, HP_MPI_COMM_WORLD_ID) == 0 && pr->world.n < INT32_MAX / 8;
    pr->world_v = ok ? malloc((10 * pr->world.n + 1) * sizeof(double)) : NULL;
    return ok && pr->world_v != NULL && find_subs(rp, &pr->subs) == 0;
}

static void release_prepared(replay *rp, prepared *pr)
{
    free(rp->scratch);
    free(pr->counts);
    free(pr->world.idx);
    free(pr->world_v);
    release_subs(&pr->subs);
}

/* The forward exchange carries the sends and the sub-communicators' instances to their
 * leaders; the backward one the replies to blocking senders and the leaders'
 * reductions. */
static void replay_exchanges(const replay *rp, const prepared *pr, p2p_stats *st)
{
    int n = rp->size;
    int *sent_counts = pr->counts, *up_counts = sent_counts + n;
    int *reply_counts = up_counts + n, *down_counts = reply_counts + n;
    sent_msg *sends = pack_sends(rp, sent_counts);
    coll_up *ups = pack_up(rp, &pr->subs, up_counts);
    flow fwd[2] = { { sends, sends != NULL ? sent_counts : NULL, sizeof(sent_msg), 0, 0 },
                    { ups, ups != NULL ? up_counts : NULL, sizeof(coll_up), 0, 0 } };
    exchange(rp, fwd);
    recv_reply *replies = fwd[0].in != NULL
                              ? match_receives(rp, fwd[0].in, fwd[0].in_counts, reply_counts, st)
                              : NULL;
    coll_down *downs = fwd[1].in != NULL
                           ? reduce_up(rp, &pr->subs, fwd[1].in, fwd[1].in_counts, down_counts)
                           : NULL;
    flow back[2] = {
        { replies, replies != NULL ? reply_counts : NULL, sizeof(recv_reply), 0, 0 },
        { downs, downs != NULL ? down_counts : NULL, sizeof(coll_down), 0, 0 }
    };
    exchange(rp, back);
    charge_late_receivers(rp, back[0].in, back[0].in_counts);
    charge_down(rp, &pr->subs, back[1].in, back[1].in_counts);
    for (int k = 0; k < 2; k++) {
        free(fwd[k].in), free(fwd[k].in_counts);
        free(back[k].in), free(back[k].in_counts);
    }
    free(sends);
    free(ups);
    free(replies);
    free(downs);
}

void hp__mpi_ws_replay(const hp_transport *t)
{
    (void)t;
    if (!hp_ws_on)
        return;
    hp_finalize_phase previous = hp_finalize_phase_enter(HP_PHASE_REPLAY);
    replay rp = { hp__mpi_transport_comm(), 0, 1, UINT64_MAX, hp_timer_ticks_per_second(),
                  NULL };
    prepared pr = { 0 };
    PMPI_Comm_rank(rp.comm, &rp.rank);
    PMPI_Comm_size(rp.comm, &rp.size);
    bool ok = prepare(&rp, &pr);
    /* The opening reduction, all MIN: the job's earliest record (placeholders have no
     * times), whether every rank could prepare, whether no rank lost a communicator from
     * its registry (a member that lost one would not take part in its replay), the fewest
     * world collectives any rank kept, 0 when some rank made a world MPI_Scan/Exscan
     * (a rank whose own was not kept must still take part in the Scan), and the least
     * host key and its complement's (the ranks ran on one host when they agree). */
    uint64_t host = hp_mpi_host_key(rp.rank);
    uint64_t mine[7] = { UINT64_MAX, ok, hp_mpi_comms_lost() == 0, ok ? pr.world.n : 0, 1,
                         host, ~host };
    uint64_t all[7] = { 0, 0, 0, 0, 0, 0, 0 };
    for (size_t i = 0, n = hp_ws_count(); i < n; i++)
        if (hp_ws_at(i)->enter < mine[0] && !(hp_ws_at(i)->flags & HP_WS_NO_TIMES))
            mine[0] = hp_ws_at(i)->enter;
    for (size_t k = 0; ok && k < pr.world.n; k++)
        if (hp_ws_at(pr.world.idx[k])->tag == HP_WS_SCAN)
            mine[4] = 0;
    hp__mpi_offcpu_allreduce(mine, all, 7, MPI_UINT64_T, MPI_MIN, rp.comm);
    rp.base = all[0];
    p2p_stats st = { 0, 0 };
    world_replay wr = { all[1] ? (long)all[3] : 0, pr.world_v, all[4] == 0, { 0, 0 } };
    coverage cv;
    start_world(&rp, &pr.world, &wr);
    if (all[1]) {
        if (!all[2])
            release_subs(&pr.subs); /* sub-communicators are left out on every rank */
        replay_exchanges(&rp, &pr, &st);
    }
    start_coverage(&rp, &st, all[5] != ~all[6], &cv);
    finish_world(&rp, &pr.world, &wr);
    state_coverage(&rp, &cv);
    release_prepared(&rp, &pr);
    hp_finalize_phase_leave(previous);
}
