/*
 * Registry of the communicators a traced program creates, and their unification at
 * MPI_Finalize (see mpi_comms.h).
 *
 * Entries live in a static array claimed by an atomic counter and are never removed:
 * a freed communicator stays defined in the trace. A second static table maps live
 * handles to entries (open addressing; a slot is claimed by compare-and-swap of its
 * entry field and published by a release store of its key; MPI_Comm_free turns the key
 * into a tombstone, because MPI hands the handle out again). Member lists come from a
 * static pool, or from the measurement budget when they do not fit.
 */
#include "mpi_comms.h"
#include "measurement/waitstates/waitstates.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/core/config.h"
#include "measurement/core/memory.h"
#include "measurement/finalize/tree.h"
#include "util/hash.h"
#include "mpi_offcpu.h"
#include "mpi_transport.h"

enum {
    MAX_COMMS = 1024,
    HANDLE_SLOTS = 4096, /* power of two, > MAX_COMMS: tombstones are never reused */
    HANDLE_PROBE = 64,
    NAME_SIZE = 128,     /* MPI_MAX_OBJECT_NAME is 128 in MPICH */
    POOL_MEMBERS = 1 << 15,
    FIRST_COUNTER = 16   /* keys 0 and 1 stand for MPI_COMM_WORLD and MPI_COMM_SELF */
};

#define KEY_WORLD ((uint64_t)0)
#define KEY_SELF ((uint64_t)1)
#define KEY_NONE UINT64_MAX
#define HANDLE_EMPTY ((uint64_t)0)
#define HANDLE_TOMB (~(uint64_t)0)

typedef struct comm_entry {
    uint64_t key;        /* job-wide identity */
    uint64_t parent_key; /* KEY_WORLD, KEY_SELF, another entry's key, or KEY_NONE */
    const int32_t *members;
    uint32_t nmembers;
    uint32_t inter;      /* an intercommunicator: defined, but its events are not written */
    int ready;           /* atomic: the entry is complete */
    char name[NAME_SIZE];
} comm_entry;

typedef struct handle_slot {
    uint64_t handle; /* atomic: HANDLE_EMPTY, HANDLE_TOMB or a handle key */
    uint32_t entry;  /* atomic: 0 = unclaimed, else entry index + 1 */
} handle_slot;

static comm_entry entries[MAX_COMMS];
static uint32_t nentries; /* atomic; may exceed MAX_COMMS (claims that failed) */
static handle_slot handles[HANDLE_SLOTS];
static int32_t pool[POOL_MEMBERS];
static uint32_t pool_used; /* atomic */
static uint32_t counter = FIRST_COUNTER; /* atomic */
static uint64_t lost;                    /* atomic */

/* ------------------------------------------------------------------ handles */

static uint64_t handle_key(MPI_Comm c)
{
    uint64_t k = 0;
    memcpy(&k, &c, sizeof c < sizeof k ? sizeof c : sizeof k);
    if (k == HANDLE_EMPTY || k == HANDLE_TOMB)
        k ^= 0x5a5a5a5a; /* keeps the sentinels free */
    return k;
}

static unsigned handle_hash(uint64_t k)
{
    return hp_hash_top(k, 24) & (HANDLE_SLOTS - 1);
}

static handle_slot *find_handle(MPI_Comm c)
{
    uint64_t k = handle_key(c);
    for (unsigned i = 0, h = handle_hash(k); i < HANDLE_PROBE; i++) {
        handle_slot *s = &handles[(h + i) & (HANDLE_SLOTS - 1)];
        uint64_t cur = __atomic_load_n(&s->handle, __ATOMIC_ACQUIRE);
        if (cur == k)
            return s;
        if (cur == HANDLE_EMPTY && __atomic_load_n(&s->entry, __ATOMIC_ACQUIRE) == 0)
            return NULL;
    }
    return NULL;
}

