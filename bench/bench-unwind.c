/*
 * The cost of one unwind as an MPI wrapper makes it (bench/run-sampling-bench.sh,
 * doc/bench.md): hp_unwind_here() called from the bottom of a recursion of a given depth
 * (bench_descend in a shared library, see unwind-depth.c), with the core's caches on and
 * off, against libunwind's unw_backtrace alone and a raw timestamp read.
 *
 * It links the core statically (libhpcore.la, as the unit tests do) and calls the
 * unwinder directly, with an empty stop list, as the wrapper of a --nocompiler build
 * does: no MPI, no signal, no call tree, only the unwind. Each variant runs ITERS times
 * per round (the cold unwind ITERS / 100 times, the timestamp read 10 ITERS times), the
 * variants take turns in each of REPS rounds, and the fastest round of each counts.
 *
 * Usage: bench-unwind LIBDEPTH.so [DEPTH [ITERS [REPS]]]   (defaults 10 100000 5)
 * Prints one line of name=value pairs: ns per unwind of each variant (cached, cold,
 * backtrace, timestamp), the frames an unwind returns, the addresses its backtrace holds
 * and the function-start lookups of a cold unwind.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "measurement/core/memory.h"
#include "measurement/core/timer.h"
#include "measurement/sampling/unwind.h"

enum { MAX_FRAMES = 512, BACKTRACE_MAX = 600 };

typedef void descend_fn(int depth, void (*at_bottom)(void *), void *arg);

/* What the innermost call does: one of the variants below, ITERS times. */
typedef struct bench_ctx {
    hp_unwinder *unwinder;
    long iters;
    size_t frames;      /* out: frames of the last unwind */
    int status;         /* out: its status (hp_unwind_status) */
    int backtrace_ips;  /* out: addresses of the last raw backtrace */
    uint64_t checksum;  /* keeps the timestamp loop from being removed */
} bench_ctx;

/* The unwind of an MPI wrapper in a --nocompiler build: nothing instrumented to stop at. */
static void loop_unwind(void *arg)
{
    bench_ctx *c = arg;
    uintptr_t starts[1];
    hp_unwind_frame frames[MAX_FRAMES];
    for (long i = 0; i < c->iters; i++) {
        hp_unwind_stop stop = { starts, 0, 0 };
        c->status = hp_unwind_here(c->unwinder, &stop, frames, MAX_FRAMES, &c->frames);
    }
}

static void loop_backtrace(void *arg)
{
    bench_ctx *c = arg;
    void *ips[BACKTRACE_MAX];
    for (long i = 0; i < c->iters; i++)
        c->backtrace_ips = unw_backtrace(ips, BACKTRACE_MAX);
}

static void loop_timestamp(void *arg)
{
    bench_ctx *c = arg;
    uint64_t sum = 0;
    for (long i = 0; i < c->iters; i++)
        sum += hp_timer_now();
    c->checksum += sum;
}

static long count_arg(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *end == '\0' && v > 0 ? v : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: %s LIBDEPTH.so [DEPTH [ITERS [REPS]]]\n", argv[0]);
        return 2;
    }
    long depth = argc > 2 ? count_arg(argv[2]) : 10;
    long iters = argc > 3 ? count_arg(argv[3]) : 100000;
    long reps = argc > 4 ? count_arg(argv[4]) : 5;
    if (depth < 0 || iters < 0 || reps < 0) {
        fprintf(stderr, "%s: DEPTH, ITERS and REPS are positive counts\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    descend_fn *descend = lib != NULL ? (descend_fn *)dlsym(lib, "bench_descend") : NULL;
    if (descend == NULL) {
        fprintf(stderr, "%s: cannot load bench_descend: %s\n", argv[0], dlerror());
        return 1;
    }
    bool fell_back;
    hp_timer_init(HP_TIMER_TSC, &fell_back);
    hp_arena arena = { NULL, NULL };
    hp_unwinder *u = NULL;
    if (hp_memory_init(16u << 20) < 0 || hp_unwind_init() < 0 ||
        (u = hp_unwinder_new(&arena)) == NULL) {
        fprintf(stderr, "%s: cannot set up the unwinder\n", argv[0]);
        return 1;
    }

    bench_ctx ctx = { u, 1, 0, 0, 0, 0 };
    /* Warm-up: libunwind learns every frame, and the cold lookups per unwind are counted
       from the statistics of one uncached unwind. */
    descend((int)depth, loop_unwind, &ctx);
    hp_unwind_stats before, after;
    hp_unwind_set_caching(0);
    hp_unwinder_stats(u, &before);
    descend((int)depth, loop_unwind, &ctx);
    hp_unwinder_stats(u, &after);
    uint64_t lookups = after.cache_misses - before.cache_misses;

    enum { CACHED, COLD, BACKTRACE, TIMESTAMP, NVARIANTS };
    static const char *const names[NVARIANTS] = { "cached", "cold", "backtrace", "timestamp" };
    /* A cold unwind costs about 200 cached ones here (see doc/bench.md): it runs a
       hundredth of the iterations, and a timestamp read ten times as many. */
    const long count[NVARIANTS] = { iters, iters / 100 > 0 ? iters / 100 : 1, iters, iters * 10 };
    uint64_t best[NVARIANTS] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
    for (long r = 0; r < reps; r++) {
        for (int v = 0; v < NVARIANTS; v++) {
            ctx.iters = count[v];
            hp_unwind_set_caching(v != COLD);
            void (*fn)(void *) = v == BACKTRACE ? loop_backtrace
                                 : v == TIMESTAMP ? loop_timestamp
                                                  : loop_unwind;
            uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
            descend((int)depth, fn, &ctx);
            uint64_t t = bench_now_ns(CLOCK_MONOTONIC) - t0;
            if (t < best[v])
                best[v] = t;
        }
    }
    hp_unwind_set_caching(1);
    if (ctx.status != HP_UNWIND_COMPLETE) {
        fprintf(stderr, "%s: the unwind did not complete (status %d)\n", argv[0], ctx.status);
        return 1;
    }
    printf("depth=%ld iters=%ld reps=%ld", depth, iters, reps);
    for (int v = 0; v < NVARIANTS; v++)
        printf(" %s_ns=%.2f", names[v], (double)best[v] / (double)count[v]);
    printf(" frames=%zu backtrace_ips=%d cold_lookups=%llu timer=%s checksum=%llu\n",
           ctx.frames, ctx.backtrace_ips, (unsigned long long)lookups, hp_timer_name(),
           (unsigned long long)(ctx.checksum & 1));
    return 0;
}
