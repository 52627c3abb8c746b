/*
 * Unit tests of the adaptive trace buffer (measurement/trace/trace_bins.c): which samples stay
 * after halvings, how many halvings a run takes, events kept up to their share and
 * stopped there (marked), the reader's
 * time order, and a long run in a small buffer. Regions are plain malloc'ed memory here;
 * bins are small (1 KiB, 63 slots) so that a few thousand records exercise many bins.
 */
#include <stdlib.h>

#include "measurement/core/memory.h"
#include "measurement/core/region.h"
#include "measurement/trace/trace_bins.h"
#include "measurement/core/trace_provider.h"
#include "measurement/trace/trace_buffer.h"

#include "test.h"

enum { BIN = 1024, SLOTS_PER_BIN = BIN / 16 - 1, RESERVE = SLOTS_PER_BIN / 4, STOP = 77 };

/* The re-arm callback of the tests: remembers the period the "timer" now has. */
static uint64_t timer_period;
static int rearm_calls;

static int fake_rearm(void *arg, uint64_t period_ns)
{
    (void)arg;
    timer_period = period_ns;
    rearm_calls++;
    return 0;
}

static hp_trace_bins *make(void **region, size_t nbins, unsigned share, unsigned sample_slots,
                           bool rearm)
{
    size_t size = 4096 + nbins * BIN; /* the control block fits in 4096 */
    *region = calloc(1, size);
    hp_trace_bins_config cfg = { BIN, share, sample_slots, 1000, rearm ? fake_rearm : NULL,
                                 NULL, STOP };
    timer_period = 1000;
    rearm_calls = 0;
    return hp_trace_bins_init(*region, size, &cfg);
}

static hp_bins_result sample(hp_trace_bins *b, uint64_t time, uint32_t tag)
{
    hp_trace_event rec[HP_BINS_MAX_SAMPLE_SLOTS] = { { time, 99, tag } };
    for (unsigned i = 1; i < b->sample_slots; i++)
        rec[i] = (hp_trace_event){ time, 99, tag };
    return hp_trace_bins_sample(b, rec);
}

static hp_bins_result event(hp_trace_bins *b, uint64_t time, hp_trace_kind kind,
                            uint32_t region)
{
    hp_trace_event slots[3] = { { time, kind, region }, { 7, 8, 9 }, { 10, 11, 12 } };
    return hp_trace_bins_event(b, slots);
}

/* Bins that the samples of levels >= k take when numbers 1..n were all stored. */
static uint64_t bins_needed(uint64_t n, unsigned k, unsigned sample_slots)
{
    uint64_t per_bin = SLOTS_PER_BIN / sample_slots, bins = 0;
    for (unsigned j = k; j < 64 && (1ull << j) <= n; j++) {
        uint64_t count = (n >> j) - (n >> (j + 1)); /* numbers <= n with j trailing zeros */
        bins += (count + per_bin - 1) / per_bin;
    }
    return bins;
}

/* Checks that the reader yields exactly the multiples of 2^k up to n, each sample with its
 * own number (stored as its region) and in time order. */
static int check_kept(hp_trace_bins *b, uint64_t n, unsigned k)
{
    hp_trace_bins_reader r;
    hp_trace_bins_record rec;
    hp_trace_bins_reader_open(&r, b);
    uint64_t seen = 0, last_time = 0;
    while (hp_trace_bins_reader_next(&r, &rec)) {
        ASSERT(rec.sample);
        ASSERT_UINT_EQ(rec.slots[0].region, rec.number);
        ASSERT_UINT_EQ(rec.number % (1ull << k), 0);
        ASSERT_UINT_EQ((unsigned)__builtin_ctzll(rec.number), rec.level);
        ASSERT(rec.slots[0].time >= last_time);
        last_time = rec.slots[0].time;
        seen++;
    }
    hp_trace_bins_reader_close(&r);
    ASSERT_UINT_EQ(seen, n >> k);
    return 0;
}

/* Without a timer to slow down, every number comes and closed levels are dropped at once;
 * after k halvings the kept samples are the multiples of 2^k. */