static bool publish_handle(MPI_Comm c, uint32_t entry)
{
    uint64_t k = handle_key(c);
    for (unsigned i = 0, h = handle_hash(k); i < HANDLE_PROBE; i++) {
        handle_slot *s = &handles[(h + i) & (HANDLE_SLOTS - 1)];
        uint32_t free_slot = 0;
        if (__atomic_compare_exchange_n(&s->entry, &free_slot, entry + 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            __atomic_store_n(&s->handle, k, __ATOMIC_RELEASE);
            return true;
        }
    }
    return false;
}

static comm_entry *entry_of(MPI_Comm c)
{
    handle_slot *s = find_handle(c);
    return s != NULL ? &entries[__atomic_load_n(&s->entry, __ATOMIC_ACQUIRE) - 1] : NULL;
}

uint32_t hp_mpi_comm_local_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return HP_MPI_COMM_WORLD_ID;
    if (comm == MPI_COMM_SELF)
        return HP_MPI_COMM_SELF_ID;
    comm_entry *e = entry_of(comm);
    if (e == NULL || e->inter)
        return UINT32_MAX;
    return HP_MPI_COMM_FIRST_ID + (uint32_t)(e - entries);
}

int64_t hp_mpi_comm_world_rank(uint32_t local_id, uint32_t peer, int my_world_rank)
{
    if (local_id == HP_MPI_COMM_WORLD_ID)
        return peer;
    if (local_id == HP_MPI_COMM_SELF_ID)
        return peer == 0 ? my_world_rank : -1;
    uint32_t i = local_id - HP_MPI_COMM_FIRST_ID;
    if (local_id < HP_MPI_COMM_FIRST_ID || i >= MAX_COMMS ||
        i >= __atomic_load_n(&nentries, __ATOMIC_ACQUIRE))
        return -1;
    const comm_entry *e = &entries[i];
    if (!__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) || e->inter || peer >= e->nmembers)
        return -1;
    return e->members[peer];
}

static uint64_t key_of_comm(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD)
        return KEY_WORLD;
    if (c == MPI_COMM_SELF)
        return KEY_SELF;
    comm_entry *e = c != MPI_COMM_NULL ? entry_of(c) : NULL;
    return e != NULL ? e->key : KEY_NONE;
}

/* ------------------------------------------------------------------ registration */

static int32_t *take_members(uint32_t n)
{
    uint32_t at = __atomic_fetch_add(&pool_used, n, __ATOMIC_RELAXED);
    if (at <= POOL_MEMBERS && n <= POOL_MEMBERS - at)
        return &pool[at];
    return hp_memory_pages((size_t)n * sizeof(int32_t)); /* NULL when over budget */
}

/* World ranks of group's ranks 0..n-1 into out, in slices (no heap on this path). */
static void translate(MPI_Group group, int n, int32_t *out)
{
    MPI_Group world;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    enum { SLICE = 256 };
    int in[SLICE], got[SLICE];
    for (int base = 0; base < n; base += SLICE) {
        int m = n - base < SLICE ? n - base : SLICE;
        for (int i = 0; i < m; i++)
            in[i] = base + i;
        PMPI_Group_translate_ranks(group, m, in, world, got);
        for (int i = 0; i < m; i++)
            out[base + i] = got[i];
    }
    PMPI_Group_free(&world);
}

static uint64_t propose_key(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint32_t n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    return (uint64_t)(uint32_t)rank << 32 | n;
}

/* Intracommunicator: its rank 0's proposal, and its group in rank order. */
static bool agree_intra(MPI_Comm c, comm_entry *e)
{
    int rank, size;
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_size(c, &size);
    uint64_t key = rank == 0 ? propose_key() : 0;
    PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, c);
    e->key = key;
    int32_t *m = take_members((uint32_t)size);
    if (m == NULL)
        return false;
    MPI_Group g;
    PMPI_Comm_group(c, &g);
    translate(g, size, m);
    PMPI_Group_free(&g);
    e->members = m;
    e->nmembers = (uint32_t)size;
    return true;
}

/* Intercommunicator: an allreduce over it gives each side the other side's values, so
 * the first one tells each side the remote leader's proposal and the second one its own
 * leader's. Both sides then take the smaller as the key and list that side's group
 * first. (MAX with 0 from the other members: MPICH 4.0's intercommunicator MPI_MIN on
 * MPI_UINT64_T returns UINT64_MAX here.) */
