/*
 * Request table of the MPI adapter (see mpi_requests.h).
 *
 * Open addressing over a static array of HP_MPI_REQ_SLOTS slots, linear probing limited to
 * HP_MPI_REQ_PROBE steps. A slot's key is the request handle (EMPTY = 0, a removed slot =
 * TOMB); a thread claims a slot by compare-and-swap of the key, so threads never lock.
 * MPI guarantees that one request handle is live once, so the same key is never inserted
 * by two threads at once; the value fields are written by the claiming thread and read
 * by the completing thread after MPI's own ordering (the handle was passed between them).
 */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "mpi_bytes.h"
#include "mpi_requests.h"
#include "mpi_trace_events.h"
#include "mpi_waitstates.h"
#include "util/hash.h"

enum {
    HP_MPI_REQ_SLOTS = 1 << 14, /* power of two */
    HP_MPI_REQ_PROBE = 64
};

enum req_kind {
    KIND_RECV = 1,  /* Irecv & co.: count from the status, then forget */
    KIND_PRECV = 2, /* persistent receive: count from the status when active */
    KIND_PERSIST = 3, /* persistent send/collective: bytes counted at Start */
    KIND_SEND = 4,   /* traced Isend & co.: its completion event, then forget */
    KIND_COLL = 5    /* traced non-blocking collective: likewise */
};

#define KEY_EMPTY ((uint64_t)0)
#define KEY_TOMB (~(uint64_t)0)

typedef struct req_slot {
    uint64_t key; /* atomic */
    uint64_t seq; /* atomic: insertion order, 0 = free or not numbered yet */
    uintptr_t owner; /* the thread that inserted it (this_thread()) */
    uint32_t kind;
    uint32_t active;
    uint64_t sent, received;
    uint32_t msgs_sent, msgs_received;
    uint64_t trace_id; /* 0 = no trace events */
    uint32_t trace_comm;
    uint32_t op, root; /* KIND_COLL */
    int32_t peer, tag; /* traced persistent send (KIND_PERSIST) */
    uint32_t persistent_traced; /* KIND_PERSIST / KIND_PRECV: events at each activation */
    uint32_t ws_seq; /* KIND_RECV with wait states: its place in the posting order */
} req_slot;

static req_slot table[HP_MPI_REQ_SLOTS];
long hp_mpi_req_live;
static uint64_t lost;
static uint64_t last_trace_id; /* atomic */
static uint64_t last_seq;      /* atomic */

static inline uint64_t key_of(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    if (k == KEY_EMPTY || k == KEY_TOMB)
        k ^= 0x5a5a5a5a; /* never a real handle here; keeps the sentinels free */
    return k;
}

static inline unsigned hash_of(uint64_t k)
{
    return (unsigned)(hp_hash_mix(k) >> 40) & (HP_MPI_REQ_SLOTS - 1);
}

/* Insertion order of a slot's entry; an entry whose number is not written yet (0) was
 * inserted just now, so it counts as the newest. */
static uint64_t age_of(const req_slot *s)
{
    uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
    return seq != 0 ? seq : UINT64_MAX;
}

/* The calling thread, as a number: the address of a thread-local byte. */
static __thread char thread_tag __attribute__((tls_model("initial-exec")));

static uintptr_t this_thread(void)
{
    return (uintptr_t)&thread_tag;
}

/* The live entry for key k. With MPI_THREAD_MULTIPLE a handle can have two entries (MPI
 * reused it for another thread's request before the completing thread removed the
 * first): the completion in progress belongs to the oldest entry the calling thread
 * made, or, when it made none (a request completed by another thread than the one that
 * started it), to the oldest entry. */
static req_slot *find(uint64_t k)
{
    unsigned h = hash_of(k);
    req_slot *oldest = NULL, *oldest_mine = NULL;
    for (unsigned i = 0; i < HP_MPI_REQ_PROBE; i++) {
        req_slot *s = &table[(h + i) & (HP_MPI_REQ_SLOTS - 1)];
        uint64_t cur = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (cur == KEY_EMPTY)
            break;
        if (cur != k)
            continue;
        if (oldest == NULL || age_of(s) < age_of(oldest))
            oldest = s;
        if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED) == this_thread() &&
            (oldest_mine == NULL || age_of(s) < age_of(oldest_mine)))
            oldest_mine = s;
    }
    return oldest_mine != NULL ? oldest_mine : oldest;
}

