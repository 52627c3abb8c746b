/*
 * Unit tests of the MPI adapter's request table (adapters/mpi/mpi_requests.c, linked
 * into this test): a request completed twice counts and traces once, a handle that MPI
 * hands out again before its first entry is gone keeps both, freed slots are reused, a
 * full table counts what it loses, persistent requests count at each start, and the
 * saved handle arrays of Waitall & co. grow and are reused. The byte counting and trace
 * events it calls (mpi_bytes.c, mpi_trace_events.c) and the wait-state record
 * (mpi_waitstates.c, switched off here) are replaced by the recorders below; no MPI call
 * is made.
 */
#include "mpi_requests.h"
#include "mpi_trace_events.h"

#include <stdlib.h>

#include "measurement/waitstates/waitstates.h"
#include "mpi_bytes.h"
#include "mpi_waitstates.h"
#include "test.h"

/* ---- recorders in place of mpi_bytes.c and mpi_trace_events.c ---- */

static struct {
    int completions, collective_completions, starts;
    uint64_t last_request;
    int last_is_recv;
} seen;

/* A receive's bytes: MPI_TAG of the fake status stands for its size here. */
void hp_mpi_bytes_recv(hp_mpi_frame *f, const MPI_Status *status)
{
    f->messages_received++;
    f->bytes_received += (uint64_t)status->MPI_TAG;
}

void hp_mpi_trace_completion(const hp_mpi_frame *f, uint64_t request, uint32_t comm,
                             const MPI_Status *status, uint64_t bytes, int is_recv)
{
    (void)f, (void)comm, (void)status, (void)bytes;
    seen.completions++;
    seen.last_request = request;
    seen.last_is_recv = is_recv;
}

void hp_mpi_trace_collective_completion(const hp_mpi_frame *f, uint64_t request,
                                        uint32_t comm, uint32_t op, uint32_t root,
                                        uint64_t sent, uint64_t received)
{
    (void)f, (void)comm, (void)op, (void)root, (void)sent, (void)received;
    seen.collective_completions++;
    seen.last_request = request;
}

void hp_mpi_trace_start(const hp_mpi_frame *f, uint64_t request, uint32_t comm, int peer,
                        int tag, uint64_t bytes, int is_recv)
{
    (void)f, (void)comm, (void)peer, (void)tag, (void)bytes, (void)is_recv;
    seen.starts++;
    seen.last_request = request;
}

/* Wait states off: the table must not record receives for them. */
bool hp_ws_on = false;

uint32_t hp_ws_next_seq(void)
{
    return 0;
}

void hp__mpi_ws_recv_done(hp_mpi_frame *f, uint32_t comm, uint32_t seq,
                          const MPI_Status *status)
{
    (void)f, (void)comm, (void)seq, (void)status;
    abort(); /* a receive recorded for wait states that are off */
}

void hp__mpi_ws_start_send(hp_mpi_frame *f, uint32_t comm, int dest, int tag)
{
    (void)f, (void)comm, (void)dest, (void)tag;
    abort(); /* a persistent send recorded for wait states that are off */
}

/* ---- helpers ---- */

/* Handles as MPICH makes them (MPI_REQUEST_NULL is 0x2c000000). */
#define REQ(i) ((MPI_Request)(0x2c000001 + (i)))

static MPI_Status status_of(int bytes)
{
    MPI_Status st = { 0 };
    st.MPI_TAG = bytes;
    return st;
}

TEST(receive_completed_twice_counts_once)
{
    hp_mpi_frame f = { 0 };
    MPI_Status st = status_of(100);
    hp_mpi_req_track_recv(REQ(1));
    ASSERT_INT_EQ(hp_mpi_req_live, 1);
    hp_mpi_req_complete(&f, REQ(1), &st);
    hp_mpi_req_complete(&f, REQ(1), &st); /* a stale handle completed again */
    ASSERT_UINT_EQ(f.messages_received, 1);
    ASSERT_UINT_EQ(f.bytes_received, 100);
    ASSERT_INT_EQ(hp_mpi_req_live, 0);
    ASSERT(!hp_mpi_req_pending());
    return 0;
}