static bool agree_inter(MPI_Comm c, comm_entry *e)
{
    int rank, nlocal, nremote;
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_size(c, &nlocal);
    PMPI_Comm_remote_size(c, &nremote);
    uint64_t mine = rank == 0 ? propose_key() : 0, remote, local;
    PMPI_Allreduce(&mine, &remote, 1, MPI_UINT64_T, MPI_MAX, c);
    PMPI_Allreduce(&remote, &local, 1, MPI_UINT64_T, MPI_MAX, c);
    e->key = local < remote ? local : remote;
    e->inter = 1;
    int32_t *m = take_members((uint32_t)(nlocal + nremote));
    if (m == NULL)
        return false;
    MPI_Group lg, rg;
    PMPI_Comm_group(c, &lg);
    PMPI_Comm_remote_group(c, &rg);
    translate(local < remote ? lg : rg, local < remote ? nlocal : nremote, m);
    translate(local < remote ? rg : lg, local < remote ? nremote : nlocal,
              m + (local < remote ? nlocal : nremote));
    PMPI_Group_free(&lg);
    PMPI_Group_free(&rg);
    e->members = m;
    e->nmembers = (uint32_t)(nlocal + nremote);
    return true;
}

/* Every member of the new communicator runs the agreement, even when the registry is
 * full here, so that no member waits for another in it. */
void hp_mpi_bytes_comm_new(hp_mpi_frame *f, MPI_Comm parent, const MPI_Comm *newcomm)
{
    (void)f;
    if (!hp_mpi_comms_registering() || newcomm == NULL || *newcomm == MPI_COMM_NULL)
        return;
    MPI_Comm c = *newcomm;
    uint32_t i = __atomic_fetch_add(&nentries, 1, __ATOMIC_RELAXED);
    comm_entry scratch = { 0 }, *e = i < MAX_COMMS ? &entries[i] : &scratch;
    e->parent_key = key_of_comm(parent);
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    bool ok = inter ? agree_inter(c, e) : agree_intra(c, e);
    if (e == &scratch || !ok || !publish_handle(c, i)) {
        __atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
}

void hp_mpi_bytes_comm_name(hp_mpi_frame *f, MPI_Comm comm, const char *name)
{
    (void)f;
    comm_entry *e = hp_mpi_comms_registering() && name != NULL ? entry_of(comm) : NULL;
    if (e == NULL)
        return; /* WORLD and SELF keep their standard names */
    size_t n = strnlen(name, NAME_SIZE - 1);
    memcpy(e->name, name, n);
    e->name[n] = '\0';
}

void hp_mpi_bytes_comm_free(hp_mpi_frame *f, const MPI_Comm *comm)
{
    (void)f;
    handle_slot *s = hp_mpi_comms_registering() && comm != NULL ? find_handle(*comm) : NULL;
    if (s != NULL)
        __atomic_store_n(&s->handle, HANDLE_TOMB, __ATOMIC_RELEASE);
}

int hp_mpi_comms_registering(void)
{
    return hp_cfg.enable_tracing || hp_ws_on;
}

uint32_t hp_mpi_comm_end(void)
{
    uint32_t n = __atomic_load_n(&nentries, __ATOMIC_ACQUIRE);
    return HP_MPI_COMM_FIRST_ID + (n < MAX_COMMS ? n : MAX_COMMS);
}

int hp_mpi_comm_info(uint32_t local_id, uint64_t *key, const int32_t **members,
                     uint32_t *nmembers)
{
    if (local_id == HP_MPI_COMM_WORLD_ID || local_id == HP_MPI_COMM_SELF_ID) {
        *key = local_id == HP_MPI_COMM_WORLD_ID ? KEY_WORLD : KEY_SELF;
        *members = NULL;
        *nmembers = 0;
        return 0;
    }
    if (local_id < HP_MPI_COMM_FIRST_ID || local_id >= hp_mpi_comm_end())
        return -1;
    const comm_entry *e = &entries[local_id - HP_MPI_COMM_FIRST_ID];
    if (!__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) || e->inter)
        return -1;
    *key = e->key;
    *members = e->members;
    *nmembers = e->nmembers;
    return 0;
}

