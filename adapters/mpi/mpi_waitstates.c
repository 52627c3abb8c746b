/*
 * Wait states, the MPI side (measurement/waitstates/waitstates.h, doc/wait-states.md):
 * the hooks that keep a record of each communicating call, and the parallel replay at
 * finalize that turns the records of all ranks into Scalasca's patterns.
 *
 * Recording: the trace rules of mpi-semantics.txt (mpi_trace_rules.c) and the request
 * completions and persistent starts (mpi_requests.c) call the hooks below after the real
 * call returned, so calls that communicate nothing (MPI_Comm_rank, ...) and the common
 * path of hp_mpi_enter/hp_mpi_exit pay nothing. A record takes the call's enter time and call
 * path from the location's top frame (the MPI call's own: measured MPI calls do not nest)
 * and reads the clock once for its end; a call without a frame of its own keeps a
 * placeholder (HP_WS_NO_TIMES), so that every rank's k-th message end or collective on
 * a channel stays the k-th in the replay.
 *
 * Replay, collective over the finalize transport's communicator, before the profiles
 * are built:
 *  - point-to-point: every rank sends each destination the times and envelopes of the
 *    messages it sent (one Alltoallv, the forward direction); the receiver matches them
 *    to its receives by (communicator, source, tag) in order, which is MPI's own
 *    non-overtaking rule, and computes Late Sender and its wrong-order part; for each
 *    matched blocking send it returns its receive's enter time (one Alltoallv backwards)
 *    and the sender computes Late Receiver;
 *  - collectives: each communicator the program used is rebuilt from its members
 *    (MPI_Comm_create_group, in the order of the communicators' job-wide keys, which all
 *    ranks share, so no rank can wait for another in a different one) and its
 *    collectives are replayed together: one Allreduce of the enter/exit times of all its
 *    instances (and one Scan for MPI_Scan/Exscan).
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
#include "adapters/mpi/mpi_functions.h"
#include "adapters/mpi/mpi_trace.h"
#include "adapters/mpi/mpi_transport.h"
#include "adapters/mpi/mpi_waitstates.h"
#include "measurement/core/config.h"
#include "measurement/core/location.h"
#include "measurement/core/memory.h"
#include "measurement/core/timer.h"
#include "measurement/waitstates/waitstates.h"
#include "util/log.h"

/* ------------------------------------------------------------------ recording */

/* The record of f's call so far (enter, call path), or a placeholder (HP_WS_NO_TIMES)
 * when the call has no measured frame of its own on top of the location's stack; false
 * when comm's id does not fit a record. */
static bool start_record(const hp_mpi_frame *f, hp_ws_record *r, MPI_Comm comm)
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

/* Appends r, its end read from the clock unless it is a placeholder. */
static void finish_record(hp_ws_record *r)
{
    if (!(r->flags & HP_WS_NO_TIMES))
        hp_ws_set_exit(r, hp_timer_now());
    hp_ws_append(r);
}

void hp__mpi_ws_send(const hp_mpi_frame *f, int dest, int tag, MPI_Comm comm, int nonblocking)
{
    hp_ws_record r;
    if (dest == MPI_PROC_NULL || !start_record(f, &r, comm))
        return;
    r.kind = nonblocking                                                           ? HP_WS_ISEND
             : f->fn == HP_MPI_FN_MPI_Ssend || f->fn == HP_MPI_FN_MPI_Ssend_c ? HP_WS_SSEND
                                                                                   : HP_WS_SEND;
    r.peer = dest;
    r.tag = tag;
    finish_record(&r);
}

void hp__mpi_ws_recv(const hp_mpi_frame *f, const MPI_Status *status, MPI_Comm comm)
{
    hp_ws_record r;
    if (status == MPI_STATUS_IGNORE || status->MPI_SOURCE == MPI_PROC_NULL ||
        !start_record(f, &r, comm))
        return;
    r.kind = HP_WS_RECV;
    r.peer = status->MPI_SOURCE;
    r.tag = status->MPI_TAG;
    r.seq = hp_ws_next_seq();
    finish_record(&r);
}