TEST(kept_samples_are_multiples_of_two_to_the_halvings)
{
    void *region;
    hp_trace_bins *b = make(&region, 40, 50, 1, false);
    ASSERT(b != NULL);
    uint64_t n = 20000;
    for (uint64_t i = 1; i <= n; i++)
        ASSERT(sample(b, i * 10, (uint32_t)i) != HP_BINS_LOST);
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    unsigned k = st.halvings;
    ASSERT_INT_EQ(k, 4); /* 20000 samples, 40 bins of 63 */
    ASSERT(bins_needed(n, k, 1) <= 40);
    ASSERT(bins_needed(n, k - 1, 1) > 40);
    ASSERT_UINT_EQ(st.samples_stored - st.samples_revoked, n >> k);
    ASSERT_UINT_EQ(st.samples_lost + st.samples_busy, 0);
    ASSERT_UINT_EQ(hp_trace_bins_period(b), 1000u << k);
    for (unsigned j = 0; j < k; j++) {
        ASSERT_UINT_EQ(b->halving[j].level, j);
        ASSERT_UINT_EQ(b->halving[j].period_ns, 1000u << (j + 1));
        ASSERT_UINT_EQ(b->halving[j].rearmed, 0);
    }
    int rc = check_kept(b, n, k);
    free(region);
    return rc;
}

/* With a timer that follows the halvings, samples come at the period in force and their
 * numbers stay numbers of the start interval: the halvings match buffer size / record
 * size / rate, and the halvings' times are where the buffer filled. */
TEST(halvings_match_buffer_record_size_and_rate)
{
    void *region;
    const size_t nbins = 64;
    const unsigned slots = 3; /* 48-byte samples */
    hp_trace_bins *b = make(&region, nbins, 50, slots, true);
    ASSERT(b != NULL);
    const uint64_t duration = 1000ull * 200000; /* 200000 start periods of 1000 ns */
    uint64_t calls = 0, n = 0;
    for (uint64_t t = timer_period; t <= duration; t += timer_period, calls++) {
        uint64_t number = b->next_number; /* tagged, to check the reader's numbers */
        hp_bins_result res = sample(b, t, (uint32_t)number);
        ASSERT(res == HP_BINS_STORED || res == HP_BINS_CLOSED);
        n = number;
    }
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    unsigned k = st.halvings;
    /* Numbers count start intervals (up to 2^k at each halving, when the timer's phase
     * and the numbers' steps part). */
    ASSERT(n <= duration / 1000 && n + (2u << k) > duration / 1000);
    /* The smallest k whose kept samples fit: 200000 48-byte samples in 64 bins of 21. */
    ASSERT(bins_needed(n, k, slots) <= nbins);
    ASSERT(bins_needed(n, k - 1, slots) > nbins);
    /* The model: 2^k >= samples * size / capacity, give or take partly filled bins. */
    double need = (double)n / (nbins * (SLOTS_PER_BIN / slots));
    ASSERT((double)(1u << k) >= need);
    ASSERT((double)(1u << (k - 1)) < need * 1.2);
    ASSERT_INT_EQ(k, 8);
    ASSERT_INT_EQ(rearm_calls, (int)k);
    ASSERT_UINT_EQ(timer_period, 1000u << k);
    /* The timer slowed down: far fewer calls than start periods; only the samples that
     * found their own level closed by their halving were dropped. */
    ASSERT(calls < n / 4);
    ASSERT(st.samples_closed <= k);
    ASSERT_UINT_EQ(st.samples_lost + st.samples_busy, 0);
    for (unsigned j = 1; j < k; j++)
        ASSERT(b->halving[j].time > b->halving[j - 1].time);
    int rc = check_kept(b, n, k);
    free(region);
    return rc;
}

/* A run 10 times longer than the buffer holds at the start rate: no record lost, no
 * flush (the module has none), the buffer ends more than half full (a halving frees
 * half of the samples; the buffer then fills again). */