uint64_t hp_mpi_comms_lost(void)
{
    return __atomic_load_n(&lost, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ records */

/* A communicator as it travels at finalize: packed records, sorted by key, each
 *   u64 key, u64 parent_key, u32 inter, u32 nmembers, u32 name length, name bytes,
 *   i32 members[nmembers]. */
typedef struct record {
    uint64_t key, parent_key;
    uint32_t inter, nmembers, namelen;
    const char *name;
    const char *members; /* nmembers packed int32 */
} record;

typedef struct packed {
    char *data;
    size_t len, cap;
} packed;

static bool append(packed *p, const void *bytes, size_t n)
{
    if (p->len + n > p->cap) {
        size_t cap = 2 * (p->len + n) + 256;
        char *d = realloc(p->data, cap);
        if (d == NULL)
            return false;
        p->data = d;
        p->cap = cap;
    }
    memcpy(p->data + p->len, bytes, n);
    p->len += n;
    return true;
}

static bool put_record(packed *p, const record *r)
{
    return append(p, &r->key, 8) && append(p, &r->parent_key, 8) && append(p, &r->inter, 4) &&
           append(p, &r->nmembers, 4) && append(p, &r->namelen, 4) &&
           append(p, r->name, r->namelen) && append(p, r->members, 4 * (size_t)r->nmembers);
}

/* Splits a packed buffer into records; returns their number, or -1 when malformed or out
 * of memory. */
static long parse(const char *d, size_t len, record **out)
{
    size_t cap = 16, n = 0, at = 0;
    record *v = malloc(cap * sizeof *v);
    while (v != NULL && at < len) {
        record r;
        if (len - at < 28)
            goto bad;
        memcpy(&r.key, d + at, 8);
        memcpy(&r.parent_key, d + at + 8, 8);
        memcpy(&r.inter, d + at + 16, 4);
        memcpy(&r.nmembers, d + at + 20, 4);
        memcpy(&r.namelen, d + at + 24, 4);
        at += 28;
        if (r.namelen > len - at || 4 * (size_t)r.nmembers > len - at - r.namelen)
            goto bad;
        r.name = d + at;
        r.members = d + at + r.namelen;
        at += r.namelen + 4 * (size_t)r.nmembers;
        if (n == cap) {
            record *g = realloc(v, (cap *= 2) * sizeof *v);
            if (g == NULL)
                goto bad;
            v = g;
        }
        v[n++] = r;
    }
    *out = v;
    return v != NULL ? (long)n : -1;
bad:
    free(v);
    return -1;
}

static int compare_entries(const void *a, const void *b)
{
    uint64_t x = (*(comm_entry *const *)a)->key, y = (*(comm_entry *const *)b)->key;
    return x < y ? -1 : x > y;
}

/* This rank's complete entries, sorted by key. */
static bool pack_local(packed *p)
{
    uint32_t n = __atomic_load_n(&nentries, __ATOMIC_RELAXED);
    n = n < MAX_COMMS ? n : MAX_COMMS;
    comm_entry **v = malloc((n ? n : 1) * sizeof *v);
    if (v == NULL)
        return false;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&entries[i].ready, __ATOMIC_ACQUIRE))
            v[k++] = &entries[i];
    qsort(v, k, sizeof *v, compare_entries);
    bool ok = true;
    for (uint32_t i = 0; ok && i < k; i++) {
        const comm_entry *e = v[i];
        record r = { e->key, e->parent_key, e->inter, e->nmembers, (uint32_t)strlen(e->name),
                     e->name, (const char *)e->members };
        ok = put_record(p, &r);
    }
    free(v);
    return ok;
}

/* mine + theirs (records of higher ranks), one record per key. A communicator keeps the
 * name given on its lowest world rank that named it (MPI_Comm_set_name is local). */
static bool merge(packed *mine, const char *theirs, size_t len)
{
    record *a = NULL, *b = NULL;
    long na = parse(mine->data, mine->len, &a), nb = parse(theirs, len, &b);
    packed out = { 0 };
    bool ok = na >= 0 && nb >= 0;
    long i = 0, j = 0;
    while (ok && (i < na || j < nb)) {
        if (j >= nb || (i < na && a[i].key < b[j].key)) {
            ok = put_record(&out, &a[i++]);
        } else if (i >= na || b[j].key < a[i].key) {
            ok = put_record(&out, &b[j++]);
        } else {
            record r = a[i++];
            if (r.namelen == 0) {
                r.name = b[j].name;
                r.namelen = b[j].namelen;
            }
            j++;
            ok = put_record(&out, &r);
        }
    }
    free(a);
    free(b);
    if (ok) {
        free(mine->data);
        *mine = out;
    } else {
        free(out.data);
    }
    return ok;
}