TEST(traced_send_completed_twice_has_one_event)
{
    hp_mpi_frame f = { 0 };
    MPI_Status st = status_of(0);
    uint64_t a = hp_mpi_req_trace_send(REQ(1), 3), b = hp_mpi_req_trace_send(REQ(2), 3);
    ASSERT(a != 0 && b != 0 && a != b);
    hp_mpi_req_complete(&f, REQ(1), &st);
    hp_mpi_req_complete(&f, REQ(1), &st);
    ASSERT_INT_EQ(seen.completions, 1);
    ASSERT_UINT_EQ(seen.last_request, a);
    ASSERT_INT_EQ(seen.last_is_recv, 0);
    ASSERT_UINT_EQ(f.messages_received, 0); /* a send's bytes were counted at the call */
    hp_mpi_req_complete(&f, REQ(2), &st);
    ASSERT_INT_EQ(seen.completions, 2);
    ASSERT_UINT_EQ(seen.last_request, b);
    ASSERT_INT_EQ(hp_mpi_req_live, 0);
    return 0;
}

/* MPI hands a freed handle out again at once: two live receives with one handle are
 * two entries, each completion removes one. */
TEST(handle_reused_before_removal_keeps_both)
{
    hp_mpi_frame f = { 0 };
    MPI_Status first = status_of(10), second = status_of(20);
    hp_mpi_req_track_recv(REQ(7));
    ASSERT(hp_mpi_req_trace_recv(REQ(7), 1) != 0);
    hp_mpi_req_track_recv(REQ(7));
    ASSERT_INT_EQ(hp_mpi_req_live, 2);
    hp_mpi_req_complete(&f, REQ(7), &first);
    ASSERT_INT_EQ(seen.completions, 1); /* the oldest entry, the traced one */
    ASSERT_INT_EQ(seen.last_is_recv, 1);
    hp_mpi_req_complete(&f, REQ(7), &second);
    ASSERT_INT_EQ(seen.completions, 1);
    ASSERT_UINT_EQ(f.messages_received, 2);
    ASSERT_UINT_EQ(f.bytes_received, 30);
    ASSERT_INT_EQ(hp_mpi_req_live, 0);
    return 0;
}

/* Far more requests over time than the table has slots: removed slots are used again,
 * nothing is lost. */
TEST(freed_slots_are_reused)
{
    hp_mpi_frame f = { 0 };
    MPI_Status st = status_of(1);
    for (int i = 0; i < 1000000; i++) {
        hp_mpi_req_track_recv(REQ(i % 5000));
        if (i >= 8) /* a few stay open */
            hp_mpi_req_complete(&f, REQ((i - 8) % 5000), &st);
    }
    ASSERT_UINT_EQ(hp_mpi_req_lost(), 0);
    ASSERT_INT_EQ(hp_mpi_req_live, 8);
    ASSERT_UINT_EQ(f.messages_received, 1000000 - 8);
    return 0;
}

/* The table does not grow: requests beyond its slots are counted as lost and move no
 * bytes; the ones it holds are all counted. */
TEST(full_table_counts_what_it_loses)
{
    hp_mpi_frame f = { 0 };
    MPI_Status st = status_of(1);
    enum { N = 20000 };
    for (int i = 0; i < N; i++)
        hp_mpi_req_track_recv(REQ(i));
    uint64_t lost = hp_mpi_req_lost();
    long live = hp_mpi_req_live;
    ASSERT(lost >= N - (1 << 14));
    ASSERT_UINT_EQ((uint64_t)live + lost, N);
    for (int i = 0; i < N; i++)
        hp_mpi_req_complete(&f, REQ(i), &st);
    ASSERT_UINT_EQ(f.messages_received, (uint64_t)live);
    ASSERT_INT_EQ(hp_mpi_req_live, 0);
    hp_mpi_req_track_recv(REQ(N)); /* room again */
    ASSERT_INT_EQ(hp_mpi_req_live, 1);
    ASSERT_UINT_EQ(hp_mpi_req_lost(), lost);
    return 0;
}