TEST(long_run_ends_with_full_buffer_and_no_loss)
{
    void *region;
    const size_t nbins = 32;
    hp_trace_bins *b = make(&region, nbins, 50, 1, true);
    uint64_t capacity = nbins * SLOTS_PER_BIN;
    uint64_t t = 0, calls = 0;
    while (t < 10 * capacity * 1000) {
        t += timer_period;
        calls++;
        ASSERT_INT_EQ(sample(b, t, 0), HP_BINS_STORED);
    }
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    uint64_t kept = st.samples_stored - st.samples_revoked;
    ASSERT(st.halvings >= 3);
    ASSERT(kept > capacity / 2);
    ASSERT(kept <= capacity);
    ASSERT(st.bins_samples > nbins / 2);
    ASSERT_UINT_EQ(st.samples_lost + st.samples_busy + st.samples_closed, 0);
    ASSERT_UINT_EQ(st.bins_events, 0);
    free(region);
    return 0;
}

/* Events and samples share the buffer: every event comes back intact and in order,
 * merged with the samples by time. */
TEST(events_survive_and_reader_merges_in_time_order)
{
    void *region;
    hp_trace_bins *b = make(&region, 24, 50, 2, false);
    uint64_t nevents = 0;
    for (uint64_t i = 1; i <= 6000; i++) {
        uint64_t t = i * 100;
        sample(b, t + 50, (uint32_t)i);
        if (i % 50 == 0) { /* 600 slots: under the events' share of 12 bins */
            ASSERT_INT_EQ(event(b, t, HP_TRACE_ENTER, 5), HP_BINS_STORED);
            ASSERT_INT_EQ(event(b, t + 1, HP_TRACE_MPI_ISEND, 0), HP_BINS_STORED);
            ASSERT_INT_EQ(event(b, t + 50, HP_TRACE_LEAVE, 5), HP_BINS_STORED);
            nevents += 3;
        }
    }
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    ASSERT(st.halvings > 0);
    ASSERT_UINT_EQ(st.events_stored, nevents);
    hp_trace_bins_reader r;
    hp_trace_bins_record rec;
    hp_trace_bins_reader_open(&r, b);
    uint64_t last = 0, events = 0, samples = 0;
    bool last_was_sample = false;
    while (hp_trace_bins_reader_next(&r, &rec)) {
        ASSERT(rec.slots[0].time >= last);
        /* At equal times events come first (a Leave and a sample share times here). */
        ASSERT(!(rec.slots[0].time == last && last_was_sample && !rec.sample));
        last = rec.slots[0].time;
        last_was_sample = rec.sample;
        if (rec.sample) {
            samples++;
            ASSERT_UINT_EQ(rec.nslots, 2);
            ASSERT_UINT_EQ(rec.slots[0].region, rec.number);
            continue;
        }
        uint64_t t = rec.slots[0].time;
        events++;
        if (rec.slots[0].kind == HP_TRACE_MPI_ISEND) {
            ASSERT_UINT_EQ(rec.nslots, 3);
            ASSERT_UINT_EQ(t % 5000, 1);
            ASSERT_UINT_EQ(rec.slots[1].time, 7);
            ASSERT_UINT_EQ(rec.slots[2].region, 12);
        } else {
            ASSERT_UINT_EQ(rec.nslots, 1);
            ASSERT_UINT_EQ(t % 5000, rec.slots[0].kind == HP_TRACE_ENTER ? 0 : 50);
        }
    }
    hp_trace_bins_reader_close(&r);
    ASSERT_UINT_EQ(events, nevents);
    ASSERT_UINT_EQ(samples, 6000 >> st.halvings);
    free(region);
    return 0;
}

/* Checks what the reader gives back: time order, balanced regions, the stop marked once
 * (an Enter and a Leave of STOP at stopped_at) and no event but a Leave after it; counts
 * the MPI_SEND events and the made-up Leaves. */