/* What travels up the binomial tree of measurement/finalize/tree.c (the profiles'
 * tree): a rank that ran out of memory still sends (nothing) and receives (dropping
 * it), so no rank waits. */
typedef struct gathering {
    packed *p;
    bool ok;
} gathering;

static const char *pack_records(void *state, uint64_t *length, bool *owned)
{
    gathering *g = state;
    *owned = false;
    *length = g->ok ? g->p->len : 0;
    return g->p->data;
}

static void absorb_records(void *state, const char *in, uint64_t n)
{
    gathering *g = state;
    if (n > 0 && in == NULL)
        g->ok = false;
    g->ok = g->ok && merge(g->p, in, in != NULL ? n : 0);
}

static const hp_tree_ops records_tree = { pack_records, absorb_records };

static bool gather_records(packed *p, bool ok)
{
    gathering g = { p, ok };
    hp_tree_reduce(hp__mpi_transport(), &records_tree, &g);
    return g.ok;
}

/* ------------------------------------------------------------------ rank 0: order */

typedef struct ordering {
    const record *r;
    long n;
    uint32_t *id;    /* per record: global id, UINT32_MAX = not yet, UINT32_MAX-1 = visiting */
    uint32_t next;   /* next global id */
    uint64_t *order; /* keys in global id order (from HP_MPI_COMM_FIRST_ID) */
} ordering;