void hp__mpi_ws_recv_done(const hp_mpi_frame *f, uint32_t comm, uint32_t seq,
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
    finish_record(&r);
}

void hp__mpi_ws_start_send(const hp_mpi_frame *f, uint32_t comm, int dest, int tag)
{
    hp_ws_record r;
    if (comm > UINT16_MAX || dest == MPI_PROC_NULL || !start_record(f, &r, MPI_COMM_WORLD))
        return;
    r.comm = (uint16_t)comm;
    r.kind = HP_WS_ISEND;
    r.peer = dest;
    r.tag = tag;
    finish_record(&r);
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

void hp__mpi_ws_coll(const hp_mpi_frame *f, int root, MPI_Comm comm)
{
    hp_ws_record r;
    int cls = coll_class(f->fn);
    if (cls == 0 || !start_record(f, &r, comm))
        return;
    r.kind = HP_WS_COLL;
    r.peer = root;
    r.tag = cls;
    finish_record(&r);
}

/* ------------------------------------------------------------------ replay: common */

typedef struct replay {
    MPI_Comm comm; /* the transport's duplicate of MPI_COMM_WORLD */
    int rank, size;
    uint64_t base; /* the job's earliest record, in ticks */
    double tps;
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
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return all != 0;
}

/* Exchanges items of `width` bytes: out holds them grouped by destination, counts[d] of
 * them for rank d (size entries, or NULL for none); returns the incoming ones grouped by
 * source (malloc'd) with *in_counts (malloc'd, size entries). NULL (and nothing
 * exchanged, on every rank) when some rank ran out of memory. */
static char *exchange(const replay *rp, const char *out, const int *counts, size_t width,
                      int **in_counts)
{
    int n = rp->size;
    int *sc = calloc((size_t)n, sizeof(int)), *sd = calloc((size_t)n, sizeof(int));
    int *rd = calloc((size_t)n, sizeof(int)), *ic = calloc((size_t)n, sizeof(int));
    char *in = NULL;
    *in_counts = NULL;
    bool ok = sc && sd && rd && ic;
    long total_out = 0, total_in = 0;
    for (int d = 0; ok && counts != NULL && d < n; d++)
        total_out += sc[d] = counts[d];
    if (!all_ok(rp->comm, ok && total_out * (long)width <= INT32_MAX))
        goto out;
    PMPI_Alltoall(sc, 1, MPI_INT, ic, 1, MPI_INT, rp->comm);
    for (int s = 0; s < n; s++)
        total_in += ic[s];
    ok = total_in * (long)width <= INT32_MAX && (in = malloc(total_in * width + 1)) != NULL;
    if (!all_ok(rp->comm, ok))
        goto out;
    for (int d = 0, at = 0; d < n; d++) {
        sd[d] = at * (int)width;
        at += sc[d];
        sc[d] *= (int)width;
    }
    for (int s = 0, at = 0; s < n; s++) {
        rd[s] = at * (int)width;
        at += ic[s];
        ic[s] *= (int)width;
    }
    PMPI_Alltoallv(out, sc, sd, MPI_BYTE, in, ic, rd, MPI_BYTE, rp->comm);
    for (int s = 0; s < n; s++)
        ic[s] /= (int)width;
    *in_counts = ic;
    ic = NULL;
out:
    if (*in_counts == NULL) {
        free(in);
        in = NULL;
    }
    free(sc);
    free(sd);
    free(rd);
    free(ic);
    return in;
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

/* Hash of incoming messages by (key, source, tag): the head of each chain of messages in
 * arrival order; chains are linked through next[]. */
typedef struct msg_index {
    size_t size;
    int64_t *head, *tail; /* -1 = empty */
    uint64_t *hkey;
    int32_t *hsrc, *htag;
    int64_t *next;
} msg_index;

static size_t msg_slot(const msg_index *x, uint64_t key, int src, int tag)
{
    uint64_t h = (key * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uint32_t)src << 20) ^
                 (uint64_t)(uint32_t)tag * 0xC2B2AE3D27D4EB4Full;
    size_t i = (size_t)(h >> 17) & (x->size - 1);
    while (x->hsrc[i] != -1 && !(x->hkey[i] == key && x->hsrc[i] == src && x->htag[i] == tag))
        i = (i + 1) & (x->size - 1);
    return i;
}

static int index_messages(msg_index *x, const sent_msg *in, const int *counts, int size)
{
    size_t total = 0;
    for (int s = 0; s < size; s++)
        total += (size_t)counts[s];
    x->size = 64;
    while (x->size < 2 * total + 2)
        x->size *= 2;
    x->head = malloc(x->size * sizeof(int64_t));
    x->tail = malloc(x->size * sizeof(int64_t));
    x->hkey = malloc(x->size * sizeof(uint64_t));
    x->hsrc = malloc(x->size * sizeof(int32_t));
    x->htag = malloc(x->size * sizeof(int32_t));
    x->next = malloc((total + 1) * sizeof(int64_t));
    if (!x->head || !x->tail || !x->hkey || !x->hsrc || !x->htag || !x->next)
        return -1;
    memset(x->head, 0xff, x->size * sizeof(int64_t));
    memset(x->hsrc, 0xff, x->size * sizeof(int32_t)); /* -1: a free slot */
    size_t m = 0;
    for (int s = 0; s < size; s++)
        for (int k = 0; k < counts[s]; k++, m++) {
            size_t i = msg_slot(x, in[m].key, s, in[m].tag);
            x->next[m] = -1;
            if (x->hsrc[i] == -1) {
                x->head[i] = (int64_t)m;
                x->hkey[i] = in[m].key;
                x->hsrc[i] = s;
                x->htag[i] = in[m].tag;
            } else {
                x->next[x->tail[i]] = (int64_t)m;
            }
            x->tail[i] = (int64_t)m;
        }
    return 0;
}

static void release_index(msg_index *x)
{
    free(x->head);
    free(x->tail);
    free(x->hkey);
    free(x->hsrc);
    free(x->htag);
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
        size_t slot = msg_slot(&x, key, src, r->tag);
        int64_t m = x.head[slot];
        if (m < 0)
            continue; /* its send was not kept */
        x.head[slot] = x.next[m];
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

/* The replies were filled in message order, which is grouped by source: already in the
 * layout exchange() wants. */
static void replay_p2p(const replay *rp, p2p_stats *st)
{
    int *counts = calloc((size_t)rp->size, sizeof(int));
    int *reply_counts = calloc((size_t)rp->size, sizeof(int));
    sent_msg *out = counts != NULL ? pack_sends(rp, counts) : NULL;
    int *in_counts = NULL, *back_counts = NULL;
    sent_msg *in = (sent_msg *)exchange(rp, (const char *)out, out != NULL ? counts : NULL,
                                        sizeof(sent_msg), &in_counts);
    recv_reply *replies = NULL;
    if (in != NULL && reply_counts != NULL)
        replies = match_receives(rp, in, in_counts, reply_counts, st);
    recv_reply *back = (recv_reply *)exchange(rp, (const char *)replies,
                                              replies != NULL ? reply_counts : NULL,
                                              sizeof(recv_reply), &back_counts);
    size_t nback = 0;
    for (int s = 0; back != NULL && s < rp->size; s++)
        nback += (size_t)back_counts[s];
    for (size_t k = 0; k < nback; k++) {
        if (back[k].index >= hp_ws_count())
            continue;
        const hp_ws_record *r = hp_ws_at(back[k].index);
        double enter = seconds(rp, r->enter), exit = seconds(rp, hp_ws_exit(r));
        hp_ws_charge(r, HP_WSM_LATE_RECEIVER, clamp(back[k].enter - enter, exit - enter));
    }
    free(counts);
    free(reply_counts);
    free(out);
    free(in);
    free(in_counts);
    free(replies);
    free(back);
    free(back_counts);
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

/* Replays the collectives this rank made on local communicator `local`, rebuilt as c
 * (this rank is crank of csize): the first n of them, n being the fewest any member
 * kept. Collective over c. */
static void replay_comm(const replay *rp, MPI_Comm c, uint32_t local, int crank, int csize)
{
    size_t total = hp_ws_count();
    size_t *idx = malloc((total + 1) * sizeof(size_t));
    long mine[2] = { 0, 0 }, agreed[2] = { 0, 0 }; /* count, minus "has a scan" */
    for (size_t i = 0; idx != NULL && i < total; i++) {
        const hp_ws_record *r = hp_ws_at(i);
        if (r->kind == HP_WS_COLL && r->comm == local) {
            idx[mine[0]++] = i;
            if (r->tag == HP_WS_SCAN)
                mine[1] = -1;
        }
    }
    if (idx == NULL)
        mine[0] = mine[1] = 0;
    /* Whether to Scan is agreed on: a rank whose scan was not kept must still come. */
    PMPI_Allreduce(mine, agreed, 2, MPI_LONG, MPI_MIN, c);
    long n = agreed[0];
    double *v = n > 0 ? malloc((size_t)n * 9 * sizeof(double)) : NULL;
    if (n == 0 || !all_ok(c, v != NULL && n < INT32_MAX / 8)) {
        free(idx);
        free(v);
        return;
    }
    double *red = v + 4 * n, *scan = v + 8 * n;
    bool any_scan = agreed[1] != 0;
    for (long k = 0; k < n; k++) {
        const hp_ws_record *r = hp_ws_at(idx[k]);
        double enter = seconds(rp, r->enter);
        bool has_root = r->tag == HP_WS_1TON || r->tag == HP_WS_NTO1;
        bool root = has_root && r->peer == crank;
        v[4 * k] = enter;
        v[4 * k + 1] = -seconds(rp, hp_ws_exit(r));
        v[4 * k + 2] = has_root && !root ? -enter : -HUGE_VAL;
        v[4 * k + 3] = root ? enter : -HUGE_VAL;
        if (r->flags & HP_WS_NO_TIMES) /* neutral in every maximum */
            v[4 * k] = v[4 * k + 1] = v[4 * k + 2] = v[4 * k + 3] = -HUGE_VAL;
    }
    PMPI_Allreduce(v, red, (int)(4 * n), MPI_DOUBLE, MPI_MAX, c);
    if (any_scan) {
        for (long k = 0; k < n; k++)
            red[k] = v[4 * k]; /* the enters, contiguous (red is refilled below) */
        PMPI_Scan(red, scan, (int)n, MPI_DOUBLE, MPI_MAX, c);
        PMPI_Allreduce(v, red, (int)(4 * n), MPI_DOUBLE, MPI_MAX, c);
    }
    for (long k = 0; k < n; k++) {
        const hp_ws_record *r = hp_ws_at(idx[k]);
        bool root = (r->tag == HP_WS_1TON || r->tag == HP_WS_NTO1) && r->peer == crank;
        if (!(r->flags & HP_WS_NO_TIMES))
            charge_collective(rp, r, &red[4 * k], any_scan ? scan[k] : 0, csize, root);
    }
    free(idx);
    free(v);
}

typedef struct comm_ref {
    uint64_t key;
    uint32_t local;
} comm_ref;

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const comm_ref *)a)->key, y = ((const comm_ref *)b)->key;
    return x < y ? -1 : x > y;
}