static int read_back(hp_trace_bins *b, uint64_t stopped_at, uint64_t *sends, uint64_t *made_up,
                     uint64_t *records)
{
    hp_trace_bins_reader r;
    hp_trace_bins_record rec;
    hp_trace_bins_reader_open(&r, b);
    uint64_t last = 0, marks = 0;
    uint32_t stack[32];
    int depth = 0;
    *sends = *made_up = *records = 0;
    while (hp_trace_bins_reader_next(&r, &rec)) {
        const hp_trace_event *e = rec.slots;
        ASSERT(e->time >= last);
        last = e->time;
        ++*records;
        *made_up += rec.made_up;
        if (rec.sample)
            continue;
        if (e->region == STOP && e->kind != HP_TRACE_MPI_SEND) {
            ASSERT_UINT_EQ(e->time, stopped_at);
            marks++;
        } else if (stopped_at != 0 && e->time > stopped_at && !rec.made_up) {
            ASSERT_UINT_EQ(e->kind, HP_TRACE_LEAVE);
        }
        *sends += e->kind == HP_TRACE_MPI_SEND;
        if (e->kind == HP_TRACE_ENTER) {
            ASSERT(depth < 32);
            stack[depth++] = e->region;
        } else if (e->kind == HP_TRACE_LEAVE) {
            ASSERT(depth > 0);
            ASSERT_UINT_EQ(stack[--depth], e->region);
        }
    }
    hp_trace_bins_reader_close(&r);
    ASSERT_INT_EQ(depth, 0);
    ASSERT_UINT_EQ(marks, stopped_at != 0 ? 2 : 0);
    return 0;
}

/* Events, MPI and regions alike, hold at most their share: at the share they stop,
 * marked, and the samples keep the rest of the buffer and go on to the end. */
TEST(event_share_stops_mpi_and_region_events_alike)
{
    void *region;
    const size_t nbins = 60;
    hp_trace_bins *b = make(&region, nbins, 25, 1, false); /* events: 15 bins */
    /* The samples fill the buffer first, so the events must take bins from them. */
    uint64_t t = 1;
    for (; t <= nbins * SLOTS_PER_BIN; t++)
        sample(b, t, (uint32_t)t);
    ASSERT_INT_EQ(event(b, t++, HP_TRACE_ENTER, 1), HP_BINS_STORED); /* main */
    uint64_t sends = 0;
    for (int iter = 0; iter < 400; iter++) { /* 8 slots an iteration: the share at 113 */
        event(b, t++, HP_TRACE_ENTER, 2); /* solve */
        event(b, t++, HP_TRACE_ENTER, 3); /* kernel */
        event(b, t++, HP_TRACE_LEAVE, 3);
        event(b, t++, HP_TRACE_ENTER, 4);  /* MPI_Send */
        sends += event(b, t++, HP_TRACE_MPI_SEND, 0) == HP_BINS_STORED;
        event(b, t++, HP_TRACE_LEAVE, 4);
        event(b, t++, HP_TRACE_LEAVE, 2);
        sample(b, t++, 0);
    }
    ASSERT_INT_EQ(event(b, t++, HP_TRACE_LEAVE, 1), HP_BINS_STORED); /* main */
    for (int i = 0; i < 5000; i++) /* the rest of the run: samples only */
        sample(b, t++, 0);
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    /* 15 bins of 63 slots less the reserve: main's Enter and about 116 iterations of 8
     * event slots (2 of them the send), then the stop; the samples keep the other 45 (as
     * many as their open levels need). */
    ASSERT_UINT_EQ(st.bins_events, 15);
    ASSERT(st.bins_samples > 0 && st.bins_samples <= nbins - 15);
    ASSERT(st.stopped_at > 0);
    ASSERT_UINT_EQ(st.messages_lost, 400 - sends);
    ASSERT(sends > 100 && sends < 140);
    ASSERT_UINT_EQ(st.unclosed, 0);
    ASSERT_UINT_EQ(st.samples_lost + st.samples_busy, 0);
    uint64_t read_sends, made_up, records;
    if (read_back(b, st.stopped_at, &read_sends, &made_up, &records) != 0)
        return 1;
    ASSERT_UINT_EQ(read_sends, sends);
    ASSERT_UINT_EQ(made_up, 0);
    /* The last record is a sample of the end of the run. */
    hp_trace_bins_reader r;
    hp_trace_bins_record rec;
    hp_trace_bins_reader_open(&r, b);
    uint64_t last = 0;
    while (hp_trace_bins_reader_next(&r, &rec))
        last = rec.slots[0].time;
    hp_trace_bins_reader_close(&r);
    ASSERT(t - 1 - last < (1u << st.halvings));
    free(region);
    return 0;
}