static long find_record(const ordering *o, uint64_t key)
{
    long lo = 0, hi = o->n - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (o->r[mid].key == key)
            return mid;
        if (o->r[mid].key < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Parents before children (OTF2 readers resolve references in order), otherwise in key
 * order. The recursion depth is the nesting depth of the communicators. */
static void assign(ordering *o, long i)
{
    if (o->id[i] != UINT32_MAX)
        return;
    o->id[i] = UINT32_MAX - 1;
    long parent = find_record(o, o->r[i].parent_key);
    if (parent >= 0)
        assign(o, parent);
    o->order[o->next - HP_MPI_COMM_FIRST_ID] = o->r[i].key;
    o->id[i] = o->next++;
}

static uint32_t parent_id(const ordering *o, uint64_t parent_key)
{
    if (parent_key == KEY_WORLD || parent_key == KEY_SELF)
        return (uint32_t)parent_key;
    long p = find_record(o, parent_key);
    return p >= 0 && o->id[p] < UINT32_MAX - 1 ? o->id[p] : UINT32_MAX;
}

static bool make_def(hp_trace_comm *d, const record *r, uint32_t parent)
{
    char *name = malloc(r->namelen + 1);
    uint64_t *m = malloc((r->nmembers ? r->nmembers : 1) * sizeof *m);
    if (name == NULL || m == NULL) {
        free(name);
        free(m);
        return false;
    }
    memcpy(name, r->name, r->namelen);
    name[r->namelen] = '\0';
    for (uint32_t k = 0; k < r->nmembers; k++) {
        int32_t w;
        memcpy(&w, r->members + 4 * (size_t)k, 4);
        m[k] = (uint64_t)(uint32_t)w;
    }
    *d = (hp_trace_comm){ name, parent, r->nmembers, m };
    return true;
}

/* Rank 0: definitions in global id order and the keys in that order. */
static bool order_records(const packed *p, hp_trace_comm **defs, uint32_t *ndefs,
                          uint64_t **keys)
{
    record *r = NULL;
    long n = parse(p->data, p->len, &r);
    ordering o = { r, n, NULL, HP_MPI_COMM_FIRST_ID, NULL };
    hp_trace_comm *d = NULL;
    bool ok = n >= 0;
    if (ok) {
        o.id = malloc((n ? n : 1) * sizeof *o.id);
        o.order = malloc((n ? n : 1) * sizeof *o.order);
        d = calloc(n ? n : 1, sizeof *d);
        ok = o.id != NULL && o.order != NULL && d != NULL;
    }
    for (long i = 0; ok && i < n; i++)
        o.id[i] = UINT32_MAX;
    for (long i = 0; ok && i < n; i++)
        assign(&o, i);
    uint32_t made = 0;
    for (long i = 0; ok && i < n; i++, made++) {
        long at = find_record(&o, o.order[i]);
        ok = make_def(&d[i], &r[at], parent_id(&o, r[at].parent_key));
    }
    free(r);
    free(o.id);
    if (!ok) {
        hp_mpi_comms_free_defs(d, made);
        free(o.order);
        return false;
    }
    *defs = d;
    *ndefs = (uint32_t)n;
    *keys = o.order;
    return true;
}

/* ------------------------------------------------------------------ all ranks: map */

typedef struct keyed {
    uint64_t key;
    uint32_t id;
} keyed;

static int compare_keyed(const void *a, const void *b)
{
    uint64_t x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
    return x < y ? -1 : x > y;
}

static uint32_t *map_entries(const uint64_t *keys, uint64_t nkeys, uint32_t *nmap)
{
    uint32_t n = __atomic_load_n(&nentries, __ATOMIC_RELAXED);
    n = n < MAX_COMMS ? n : MAX_COMMS;
    keyed *k = malloc((nkeys ? nkeys : 1) * sizeof *k);
    uint32_t *map = malloc((HP_MPI_COMM_FIRST_ID + n) * sizeof *map);
    if (k == NULL || map == NULL) {
        free(k);
        free(map);
        return NULL;
    }
    for (uint64_t i = 0; i < nkeys; i++)
        k[i] = (keyed){ keys[i], (uint32_t)(HP_MPI_COMM_FIRST_ID + i) };
    qsort(k, nkeys, sizeof *k, compare_keyed);
    map[HP_MPI_COMM_WORLD_ID] = HP_MPI_COMM_WORLD_ID;
    map[HP_MPI_COMM_SELF_ID] = HP_MPI_COMM_SELF_ID;
    for (uint32_t i = 0; i < n; i++) {
        keyed want = { entries[i].key, 0 };
        const keyed *hit = __atomic_load_n(&entries[i].ready, __ATOMIC_ACQUIRE)
                               ? bsearch(&want, k, nkeys, sizeof *k, compare_keyed)
                               : NULL;
        map[HP_MPI_COMM_FIRST_ID + i] = hit != NULL ? hit->id : UINT32_MAX;
    }
    free(k);
    *nmap = HP_MPI_COMM_FIRST_ID + n;
    return map;
}

int hp_mpi_comms_unify(MPI_Comm comm, int rank, hp_trace_comm **defs, uint32_t *ndefs,
                       uint32_t **map, uint32_t *nmap)
{
    *defs = NULL;
    *ndefs = 0;
    *map = NULL;
    *nmap = 0;
    packed p = { 0 };
    bool ok = gather_records(&p, pack_local(&p));
    uint64_t *keys = NULL, nkeys = 0;
    if (rank == 0 && ok && order_records(&p, defs, ndefs, &keys))
        nkeys = *ndefs;
    free(p.data);
    hp__mpi_offcpu_bcast(&nkeys, 1, MPI_UINT64_T, 0, comm);
    if (rank != 0)
        keys = malloc((nkeys ? nkeys : 1) * sizeof *keys);
    int have = keys != NULL && nkeys <= INT32_MAX, all = 0;
    hp__mpi_offcpu_allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) {
        hp__mpi_offcpu_bcast(keys, (int)nkeys, MPI_UINT64_T, 0, comm);
        *map = map_entries(keys, nkeys, nmap);
    }
    free(keys);
    int mapped = *map != NULL, all_mapped = 0;
    hp__mpi_offcpu_allreduce(&mapped, &all_mapped, 1, MPI_INT, MPI_MIN, comm);
    if (all_mapped)
        return 0;
    /* Some rank cannot translate: no user communicator is defined, their events go. */
    hp_mpi_comms_free_defs(*defs, *ndefs);
    *defs = NULL;
    *ndefs = 0;
    if (*map != NULL)
        for (uint32_t i = HP_MPI_COMM_FIRST_ID; i < *nmap; i++)
            (*map)[i] = UINT32_MAX;
    return -1;
}

void hp_mpi_comms_free_defs(hp_trace_comm *defs, uint32_t ndefs)
{
    for (uint32_t i = 0; defs != NULL && i < ndefs; i++) {
        free((char *)defs[i].name);
        free((uint64_t *)defs[i].members);
    }
    free(defs);
}
