/*
 * The adaptive trace buffer (measurement/trace/trace_bins.c, doc/tracing.md) measured and
 * modelled; run by bench/run-trace-bins-bench.sh as part of `make bench`.
 *
 * 1. Removal: a buffer of BUFFER_MB (default 100) MB filled with 16-byte samples until it
 *    is full; the sample that finds no free bin gives back its lowest level (half of the
 *    buffer) and closes it. Printed: the time of that call (target <= 2 ms), and, for
 *    comparison, the time to write the same bytes to a file in TMPDIR, which is what a
 *    flush of the flushing buffer costs (without fsync).
 * 2. Per-record cost: N samples into the bins (lambda, level lookup, store; halvings as
 *    they come) against N events appended to today's trace buffer (hp_trace_add), in
 *    rounds that take turns; the fastest round of each counts.
 * 3. The paper's scenario, computed by a model (not measured): start at 10 kHz, 48 or 102
 *    bytes a sample, MPI events at 1 or 10 kB/s, a buffer of MODEL_MB (default 1024) MB
 *    per location. MPI events take what they need up to their share (50%), the samples
 *    the rest: after time t the frequency is 10 kHz / 2^k for the smallest k with
 *    (10 kHz t / 2^k) size <= buffer - MPI bytes. Bins are ignored (each level wastes at
 *    most one partly filled bin).
 * 4. The model checked against the module: the scenario with 48-byte samples and 1 KiB/s
 *    of MPI events (16-byte events) simulated for 1 h on a 16 MB buffer and 1 day on a
 *    128 MB one, the timer following the halvings; printed: halvings of the model and of
 *    the module.
 * 5. The paper's scenarios A-D on the module in simulated time (10 kHz start, 48 or 102
 *    bytes a sample, MPI events at 1 or 10 kB/s, 100 MB, 4 h): halvings over time, the
 *    time events stop at their 50% share, the final frequency, next to the paper's
 *    figures.
 *
 * Usage: bench-trace-bins [BUFFER_MB [N [MODEL_MB]]]
 * Ends with "bench: name=value" lines. Never fails on timings.
 */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "measurement/core/memory.h"
#include "measurement/trace/trace_bins.h"
#include "measurement/core/trace_provider.h"
#include "measurement/trace/trace_buffer.h"

static unsigned long long now(void)
{
    return bench_now_ns(CLOCK_MONOTONIC);
}

/* ---------------------------------------------------------------- 1. removal */

static int noop_rearm(void *arg, uint64_t period_ns)
{
    (void)arg;
    (void)period_ns;
    return 0;
}