/* The share holds whichever event finds the last bin full: here an Enter does (main's
 * Enter, then pairs); the marker and main's Leave go into the reserve. */
TEST(events_stop_at_the_share_with_leaves_in_the_reserve)
{
    void *region;
    hp_trace_bins *b = make(&region, 20, 50, 1, false); /* 10 bins of 63 for events */
    uint64_t t = 1;
    event(b, t++, HP_TRACE_ENTER, 1);
    for (int i = 0; i < 10000; i++) {
        event(b, t++, HP_TRACE_ENTER, 2);
        event(b, t++, HP_TRACE_LEAVE, 2);
    }
    ASSERT_INT_EQ(event(b, t++, HP_TRACE_LEAVE, 1), HP_BINS_STORED);
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    /* 10 * 63 - 15 (the reserve) = 615 slots: main's Enter and 307 pairs; the 308th Enter
     * stops the events (at time 2 + 2 * 307). */
    ASSERT_UINT_EQ(st.events_stored, 1 + 2 * 307 + 1);
    ASSERT_UINT_EQ(st.stopped_at, 2 + 2 * 307);
    ASSERT_UINT_EQ(st.bins_events, 10);
    ASSERT_UINT_EQ(st.events_lost, 2 * (10000 - 307));
    ASSERT_UINT_EQ(st.messages_lost, 0);
    uint64_t sends, made_up, records;
    if (read_back(b, st.stopped_at, &sends, &made_up, &records) != 0)
        return 1;
    ASSERT_UINT_EQ(records, 1 + 2 * 307 + 2 + 1);
    free(region);
    return 0;
}

/* With a share of 100% the events may take every bin: they stop in the last one, Leaves
 * of recorded Enters fill the reserve, those beyond it are made up by the reader, and a
 * sample finds no bin (counted). */
TEST(events_stop_when_buffer_is_full_of_them)
{
    void *region;
    hp_trace_bins *b = make(&region, 4, 100, 1, false); /* 4 bins of 63 slots */
    uint64_t t = 1;
    for (uint32_t r = 1; r <= 20; r++) /* twenty open regions */
        ASSERT_INT_EQ(event(b, t++, HP_TRACE_ENTER, r), HP_BINS_STORED);
    uint64_t stored = 20;
    while (event(b, t, HP_TRACE_MPI_SEND, 0) == HP_BINS_STORED) {
        stored++;
        t++;
    }
    /* 2 slots a send, never split across bins: 21 in the first bin, 31 in the second and
     * third, 24 in the last (48 slots before its reserve). */
    ASSERT_UINT_EQ(stored, 20 + 21 + 2 * 31 + 24);
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    ASSERT_UINT_EQ(st.stopped_at, t);
    ASSERT_UINT_EQ(st.bins_events, 4);
    ASSERT_INT_EQ(event(b, t + 1, HP_TRACE_ENTER, 99), HP_BINS_LOST);
    ASSERT_INT_EQ(event(b, t + 2, HP_TRACE_LEAVE, 99), HP_BINS_LOST);
    ASSERT_INT_EQ(sample(b, t + 3, 1), HP_BINS_LOST);
    /* The reserve (15 slots, 2 taken by the marker) holds the Leaves of regions 20..8;
     * those of 7..1 find no room and are counted as unclosed. */
    for (uint32_t r = 20; r >= 1; r--)
        ASSERT_INT_EQ(event(b, t + 24 - r, HP_TRACE_LEAVE, r),
                      r >= 8 ? HP_BINS_STORED : HP_BINS_LOST);
    hp_trace_bins_get_stats(b, &st);
    ASSERT_UINT_EQ(st.events_stored, stored + 13);
    ASSERT_UINT_EQ(st.events_lost, 3 + 7);
    ASSERT_UINT_EQ(st.messages_lost, 1);
    ASSERT_UINT_EQ(st.unclosed, 7);
    ASSERT_UINT_EQ(st.samples_lost, 1);
    ASSERT_UINT_EQ(b->open_recorded, 0);
    /* Read back: the Leaves of regions 7..1 are made up, so every Enter has its Leave. */
    uint64_t sends, made_up, records;
    if (read_back(b, st.stopped_at, &sends, &made_up, &records) != 0)
        return 1;
    ASSERT_UINT_EQ(sends, stored - 20);
    ASSERT_UINT_EQ(made_up, 7);
    ASSERT_UINT_EQ(records, stored + 13 + 2 + 7);
    free(region);
    return 0;
}