/* A communicator of the program, rebuilt from its members (world ranks) on the
 * transport's communicator; MPI_COMM_NULL when that failed. Collective over the members. */
static MPI_Comm rebuild(const replay *rp, uint64_t key, const int32_t *members, uint32_t n)
{
    MPI_Group world, group;
    MPI_Comm c = MPI_COMM_NULL;
    int tag = (int)((key ^ (key >> 32)) & 0x3fff) + 1;
    if (PMPI_Comm_group(rp->comm, &world) != MPI_SUCCESS)
        return MPI_COMM_NULL;
    if (PMPI_Group_incl(world, (int)n, (const int *)members, &group) == MPI_SUCCESS) {
        if (PMPI_Comm_create_group(rp->comm, group, tag, &c) != MPI_SUCCESS)
            c = MPI_COMM_NULL;
        PMPI_Group_free(&group);
    }
    PMPI_Group_free(&world);
    return c;
}

/* Every communicator this rank belongs to, in the order of the job-wide keys (WORLD
 * first). Sub-communicators only when no rank lost one from its registry (a member that
 * lost one would not come). */
static void replay_collectives(const replay *rp)
{
    bool subs = all_ok(rp->comm, hp_mpi_comms_lost() == 0);
    uint32_t end = subs ? hp_mpi_comm_end() : HP_MPI_COMM_FIRST_ID;
    comm_ref *refs = malloc((end + 1) * sizeof(comm_ref));
    size_t n = 0;
    if (!all_ok(rp->comm, refs != NULL)) {
        free(refs);
        return;
    }
    for (uint32_t id = HP_MPI_COMM_FIRST_ID; id < end; id++) {
        const int32_t *members;
        uint32_t nm;
        if (hp_mpi_comm_info(id, &refs[n].key, &members, &nm) == 0 && nm > 1)
            refs[n++].local = id;
    }
    qsort(refs, n, sizeof(comm_ref), by_key);
    replay_comm(rp, rp->comm, HP_MPI_COMM_WORLD_ID, rp->rank, rp->size);
    for (size_t i = 0; i < n; i++) {
        const int32_t *members;
        uint32_t nm;
        uint64_t key;
        hp_mpi_comm_info(refs[i].local, &key, &members, &nm);
        int crank = -1;
        for (uint32_t k = 0; k < nm; k++)
            if (members[k] == rp->rank)
                crank = (int)k;
        MPI_Comm c = crank >= 0 ? rebuild(rp, key, members, nm) : MPI_COMM_NULL;
        if (c == MPI_COMM_NULL)
            continue;
        replay_comm(rp, c, refs[i].local, crank, (int)nm);
        PMPI_Comm_free(&c);
    }
    free(refs);
}