/* A persistent send counts its bytes at each MPI_Start, stays until MPI_Request_free,
 * and a completion after that finds nothing. */
TEST(persistent_counts_each_start_until_freed)
{
    hp_mpi_frame once = { .bytes_sent = 64, .messages_sent = 1 }, f = { 0 };
    MPI_Status st = status_of(0);
    hp_mpi_req_track_persistent(REQ(3), &once);
    ASSERT(hp_mpi_req_trace_persistent(REQ(3), 2, 1, 99) == 1);
    for (int i = 0; i < 3; i++) {
        hp_mpi_req_start(&f, REQ(3));
        hp_mpi_req_complete(&f, REQ(3), &st);
        hp_mpi_req_complete(&f, REQ(3), &st); /* not active any more: nothing */
    }
    ASSERT_UINT_EQ(f.bytes_sent, 192);
    ASSERT_UINT_EQ(f.messages_sent, 3);
    ASSERT_INT_EQ(seen.starts, 3);
    ASSERT_INT_EQ(seen.completions, 3);
    ASSERT_INT_EQ(hp_mpi_req_live, 1);
    hp_mpi_req_forget(REQ(3));
    ASSERT_INT_EQ(hp_mpi_req_live, 0);
    hp_mpi_req_start(&f, REQ(3));
    ASSERT_UINT_EQ(f.bytes_sent, 192);
    return 0;
}

/* Waitall's saved handles: small arrays in the struct, larger ones in a per-thread
 * buffer that is reused while it is large enough and grows when it is not. */
TEST(saved_arrays_grow_and_are_reused)
{
    enum { BIG = 5000, BIGGER = 50000 };
    static MPI_Request reqs[BIGGER];
    for (int i = 0; i < BIGGER; i++)
        reqs[i] = REQ(i);
    hp_mpi_req_track_recv(REQ(0)); /* something pending, else nothing is saved */
    hp_mpi_reqs r;
    MPI_Status *st = hp_mpi_req_save(&r, 4, reqs, MPI_STATUSES_IGNORE);
    ASSERT(r.req == r.small_req && st == r.small_st);
    ASSERT_INT_EQ(r.n, 4);
    hp_mpi_req_save(&r, BIG, reqs, MPI_STATUSES_IGNORE);
    MPI_Request *buffer = r.req;
    ASSERT(buffer != r.small_req);
    ASSERT_INT_EQ(r.n, BIG);
    ASSERT(r.req[BIG - 1] == REQ(BIG - 1));
    hp_mpi_req_save(&r, BIG / 2, reqs, MPI_STATUSES_IGNORE);
    ASSERT(r.req == buffer);
    hp_mpi_req_save(&r, BIGGER, reqs, MPI_STATUSES_IGNORE);
    ASSERT_INT_EQ(r.n, BIGGER);
    ASSERT(r.req[0] == REQ(0) && r.req[BIGGER - 1] == REQ(BIGGER - 1));
    ASSERT_UINT_EQ(hp_mpi_req_lost(), 0);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(receive_completed_twice_counts_once),
             TEST_ENTRY(traced_send_completed_twice_has_one_event),
             TEST_ENTRY(handle_reused_before_removal_keeps_both),
             TEST_ENTRY(freed_slots_are_reused),
             TEST_ENTRY(full_table_counts_what_it_loses),
             TEST_ENTRY(persistent_counts_each_start_until_freed),
             TEST_ENTRY(saved_arrays_grow_and_are_reused));