/* A sample that needs a new bin while the event path holds the free list is refused and
 * does not use its number, so the kept numbers stay exact. */
TEST(sample_during_event_bin_change_is_refused_without_using_its_number)
{
    void *region;
    hp_trace_bins *b = make(&region, 8, 50, 1, false);
    ASSERT_INT_EQ(sample(b, 1, 1), HP_BINS_STORED); /* level 0 has a bin */
    b->busy = 1;
    ASSERT_INT_EQ(sample(b, 2, 2), HP_BINS_BUSY);   /* level 1 would need one */
    ASSERT_INT_EQ(sample(b, 3, 2), HP_BINS_BUSY);
    b->busy = 0;
    ASSERT_INT_EQ(sample(b, 4, 2), HP_BINS_STORED);
    ASSERT_INT_EQ(sample(b, 5, 3), HP_BINS_STORED);
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(b, &st);
    ASSERT_UINT_EQ(st.samples_busy, 2);
    int rc = check_kept(b, 3, 0);
    free(region);
    return rc;
}

/* An event before the trace setup (a thread that started early): no pages yet, so it is
 * counted lost instead of crashing on the missing hooks. */
TEST(trace_buffer_append_before_setup_is_lost)
{
    hp_trace_buffer tb;
    hp_trace_buffer_init(&tb);
    hp_trace_add(&tb, HP_TRACE_ENTER, 0, 1);
    hp_trace_payload p = { 1, 8 };
    hp_trace_add_args(&tb, HP_TRACE_MPI_SEND, 0, 2, &p, 1);
    ASSERT_UINT_EQ(tb.events, 0);
    ASSERT_UINT_EQ(tb.lost, 2);
    return 0;
}

/* The trace buffer in adaptive mode (HP_TRACE_ADAPTIVE=true, trace_buffer.c): appends
 * go straight into the bins; at the share the events stop, MPI and program regions alike,
 * marked by the region TRACE EVENTS STOPPED, and the reader closes main if its Leave
 * found no room. Nothing is flushed. */