static req_slot *insert(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL)
        return NULL;
    /* Always a fresh slot, even when the handle is in the table already: MPI hands a
     * freed handle out again at once, possibly to another thread, before the thread
     * that completed it has removed its entry. Each completion then removes exactly one
     * entry (claim_removal), so two live receives with one handle are both counted. */
    uint64_t k = key_of(r);
    req_slot *s;
    unsigned h = hash_of(k);
    for (unsigned i = 0; i < HP_MPI_REQ_PROBE; i++) {
        s = &table[(h + i) & (HP_MPI_REQ_SLOTS - 1)];
        uint64_t cur = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
        while (cur == KEY_EMPTY || cur == KEY_TOMB) {
            if (__atomic_compare_exchange_n(&s->key, &cur, k, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED)) {
                __atomic_store_n(&s->owner, this_thread(), __ATOMIC_RELAXED);
                __atomic_store_n(&s->seq, __atomic_add_fetch(&last_seq, 1, __ATOMIC_RELAXED),
                                 __ATOMIC_RELEASE);
                __atomic_add_fetch(&hp_mpi_req_live, 1, __ATOMIC_RELAXED);
                return s;
            }
        }
    }
    __atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* Removes slot s if it still holds key k; false when another thread removed it first. */
static bool claim_removal(req_slot *s, uint64_t k)
{
    uint64_t expected = k;
    if (!__atomic_compare_exchange_n(&s->key, &expected, KEY_TOMB, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
        return false;
    __atomic_store_n(&s->seq, 0, __ATOMIC_RELEASE); /* a stale number must not look old */
    __atomic_sub_fetch(&hp_mpi_req_live, 1, __ATOMIC_RELAXED);
    return true;
}

enum { REMOVAL_TRIES = 4 };

uint64_t hp_mpi_req_lost(void)
{
    return __atomic_load_n(&lost, __ATOMIC_RELAXED);
}

static void set_entry(req_slot *s, uint32_t kind, const hp_mpi_frame *b)
{
    s->kind = kind;
    s->active = 0;
    s->sent = b ? b->bytes_sent : 0;
    s->received = b ? b->bytes_received : 0;
    s->msgs_sent = b ? (uint32_t)b->messages_sent : 0;
    s->msgs_received = b ? (uint32_t)b->messages_received : 0;
    s->trace_id = 0;
    s->persistent_traced = 0;
}

static uint64_t trace_id_for(req_slot *s, uint32_t comm)
{
    s->trace_comm = comm;
    s->trace_id = __atomic_add_fetch(&last_trace_id, 1, __ATOMIC_RELAXED);
    return s->trace_id;
}

uint64_t hp_mpi_req_trace_send(MPI_Request req, uint32_t comm)
{
    req_slot *s = insert(req);
    if (s == NULL)
        return 0;
    set_entry(s, KIND_SEND, NULL);
    return trace_id_for(s, comm);
}

uint64_t hp_mpi_req_trace_coll(MPI_Request req, uint32_t comm, uint32_t op, uint32_t root,
                               const hp_mpi_frame *bytes)
{
    req_slot *s = insert(req);
    if (s == NULL)
        return 0;
    set_entry(s, KIND_COLL, bytes);
    s->op = op;
    s->root = root;
    return trace_id_for(s, comm);
}

int hp_mpi_req_trace_persistent(MPI_Request req, uint32_t comm, int peer, int tag)
{
    req_slot *s = req != MPI_REQUEST_NULL ? find(key_of(req)) : NULL;
    if (s == NULL || (s->kind != KIND_PERSIST && s->kind != KIND_PRECV))
        return 0;
    s->trace_comm = comm;
    s->peer = peer;
    s->tag = tag;
    s->persistent_traced = 1;
    return 1;
}

uint64_t hp_mpi_req_trace_recv(MPI_Request req, uint32_t comm)
{
    req_slot *s = req != MPI_REQUEST_NULL ? find(key_of(req)) : NULL;
    if (s == NULL || s->kind != KIND_RECV || s->trace_id != 0)
        return 0;
    if (hp_ws_on)
        s->ws_seq = hp_ws_next_seq();
    return trace_id_for(s, comm);
}

/* What a completed receive, traced send or collective (or an activation of a persistent
 * request) leaves: bytes and the completion event. e is a copy of the slot taken before
 * its removal. */
static void complete_once(hp_mpi_frame *f, const req_slot *e, const MPI_Status *status)
{
    uint64_t before = f->bytes_received;
    if (e->kind == KIND_RECV || e->kind == KIND_PRECV)
        hp_mpi_bytes_recv(f, status);
    if (e->trace_id == 0)
        return;
    if (hp_ws_on && (e->kind == KIND_RECV || e->kind == KIND_PRECV))
        hp__mpi_ws_recv_done(f, e->trace_comm, e->ws_seq, status);
    if (e->kind == KIND_COLL)
        hp_mpi_trace_collective_completion(f, e->trace_id, e->trace_comm, e->op, e->root,
                                           e->sent, e->received);
    else
        hp_mpi_trace_completion(f, e->trace_id, e->trace_comm, status,
                                f->bytes_received - before,
                                e->kind == KIND_RECV || e->kind == KIND_PRECV);
}

/* The value fields of a slot (not its key, which other threads change atomically). */
static req_slot snapshot(const req_slot *s)
{
    return (req_slot){ .kind = s->kind, .sent = s->sent, .received = s->received,
                       .trace_id = s->trace_id, .trace_comm = s->trace_comm, .op = s->op,
                       .ws_seq = s->ws_seq,
                       .root = s->root };
}

/* Entries that one completion removes (the others stay until freed). */
static bool removed_at_completion(uint32_t kind)
{
    return kind == KIND_RECV || kind == KIND_SEND || kind == KIND_COLL;
}

void hp_mpi_req_track_recv(MPI_Request req)
{
    req_slot *s = insert(req);
    if (s)
        set_entry(s, KIND_RECV, NULL);
}

void hp_mpi_req_track_precv(MPI_Request req)
{
    req_slot *s = insert(req);
    if (s)
        set_entry(s, KIND_PRECV, NULL);
}

void hp_mpi_req_track_persistent(MPI_Request req, const hp_mpi_frame *bytes)
{
    req_slot *s = insert(req);
    if (s)
        set_entry(s, KIND_PERSIST, bytes);
}

void hp_mpi_req_start(hp_mpi_frame *f, MPI_Request req)
{
    if (req == MPI_REQUEST_NULL || !hp_mpi_req_pending())
        return;
    req_slot *s = find(key_of(req));
    if (s == NULL)
        return;
    s->active = 1;
    if (s->kind == KIND_PERSIST) {
        f->bytes_sent += s->sent;
        f->bytes_received += s->received;
        f->messages_sent += s->msgs_sent;
        f->messages_received += s->msgs_received;
    }
    if (s->persistent_traced) { /* one trace id per activation */
        s->trace_id = __atomic_add_fetch(&last_trace_id, 1, __ATOMIC_RELAXED);
        hp_mpi_trace_start(f, s->trace_id, s->trace_comm, s->peer, s->tag, s->sent,
                           s->kind == KIND_PRECV);
        if (hp_ws_on && s->kind == KIND_PRECV) /* matched in the order started */
            s->ws_seq = hp_ws_next_seq();
        else if (hp_ws_on)
            hp__mpi_ws_start_send(f, s->trace_comm, s->peer, s->tag);
    }
}

void hp_mpi_req_startall(hp_mpi_frame *f, int count, const MPI_Request reqs[])
{
    for (int i = 0; i < count; i++)
        hp_mpi_req_start(f, reqs[i]);
}

void hp_mpi_req_forget(MPI_Request req)
{
    if (req == MPI_REQUEST_NULL || !hp_mpi_req_pending())
        return;
    uint64_t k = key_of(req);
    for (int i = 0; i < REMOVAL_TRIES; i++) {
        req_slot *s = find(k);
        if (s == NULL || claim_removal(s, k))
            return;
    }
}

void hp_mpi_req_complete(hp_mpi_frame *f, MPI_Request req, const MPI_Status *status)
{
    if (req == MPI_REQUEST_NULL)
        return;
    uint64_t k = key_of(req);
    req_slot *s = find(k);
    for (int i = 0; s != NULL && removed_at_completion(s->kind) && i < REMOVAL_TRIES; i++) {
        req_slot copy = snapshot(s); /* before the removal: the slot is free after it */
        if (claim_removal(s, k)) {
            complete_once(f, &copy, status);
            return;
        }
        s = find(k); /* another thread took that entry: look for ours */
    }
    if (s == NULL)
        return;
    switch (s->kind) {
    case KIND_RECV:
    case KIND_SEND:
    case KIND_COLL:
        break;
    case KIND_PRECV:
    case KIND_PERSIST:
        if (s->active) {
            s->active = 0;
            req_slot copy = snapshot(s);
            complete_once(f, &copy, status); /* the bytes of a send were counted at Start */
        }
        break;
    default:
        break;
    }
}

/* Per-thread buffer for arrays larger than HP_MPI_REQS_SMALL: grows by mmap (never per
 * call once large enough), never freed (a thread's largest Waitall decides its size). */
static __thread void *scratch __attribute__((tls_model("initial-exec")));
static __thread size_t scratch_size __attribute__((tls_model("initial-exec")));

static void *scratch_get(size_t bytes)
{
    if (bytes <= scratch_size)
        return scratch;
    size_t page = 4096, want = scratch_size ? scratch_size : 16 * page;
    while (want < bytes)
        want *= 2;
    want = (want + page - 1) & ~(page - 1);
    void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (scratch)
        munmap(scratch, scratch_size);
    scratch = p;
    scratch_size = want;
    return p;
}

MPI_Status *hp_mpi_req_save(hp_mpi_reqs *r, int count, const MPI_Request reqs[],
                            MPI_Status *statuses)
{
    r->n = 0;
    r->req = NULL;
    if (count <= 0 || reqs == NULL || !hp_mpi_req_pending())
        return statuses;
    int ignore = statuses == MPI_STATUSES_IGNORE;
    MPI_Status *st = statuses;
    if (count <= HP_MPI_REQS_SMALL) {
        r->req = r->small_req;
        if (ignore)
            st = r->small_st;
    } else {
        size_t rb = ((size_t)count * sizeof(MPI_Request) + 15) & ~(size_t)15;
        size_t need = rb + (ignore ? (size_t)count * sizeof(MPI_Status) : 0);
        char *p = scratch_get(need);
        if (p == NULL) {
            __atomic_add_fetch(&lost, (uint64_t)count, __ATOMIC_RELAXED);
            return statuses;
        }
        r->req = (MPI_Request *)p;
        if (ignore)
            st = (MPI_Status *)(p + rb);
    }
    memcpy(r->req, reqs, (size_t)count * sizeof(MPI_Request));
    r->n = count;
    return st;
}

void hp_mpi_req_complete_all(hp_mpi_frame *f, const hp_mpi_reqs *r, const MPI_Status *statuses)
{
    if (r->n == 0 || statuses == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < r->n; i++)
        hp_mpi_req_complete(f, r->req[i], &statuses[i]);
}

void hp_mpi_req_complete_one(hp_mpi_frame *f, const hp_mpi_reqs *r, int index,
                             const MPI_Status *status)
{
    if (r->n == 0 || index == MPI_UNDEFINED || index < 0 || index >= r->n ||
        status == MPI_STATUS_IGNORE)
        return;
    hp_mpi_req_complete(f, r->req[index], status);
}

void hp_mpi_req_complete_some(hp_mpi_frame *f, const hp_mpi_reqs *r, int outcount,
                              const int indices[], const MPI_Status *statuses)
{
    if (r->n == 0 || outcount == MPI_UNDEFINED || statuses == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < outcount; i++)
        if (indices[i] >= 0 && indices[i] < r->n)
            hp_mpi_req_complete(f, r->req[indices[i]], &statuses[i]);
}

void hp_mpi_req_reset(void)
{
    memset(table, 0, sizeof table);
    hp_mpi_req_live = 0;
    lost = 0;
}
