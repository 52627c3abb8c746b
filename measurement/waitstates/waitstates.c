/*
 * The wait-state record and results (see waitstates.h).
 *
 * Records live in chunks of one budget page (1024 records) found through a static table
 * of chunk pointers: an append is one atomic fetch-add for its index and, once per 1024
 * records, a compare-and-swap that installs a new page. When a page cannot be had (the
 * record's half of the budget or the budget itself is used up) the record is closed at
 * that chunk: every later index is dropped, so what is kept is a prefix of the run, which
 * the replay needs (a message is analysed only when both its ends were kept).
 *
 * Results are a small open-addressing hash from call-path node to pattern seconds, built
 * at finalize on the heap.
 */
#include "waitstates.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/core/cct.h"
#include "measurement/core/memory.h"
#include "measurement/core/region.h"

bool hp_ws_on;

enum {
    PER_CHUNK = HP_PAGE_SIZE / sizeof(hp_ws_record),
    MAX_CHUNKS = 1 << 14 /* 512M of records */
};

static _Atomic(hp_ws_record *) chunks[MAX_CHUNKS];
static _Atomic size_t next_index;
static _Atomic size_t closed_at = MAX_CHUNKS; /* first chunk that is never taken */

/* The records' share of the budget: half of it, so the call tree keeps room to grow. */
static size_t chunk_limit(void)
{
    hp_memory_stats st;
    hp_memory_get_stats(&st);
    size_t n = (size_t)(st.total / 2 / HP_PAGE_SIZE);
    return n < MAX_CHUNKS ? n : MAX_CHUNKS;
}

static void close_at(size_t c)
{
    size_t cur = atomic_load(&closed_at);
    while (c < cur && !atomic_compare_exchange_weak(&closed_at, &cur, c))
        ;
}

/* A page taken by a thread that lost the race to install it: the next chunk uses it, so
 * a race costs the budget nothing (the budget takes no pages back). */
static _Atomic(hp_ws_record *) spare;

static hp_ws_record *take_chunk(size_t c)
{
    static _Atomic size_t limit; /* 0 = not read yet */
    size_t lim = atomic_load_explicit(&limit, memory_order_relaxed);
    if (lim == 0)
        atomic_store(&limit, lim = chunk_limit() + 1);
    hp_ws_record *page = c + 1 < lim ? atomic_exchange(&spare, NULL) : NULL;
    if (page == NULL && c + 1 < lim)
        page = hp_memory_pages(HP_PAGE_SIZE);
    if (page == NULL) {
        close_at(c);
        return NULL;
    }
    hp_ws_record *expected = NULL;
    if (!atomic_compare_exchange_strong(&chunks[c], &expected, page)) {
        hp_ws_record *none = NULL; /* another thread installed one: keep ours for later */
        atomic_compare_exchange_strong(&spare, &none, page);
        return expected;
    }
    return page;
}

hp_ws_record *hp_ws_append(const hp_ws_record *r)
{
    size_t i = atomic_fetch_add_explicit(&next_index, 1, memory_order_relaxed);
    size_t c = i / PER_CHUNK;
    if (c >= atomic_load_explicit(&closed_at, memory_order_relaxed))
        return NULL;
    hp_ws_record *chunk = atomic_load_explicit(&chunks[c], memory_order_acquire);
    if (chunk == NULL && (chunk = take_chunk(c)) == NULL)
        return NULL;
    chunk[i % PER_CHUNK] = *r;
    return &chunk[i % PER_CHUNK];
}

uint32_t hp_ws_next_seq(void)
{
    static _Atomic uint32_t last;
    return atomic_fetch_add_explicit(&last, 1, memory_order_relaxed) + 1;
}

size_t hp_ws_count(void)
{
    size_t n = atomic_load(&next_index);
    size_t kept = atomic_load(&closed_at) * (size_t)PER_CHUNK;
    return n < kept ? n : kept;
}

hp_ws_record *hp_ws_at(size_t i)
{
    return &atomic_load_explicit(&chunks[i / PER_CHUNK], memory_order_relaxed)[i % PER_CHUNK];
}

uint64_t hp_ws_dropped(void)
{
    return atomic_load(&next_index) - hp_ws_count();
}

/* ------------------------------------------------------------------ metrics */