TEST(trace_buffer_in_adaptive_mode_never_flushes)
{
    ASSERT_INT_EQ(hp_memory_init(8 << 20), 0);
    ASSERT_INT_EQ(hp_region_init(NULL), 0);
    ASSERT_INT_EQ(hp_trace_setup(8 << 20), 0);
    hp_trace_set_buffer(256 * 1024, true, 0); /* 63 bins of 4 KiB: events' share is 31 */
    hp_region *main_r = hp_region_define("main", "", -1, HP_PARADIGM_COMPILER,
                                         HP_ROLE_FUNCTION);
    hp_region *work = hp_region_define("work", "", -1, HP_PARADIGM_COMPILER, HP_ROLE_FUNCTION);
    hp_region *send = hp_region_define("MPI_Send", "", -1, HP_PARADIGM_MPI, HP_ROLE_FUNCTION);
    ASSERT(main_r != NULL && work != NULL && send != NULL);
    hp_trace_buffer tb;
    hp_trace_buffer_init(&tb);
    uint64_t t = 1;
    hp_trace_add(&tb, HP_TRACE_ENTER, main_r->id, t++);
    for (int i = 0; i < 5000; i++) {
        hp_trace_add(&tb, HP_TRACE_ENTER, work->id, t++);
        hp_trace_add(&tb, HP_TRACE_LEAVE, work->id, t++);
        hp_trace_add(&tb, HP_TRACE_ENTER, send->id, t++);
        hp_trace_payload p = { (uint64_t)1 << 32 | 7, 8 };
        hp_trace_add_args(&tb, HP_TRACE_MPI_SEND, 0, t++, &p, 1);
        hp_trace_add(&tb, HP_TRACE_LEAVE, send->id, t++);
    }
    hp_trace_add(&tb, HP_TRACE_LEAVE, main_r->id, t++);
    ASSERT(tb.bins != NULL);
    ASSERT_UINT_EQ(tb.flushes, 0);
    ASSERT_INT_EQ(tb.spill_fd, -1);
    hp_trace_bins_stats st;
    hp_trace_bins_get_stats(tb.bins, &st);
    ASSERT(st.stopped_at > 0);
    ASSERT_UINT_EQ(st.bins_events, 31); /* the share, and not a bin more */
    ASSERT_UINT_EQ(st.unclosed, 0);     /* main's Leave went into the reserve */

    hp_trace_reader r;
    ASSERT_INT_EQ(hp_trace_reader_open(&r, &tb), 0);
    const hp_trace_event *ev;
    size_t n;
    uint32_t stack[8];
    int depth = 0;
    uint64_t sends = 0, send_enters = 0, after = 0, marks = 0, last = 0;
    while (hp_trace_reader_next(&r, &ev, &n) == 1) {
        ASSERT(ev[0].time >= last);
        last = ev[0].time;
        if (ev[0].kind == HP_TRACE_MPI_SEND) {
            ASSERT_UINT_EQ(n, 2);
            ASSERT_UINT_EQ(ev[1].time, (uint64_t)1 << 32 | 7);
            sends++;
        } else if (ev[0].kind == HP_TRACE_ENTER) {
            ASSERT(depth < 8);
            stack[depth++] = ev[0].region;
            send_enters += ev[0].region == send->id;
        } else if (ev[0].kind == HP_TRACE_LEAVE) {
            ASSERT(depth > 0);
            ASSERT_UINT_EQ(stack[--depth], ev[0].region);
        }
        const hp_region *reg = hp_region_at(ev[0].region);
        if (ev[0].kind <= HP_TRACE_LEAVE && strcmp(reg->name, "TRACE EVENTS STOPPED") == 0) {
            ASSERT_UINT_EQ(ev[0].time, st.stopped_at);
            marks++;
        } else if (ev[0].time > st.stopped_at && ev[0].region != main_r->id) {
            after++; /* only the Leave of the call the stop fell into */
        }
    }
    hp_trace_reader_close(&r);
    ASSERT_INT_EQ(depth, 0);
    ASSERT_UINT_EQ(marks, 2);
    ASSERT(after <= 1);
    /* Every MPI call has its message, but for one the stop may have cut. */
    ASSERT(send_enters == sends || send_enters == sends + 1);
    ASSERT_UINT_EQ(st.messages_lost, 5000 - sends);
    return 0;
}

TEST(invalid_layouts_are_refused)
{
    char region[8192];
    hp_trace_bins_config cfg = { 100, 50, 1, 1000, NULL, NULL, STOP }; /* not whole slots */
    ASSERT(hp_trace_bins_init(region, sizeof(region), &cfg) == NULL);
    cfg.bin_size = 128; /* fewer than 16 record slots */
    ASSERT(hp_trace_bins_init(region, sizeof(region), &cfg) == NULL);
    cfg.bin_size = 1024;
    cfg.sample_slots = 17;
    ASSERT(hp_trace_bins_init(region, sizeof(region), &cfg) == NULL);
    cfg.sample_slots = 1;
    cfg.event_share = 101;
    ASSERT(hp_trace_bins_init(region, sizeof(region), &cfg) == NULL);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(kept_samples_are_multiples_of_two_to_the_halvings),
             TEST_ENTRY(halvings_match_buffer_record_size_and_rate),
             TEST_ENTRY(long_run_ends_with_full_buffer_and_no_loss),
             TEST_ENTRY(events_survive_and_reader_merges_in_time_order),
             TEST_ENTRY(event_share_stops_mpi_and_region_events_alike),
             TEST_ENTRY(events_stop_at_the_share_with_leaves_in_the_reserve),
             TEST_ENTRY(events_stop_when_buffer_is_full_of_them),
             TEST_ENTRY(sample_during_event_bin_change_is_refused_without_using_its_number),
             TEST_ENTRY(trace_buffer_append_before_setup_is_lost),
             TEST_ENTRY(trace_buffer_in_adaptive_mode_never_flushes),
             TEST_ENTRY(invalid_layouts_are_refused));