static void bench_removal(size_t mb, double *removal_ms, double *flush_ms, uint32_t *bins)
{
    size_t size = mb << 20;
    void *region = malloc(size);
    hp_trace_bins_config cfg = { 0, 50, 1, 100000, noop_rearm, NULL, HP_BINS_NIL };
    hp_trace_bins *b = hp_trace_bins_init(region, size, &cfg);
    hp_trace_event rec = { 0, 99, 0 };
    unsigned long long took = 0;
    for (uint64_t t = 1; b->stats.halvings == 0; t++) {
        rec.time = t;
        unsigned long long t0 = now();
        hp_trace_bins_sample(b, &rec);
        took = now() - t0;
    }
    *removal_ms = took / 1e6;
    *bins = (uint32_t)b->stats.bins_revoked;

    /* What a flush of the same bytes costs: write() into a fresh file. */
    const char *dir = getenv("TMPDIR");
    char path[256];
    snprintf(path, sizeof(path), "%s/hp-bench-flush-%d.raw", dir && *dir ? dir : "/tmp",
             (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    unsigned long long t0 = now();
    for (size_t off = 0; fd >= 0 && off < size;) {
        ssize_t n = write(fd, (char *)region + off, size - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    *flush_ms = (now() - t0) / 1e6;
    if (fd >= 0)
        close(fd);
    unlink(path);
    free(region);
}

/* ---------------------------------------------------------------- 2. per record */

static BENCH_KEEP void samples_loop(hp_trace_bins *b, long n)
{
    hp_trace_event rec = { 0, 99, 7 };
    for (long i = 0; i < n; i++) {
        rec.time = (uint64_t)i;
        hp_trace_bins_sample(b, &rec);
    }
}

static BENCH_KEEP void events_loop(hp_trace_buffer *tb, long n)
{
    for (long i = 0; i < n; i++)
        hp_trace_add(tb, HP_TRACE_ENTER, 7, (uint64_t)i);
}

/* Makes the trace buffer's chunks empty again, as a flush does, so that later rounds
 * write into memory already touched (as the bins' rounds do). */
static void rewind_trace_buffer(hp_trace_buffer *tb)
{
    size_t capacity = (HP_PAGE_SIZE - sizeof(hp_trace_chunk)) / sizeof(hp_trace_event);
    for (hp_trace_chunk *c = tb->first; c != NULL; c = c->next)
        c->count = 0;
    tb->last = tb->first;
    tb->next = tb->first->events;
    tb->end = tb->next + capacity;
}

static void bench_per_record(long n, int reps, double *bins_ns, double *buffer_ns)
{
    size_t size = 64u << 20; /* halves a few times for 4M samples */
    void *region = hp_memory_pages(size); /* from the budget, as in measurement */
    memset(region, 0, size); /* both sides write into touched memory */
    hp_trace_bins_config cfg = { 0, 50, 1, 100000, noop_rearm, NULL, HP_BINS_NIL };
    hp_trace_buffer tb;
    hp_trace_buffer_init(&tb);
    events_loop(&tb, n);
    *bins_ns = *buffer_ns = 1e30;
    for (int r = 0; r < reps; r++) {
        hp_trace_bins *b = hp_trace_bins_init(region, size, &cfg);
        unsigned long long t0 = now();
        samples_loop(b, n);
        double ns = (double)(now() - t0) / n;
        if (ns < *bins_ns)
            *bins_ns = ns;

        rewind_trace_buffer(&tb);
        t0 = now();
        events_loop(&tb, n);
        ns = (double)(now() - t0) / n;
        if (ns < *buffer_ns)
            *buffer_ns = ns;
        if (tb.flushes != 0)
            fprintf(stderr, "bench-trace-bins: the trace buffer flushed (budget too small)\n");
    }
}

/* ---------------------------------------------------------------- 3. model */

/* Halvings after t seconds; MPI events hold at most half of the buffer (then they stop). */
static int model_halvings(double f0, double sample_bytes, double mpi_rate, double buffer,
                          double t)
{
    double mpi = mpi_rate * t < buffer / 2 ? mpi_rate * t : buffer / 2;
    double room = buffer - mpi;
    int k = 0;
    while (f0 * t / ldexp(1.0, k) * sample_bytes > room)
        k++;
    return k;
}

static void print_model(double buffer_mb)
{
    static const double sizes[] = { 48, 102 }, rates[] = { 1000, 10000 };
    static const double times[] = { 3600, 86400, 7 * 86400 };
    double buffer = buffer_mb * 1048576.0;
    printf("\nThe paper's scenario by a model (computed, not measured): 10 kHz start, %.0f MB "
           "per location\n", buffer_mb);
    printf("  %-8s %-9s %16s %16s %16s\n", "sample", "MPI", "after 1 h", "after 1 day",
           "after 1 week");
    for (int s = 0; s < 2; s++)
        for (int r = 0; r < 2; r++) {
            printf("  %3.0f B    %2.0f kB/s ", sizes[s], rates[r] / 1000);
            for (int t = 0; t < 3; t++) {
                int k = model_halvings(10000, sizes[s], rates[r], buffer, times[t]);
                char cell[32];
                snprintf(cell, sizeof(cell), "%.3g Hz (%d)%s", 10000 / ldexp(1.0, k), k,
                         rates[r] * times[t] >= buffer / 2 ? "*" : "");
                printf(" %16s", cell);
            }
            printf("\n");
        }
    printf("  (frequency reached, halvings in brackets; '*': MPI events filled their half "
           "of the buffer\n   by then and stopped; the samples go on)\n");
}

/* ---------------------------------------------------------------- 4. model vs module */

typedef struct sim_timer {
    uint64_t period;
} sim_timer;

static int sim_rearm(void *arg, uint64_t period_ns)
{
    ((sim_timer *)arg)->period = period_ns;
    return 0;
}

/* Simulates seconds of a scenario on the module: samples of sample_slots slots at 10 kHz
 * start, the timer following the halvings, and 16-byte MPI events (Enter, mpi) at
 * event_bytes_per_s, in a buffer of size bytes of 64 KiB bins; *st gets the module's
 * statistics and halving[] (at least HP_BINS_LEVELS) its halvings. */
static void simulate_run(size_t size, double seconds, unsigned sample_slots,
                         double event_bytes_per_s, hp_trace_bins_stats *st,
                         hp_trace_bins_halving *halving)
{
    void *region = malloc(size);
    sim_timer timer = { 100000 };
    hp_trace_bins_config cfg = { 0, 50, sample_slots, 100000, sim_rearm, &timer, HP_BINS_NIL };
    hp_trace_bins *b = hp_trace_bins_init(region, size, &cfg);
    uint64_t end = (uint64_t)(seconds * 1e9);
    uint64_t event_period = (uint64_t)(1e9 * sizeof(hp_trace_event) / event_bytes_per_s);
    uint64_t next_sample = timer.period, next_event = event_period;
    hp_trace_event rec[HP_BINS_MAX_SAMPLE_SLOTS] = { { 0, 99, 0 } };
    while (next_sample <= end || next_event <= end) {
        if (next_sample <= next_event) {
            rec[0].time = next_sample;
            hp_trace_bins_sample(b, rec);
            next_sample += timer.period;
        } else {
            hp_trace_event e = { next_event, HP_TRACE_ENTER, 1 };
            hp_trace_bins_event(b, &e);
            next_event += event_period;
        }
    }
    hp_trace_bins_get_stats(b, st);
    memcpy(halving, b->halving, sizeof(b->halving));
    free(region);
}

/* The module's halvings for the scenario of section 4 (48-byte samples, 1 KiB/s of MPI
 * events) after seconds on a buffer of mb MB. */
static int simulate(size_t mb, double seconds)
{
    hp_trace_bins_stats st;
    hp_trace_bins_halving halving[HP_BINS_LEVELS];
    simulate_run(mb << 20, seconds, 3, 1024, &st, halving);
    return (int)st.halvings;
}

/* ---------------------------------------------------------------- 5. the paper's A-D */

typedef struct scenario {
    char name;
    unsigned sample_slots; /* 3 = 48 B; 7 = 112 B stands for the paper's 102 B */
    double mpi_rate;       /* bytes per second */
    const char *paper;
} scenario;

static void print_time(char *out, size_t size, uint64_t ns)
{
    uint64_t s = ns / 1000000000u;
    snprintf(out, size, "%u:%02u:%02u", (unsigned)(s / 3600), (unsigned)(s / 60 % 60),
             (unsigned)(s % 60));
}

/* Scenarios A-D of the paper on the module, 4 h of simulated time on 100 MB: halvings
 * over time, when events stop at their 50% share, and the final frequency. */
static void print_scenarios(void)
{
    static const scenario sc[] = {
        { 'A', 3, 1000, "7 halvings, 78.125 Hz by 4 h" },
        { 'B', 7, 1000, "-" },
        { 'C', 3, 10000, "MPI at the 50% limit at about 1:23 h" },
        { 'D', 7, 10000, "MPI at the 50% limit at about 1:23 h" },
    };
    printf("\nThe paper's scenarios A-D on the module (simulated time): 10 kHz start, 100 MB "
           "(10^8 B) per location, 4 h, events' share 50%%\n");
    for (size_t i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
        hp_trace_bins_stats st;
        hp_trace_bins_halving halving[HP_BINS_LEVELS];
        unsigned long long t0 = now();
        simulate_run(100000000, 4 * 3600.0, sc[i].sample_slots, sc[i].mpi_rate, &st, halving);
        double took = (double)(now() - t0) / 1e9;
        char stop[16] = "-", at[16];
        if (st.stopped_at != 0)
            print_time(stop, sizeof(stop), st.stopped_at);
        printf("  %c: %3u B samples, MPI %2.0f kB/s: %u halvings, %g Hz at 4 h; events stop "
               "at %s (paper: %s; simulated in %.1f s)\n     halvings at", sc[i].name,
               sc[i].sample_slots * 16, sc[i].mpi_rate / 1000, st.halvings,
               1e4 / ldexp(1.0, (int)st.halvings), stop, sc[i].paper, took);
        for (unsigned k = 0; k < st.halvings; k++) {
            print_time(at, sizeof(at), halving[k].time);
            printf(" %s", at);
        }
        printf("\n");
        printf("bench: bins_scenario_%c_halvings=%u\n", sc[i].name, st.halvings);
        printf("bench: bins_scenario_%c_stop_s=%.0f\n", sc[i].name, st.stopped_at / 1e9);
    }
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 4000000;
    double model_mb = argc > 3 ? strtod(argv[3], NULL) : 1024;
    if (hp_memory_init(1ull << 31) != 0 || hp_trace_setup(1ull << 31) != 0) {
        fprintf(stderr, "bench-trace-bins: no memory budget\n");
        return 1;
    }
    double removal_ms, flush_ms, bins_ns, buffer_ns;
    uint32_t revoked;
    bench_removal(mb, &removal_ms, &flush_ms, &revoked);
    bench_per_record(n, 3, &bins_ns, &buffer_ns);
    printf("Adaptive trace buffer (bench-trace-bins; the core linked statically)\n\n");
    printf("  %-52s %10.4f ms (%u bins of 64 KiB; target <= 2)\n",
           "first halving of a full buffer", removal_ms, revoked);
    printf("  %-52s %10.3f ms\n", "writing the same buffer to a file (a flush)", flush_ms);
    printf("  %-52s %10.0f x\n", "flush / halving", flush_ms / removal_ms);
    printf("  %-52s %10.2f ns\n", "one sample: lambda + store into its level", bins_ns);
    printf("  %-52s %10.2f ns\n", "one event appended to the flushing trace buffer", buffer_ns);
    printf("  %-52s %10.2f\n", "sample / event", bins_ns / buffer_ns);
    print_model(model_mb);
    int sim_h = simulate(16, 3600), sim_d = simulate(128, 86400);
    int mod_h = model_halvings(10000, 48, 1024, 16 * 1048576.0, 3600);
    int mod_d = model_halvings(10000, 48, 1024, 128 * 1048576.0, 86400);
    printf("\nModel against the module (48 B samples, 1 KiB/s MPI events, simulated time):\n");
    printf("  %-20s %8s %8s\n", "halvings after", "model", "module");
    printf("  %-20s %8d %8d\n", "1 h, 16 MB", mod_h, sim_h);
    printf("  %-20s %8d %8d\n", "1 day, 128 MB", mod_d, sim_d);
    print_scenarios();
    printf("bench: bins_removal_ms=%.4f\n", removal_ms);
    printf("bench: bins_flush_ms=%.3f\n", flush_ms);
    printf("bench: bins_sample_ns=%.2f\n", bins_ns);
    printf("bench: bins_trace_add_ns=%.2f\n", buffer_ns);
    printf("bench: bins_sample_over_trace_add=%.2f\n", bins_ns / buffer_ns);
    printf("bench: bins_model_halvings_1h=%d\n", mod_h);
    printf("bench: bins_module_halvings_1h=%d\n", sim_h);
    printf("bench: bins_model_halvings_1d=%d\n", mod_d);
    printf("bench: bins_module_halvings_1d=%d\n", sim_d);
    return 0;
}