static const hp_ws_metric_info metrics[HP_WSM_COUNT] = {
    [HP_WSM_MPI] = { "mpi", "MPI", "time", "Time spent in MPI calls" },
    [HP_WSM_SYNC] = { "mpi_synchronization", "Synchronization", "mpi",
                      "Time spent in MPI synchronization calls" },
    [HP_WSM_SYNC_COLL] = { "mpi_sync_collective", "Collective", "mpi_synchronization",
                           "Time spent in MPI barriers" },
    [HP_WSM_BARRIER_WAIT] = { "mpi_barrier_wait", "Wait at Barrier", "mpi_sync_collective",
                              "Waiting in MPI barriers for the last process to enter" },
    [HP_WSM_BARRIER_COMPLETION] = { "mpi_barrier_completion", "Barrier Completion",
                                    "mpi_sync_collective",
                                    "Time in MPI barriers after the first process left" },
    [HP_WSM_COMM] = { "mpi_communication", "Communication", "mpi",
                      "Time spent in MPI communication calls" },
    [HP_WSM_P2P] = { "mpi_point2point", "Point-to-point", "mpi_communication",
                     "Time spent in MPI point-to-point communication" },
    [HP_WSM_LATE_SENDER] = { "mpi_latesender", "Late Sender", "mpi_point2point",
                             "Time a receiving process waits for a message to be sent" },
    [HP_WSM_LS_WRONG_ORDER] = { "mpi_latesender_wo", "Messages in Wrong Order",
                                "mpi_latesender",
                                "Late Sender waiting while a message sent earlier was "
                                "received later" },
    [HP_WSM_LSWO_DIFFERENT] = { "mpi_lswo_different", "From different sources",
                                "mpi_latesender_wo",
                                "Wrong order: the earlier message came from another sender" },
    [HP_WSM_LSWO_SAME] = { "mpi_lswo_same", "From same source", "mpi_latesender_wo",
                           "Wrong order: the earlier message came from the same sender" },
    [HP_WSM_LATE_RECEIVER] = { "mpi_latereceiver", "Late Receiver", "mpi_point2point",
                               "Time a blocking send waits for its receiver to enter the "
                               "receive (synchronous and rendezvous sends)" },
    [HP_WSM_COLL] = { "mpi_collective", "Collective", "mpi_communication",
                      "Time spent in MPI collective communication" },
    [HP_WSM_EARLY_REDUCE] = { "mpi_earlyreduce", "Early Reduce", "mpi_collective",
                              "Time the root of an N-to-1 operation waits for the first "
                              "sender to enter" },
    [HP_WSM_EARLY_SCAN] = { "mpi_earlyscan", "Early Scan", "mpi_collective",
                            "Time in MPI_Scan/Exscan waiting for a lower rank to enter" },
    [HP_WSM_LATE_BROADCAST] = { "mpi_latebroadcast", "Late Broadcast", "mpi_collective",
                                "Time a 1-to-N operation waits for its root to enter" },
    [HP_WSM_WAIT_NXN] = { "mpi_wait_nxn", "Wait at N x N", "mpi_collective",
                          "Waiting in N-to-N operations for the last process to enter" },
    [HP_WSM_NXN_COMPLETION] = { "mpi_nxn_completion", "N x N Completion", "mpi_collective",
                                "Time in N-to-N operations after the first process left" },
};

const hp_ws_metric_info *hp_ws_metric(unsigned id)
{
    return id < HP_WSM_COUNT ? &metrics[id] : NULL;
}

/* ------------------------------------------------------------------ results */

typedef struct charged {
    uint32_t node; /* 0 = empty */
    double v[HP_WSM_COUNT];
} charged;

static charged *table;
static size_t table_size, table_used; /* size: power of two */

static size_t slot_of(uint32_t node, size_t size)
{
    return (size_t)((node * 0x9E3779B1u) & (size - 1));
}

static charged *find_slot(charged *t, size_t size, uint32_t node)
{
    size_t i = slot_of(node, size);
    while (t[i].node != 0 && t[i].node != node)
        i = (i + 1) & (size - 1);
    return &t[i];
}

static int grow(void)
{
    size_t size = table_size ? 2 * table_size : 256;
    charged *t = calloc(size, sizeof(charged));
    if (t == NULL)
        return -1;
    for (size_t i = 0; i < table_size; i++)
        if (table[i].node != 0)
            *find_slot(t, size, table[i].node) = table[i];
    free(table);
    table = t;
    table_size = size;
    return 0;
}

void hp_ws_charge(const hp_ws_record *r, unsigned metric, double seconds)
{
    if (!(seconds > 0) || r->node == 0 || metric >= HP_WSM_COUNT)
        return;
    if (2 * (table_used + 1) > table_size && grow() < 0)
        return;
    charged *c = find_slot(table, table_size, r->node);
    if (c->node == 0) {
        c->node = r->node;
        table_used++;
    }
    c->v[metric] += seconds;
}

static double at_least(double v, double floor)
{
    return v > floor ? v : floor;
}

void hp_ws_node_values(const hp_cct_node *node, double ticks_per_second, double *out)
{
    memset(out, 0, HP_WSM_COUNT * sizeof(double));
    uint32_t index = hp_memory_index(node);
    const charged *c = table != NULL && index != 0 ? find_slot(table, table_size, index) : NULL;
    if (c != NULL && c->node == index)
        memcpy(out, c->v, sizeof(c->v));
    if (node->region == NULL || node->region->paradigm != HP_PARADIGM_MPI)
        return;
    double t = (double)node->incl_ticks / ticks_per_second;
    const char *role = node->region->role;
    bool p2p = strcmp(role, "point2point") == 0, barrier = strcmp(role, "barrier") == 0;
    bool coll = !p2p && !barrier && strcmp(role, "function") != 0;
    /* Each parent holds at least its children (Cube stores metric-inclusive values), even
     * where a pattern was charged to a call whose role says otherwise. */
    out[HP_WSM_SYNC_COLL] = at_least(barrier ? t : 0,
                                     out[HP_WSM_BARRIER_WAIT] + out[HP_WSM_BARRIER_COMPLETION]);
    out[HP_WSM_SYNC] = out[HP_WSM_SYNC_COLL];
    out[HP_WSM_P2P] = at_least(p2p ? t : 0,
                               out[HP_WSM_LATE_SENDER] + out[HP_WSM_LATE_RECEIVER]);
    double patterns = 0;
    for (unsigned m = HP_WSM_EARLY_REDUCE; m <= HP_WSM_NXN_COMPLETION; m++)
        patterns += out[m];
    out[HP_WSM_COLL] = at_least(coll ? t : 0, patterns);
    out[HP_WSM_COMM] = out[HP_WSM_P2P] + out[HP_WSM_COLL];
    out[HP_WSM_MPI] = at_least(t, out[HP_WSM_SYNC] + out[HP_WSM_COMM]);
}

static char note[1024];

void hp_ws_set_note(const char *text)
{
    snprintf(note, sizeof(note), "%s", text);
}

const char *hp_ws_note(void)
{
    return note;
}

void hp_ws_reset(void)
{
    free(table);
    table = NULL;
    table_size = table_used = 0;
    note[0] = '\0';
}