/* ------------------------------------------------------------------ replay: entry */

/* The job's coverage, on rank 0 as the note of the summary. Placeholders count as
 * calls not kept. */
static void state_coverage(const replay *rp, const p2p_stats *st)
{
    uint64_t mine[5] = { hp_ws_count(), hp_ws_dropped(), st->receives, st->matched, 0 };
    uint64_t sum[5] = { 0, 0, 0, 0, 0 };
    for (size_t i = 0; i < mine[0]; i++)
        mine[4] += (hp_ws_at(i)->flags & HP_WS_NO_TIMES) != 0;
    PMPI_Reduce(mine, sum, 5, MPI_UINT64_T, MPI_SUM, 0, rp->comm);
    uint64_t host = hp_mpi_host_key(rp->rank), keys[2] = { host, ~host }, least[2] = { 0, 0 };
    PMPI_Reduce(keys, least, 2, MPI_UINT64_T, MPI_MIN, 0, rp->comm);
    if (rp->rank != 0)
        return;
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
             least[0] != ~least[1] ? "; the ranks ran on several hosts, whose clocks are "
                                     "compared unsynchronised: patterns between ranks of "
                                     "different hosts are unreliable (doc/wait-states.md)"
                                   : "");
    hp_ws_set_note(text);
}

void hp__mpi_ws_replay(const hp_transport *t)
{
    (void)t;
    if (!hp_ws_on)
        return;
    replay rp = { hp__mpi_transport_comm(), 0, 1, UINT64_MAX, hp_timer_ticks_per_second() };
    PMPI_Comm_rank(rp.comm, &rp.rank);
    PMPI_Comm_size(rp.comm, &rp.size);
    uint64_t first = UINT64_MAX;
    for (size_t i = 0, n = hp_ws_count(); i < n; i++)
        if (hp_ws_at(i)->enter < first && !(hp_ws_at(i)->flags & HP_WS_NO_TIMES))
            first = hp_ws_at(i)->enter;
    PMPI_Allreduce(&first, &rp.base, 1, MPI_UINT64_T, MPI_MIN, rp.comm);
    p2p_stats st = { 0, 0 };
    replay_p2p(&rp, &st);
    replay_collectives(&rp);
    state_coverage(&rp, &st);
}
