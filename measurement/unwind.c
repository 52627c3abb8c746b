/*
 * Unwinding with libunwind (unwind.h): the backtrace, the two caches, the return address
 * check and the trimming of the C library's outermost frames.
 *
 * The backtrace is libunwind's unw_backtrace: its fast path keeps a per-thread cache of
 * how to step from each return address and takes no lock and makes no system call,
 * where a loop of unw_step calls blocks signals (two system calls) for every frame with
 * the libunwind Debian ships (no per-thread register-state cache): 50 us instead of
 * 0.2 us for 10 frames here. It also steps through the signal trampoline, so the same
 * call serves the signal handler. Function starts come from unw_get_proc_info_by_ip, on
 * cache misses only.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "unwind.h"

#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <ucontext.h>

#include "util/compiler.h"

enum {
    RA_CACHE_SIZE = 1024,  /* return address -> function start, direct-mapped */
    RANGE_CACHE_SIZE = 16, /* recent [start, end) of interrupted top frames */
    MAX_IPS = 600          /* a backtrace: the caller's frames plus our own and the
                              signal trampoline */
};

typedef struct ra_entry {
    uintptr_t ra;
    uintptr_t start;
} ra_entry;

typedef struct range_entry {
    uintptr_t start;
    uintptr_t end;
} range_entry;

struct hp_unwinder {
    void *ips[MAX_IPS]; /* the current backtrace */
    ra_entry ra[RA_CACHE_SIZE];
    range_entry ranges[RANGE_CACHE_SIZE];
    unsigned next_range; /* round-robin replacement */
    hp_unwind_stats stats;
};

typedef struct code_range {
    uintptr_t lo, hi;
} code_range;

static code_range libc_code;  /* outermost frames in here are left out */
static code_range own_code;   /* hpmeasure's library: skipped by hp_unwind_here */
static uintptr_t entry_point; /* _start */
static bool caching = true;

static bool in_range(const code_range *r, uintptr_t addr)
{
    return addr >= r->lo && addr < r->hi;
}

typedef struct range_query {
    uintptr_t addr;
    code_range *out;
} range_query;

/* When the object of info contains q->addr: the span of its executable segments. */
static int find_code_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    range_query *q = arg;
    code_range exec = { 0, 0 };
    bool contains = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        contains |= q->addr >= lo && q->addr < hi;
        if (!(ph->p_flags & PF_X))
            continue;
        if (exec.lo == 0 || lo < exec.lo)
            exec.lo = lo;
        if (hi > exec.hi)
            exec.hi = hi;
    }
    if (contains)
        *q->out = exec;
    return contains;
}

/* The code range of the object that contains addr. */
static void code_range_of(const void *addr, code_range *out)
{
    memset(out, 0, sizeof(*out));
    range_query q = { (uintptr_t)addr, out };
    dl_iterate_phdr(find_code_range, &q);
}

int hp_unwind_init(void)
{
    code_range_of((const void *)abort, &libc_code);
    code_range_of((const void *)hp_unwind_init, &own_code);
    entry_point = (uintptr_t)getauxval(AT_ENTRY);
    return 0;
}

hp_unwinder *hp_unwinder_new(hp_arena *arena)
{
    hp_unwinder *u = hp_arena_alloc(arena, sizeof(hp_unwinder));
    if (u != NULL) /* libunwind sets up its per-thread trace cache here, not in a handler */
        unw_backtrace(u->ips, MAX_IPS);
    return u;
}

void hp_unwinder_stats(const hp_unwinder *u, hp_unwind_stats *out)
{
    *out = u->stats;
}

void hp_unwind_set_caching(int on)
{
    caching = on != 0;
}

/* Length of the indirect call `ff /2` whose ModRM byte is modrm (without prefixes), or
 * 0 when modrm is not that of a call. */
static unsigned indirect_call_length(const uint8_t *modrm)
{
    unsigned mod = modrm[0] >> 6, reg = (modrm[0] >> 3) & 7, rm = modrm[0] & 7;
    if (reg != 2)
        return 0;
    unsigned len = 2; /* ff + modrm */
    if (mod == 3)
        return len;
    if (rm == 4) { /* SIB byte */
        len++;
        if (mod == 0 && (modrm[1] & 7) == 5)
            len += 4;
    } else if (mod == 0 && rm == 5) {
        len += 4; /* rip-relative */
    }
    return len + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* True when the instruction that ends at ra is a call (direct e8 rel32, or ff /2).
 * Only bytes at or after the function's start are read: they are mapped. */
static bool returns_after_call(uintptr_t ra, uintptr_t start)
{
    if (ra - start >= 5 && *(const uint8_t *)(ra - 5) == 0xe8)
        return true;
    for (unsigned k = 2; k <= 7 && ra - start >= k; k++) {
        const uint8_t *p = (const uint8_t *)(ra - k);
        if (p[0] == 0xff && indirect_call_length(p + 1) == k)
            return true;
    }
    return false;
}

/* Function start and end of the code at ip, from the unwind tables (cache miss: libunwind
 * searches the loaded objects). 0 when no table covers ip. */
static uintptr_t proc_start(uintptr_t ip, uintptr_t *end)
{
    unw_proc_info_t pi;
    if (unw_get_proc_info_by_ip(unw_local_addr_space, ip, &pi, NULL) < 0 || pi.start_ip == 0)
        return 0;
    *end = (uintptr_t)pi.end_ip;
    return (uintptr_t)pi.start_ip;
}

/* Function start of the interrupted top frame at ip: a range lookup. */
static uintptr_t top_frame_start(hp_unwinder *u, uintptr_t ip)
{
    for (unsigned i = 0; caching && i < RANGE_CACHE_SIZE; i++)
        if (ip >= u->ranges[i].start && ip < u->ranges[i].end) {
            u->stats.cache_hits++;
            return u->ranges[i].start;
        }
    u->stats.cache_misses++;
    uintptr_t end = 0, start = proc_start(ip, &end);
    if (start != 0 && ip >= start && ip < end) {
        u->ranges[u->next_range] = (range_entry){ start, end };
        u->next_range = (u->next_range + 1) % RANGE_CACHE_SIZE;
    }
    return start;
}

/* Function start of a caller frame whose return address is ra, after checking ra; 0 when
 * it is not valid (a cached answer as well). The call instruction ends at ra, so ra - 1 is inside the caller even
 * when the call is the caller's last instruction. */
static uintptr_t caller_frame_start(hp_unwinder *u, uintptr_t ra)
{
    ra_entry *e = &u->ra[(ra * 0x9E3779B97F4A7C15ull) >> 54];
    if (caching && e->ra == ra) {
        u->stats.cache_hits++;
        return e->start;
    }
    u->stats.cache_misses++;
    uintptr_t end = 0, start = proc_start(ra - 1, &end);
    if (start == 0 || ra <= start || ra > end || !returns_after_call(ra, start))
        start = 0; /* remembered too: a bad address costs the lookup once */
    *e = (ra_entry){ ra, start };
    return start;
}

static bool is_stop(hp_unwind_stop *stop, uintptr_t start)
{
    for (size_t i = 0; stop != NULL && i < stop->count; i++)
        if (stop->starts[i] == start) {
            stop->hit = i;
            return true;
        }
    return false;
}

/* Drops the outermost frames that are the C library's or the entry point. */
static size_t trim_outer(const hp_unwind_frame *f, size_t n)
{
    while (n > 0 && (in_range(&libc_code, f[n - 1].start) || f[n - 1].start == entry_point))
        n--;
    return n;
}

/* Turns the addresses ips[first..count) of one backtrace into frames; ips[first] is an
 * exact instruction address when exact_first, every other one a return address. */
static hp_unwind_status frames_of(hp_unwinder *u, size_t first, size_t count,
                                  bool exact_first, hp_unwind_stop *stop,
                                  hp_unwind_frame *out, size_t max, size_t *n_out)
{
    size_t n = 0;
    if (stop != NULL)
        stop->hit = stop->count;
    for (size_t i = first; i < count; i++) {
        uintptr_t ip = (uintptr_t)u->ips[i];
        if (in_range(&own_code, ip)) /* hpmeasure's own frames (wrappers, hooks) */
            continue;
        bool top = i == first && exact_first;
        uintptr_t start = top ? top_frame_start(u, ip) : caller_frame_start(u, ip);
        if (start == 0)
            return HP_UNWIND_FAILED;
        if (is_stop(stop, start))
            break;
        if (n == max)
            return HP_UNWIND_TRUNCATED;
        out[n++] = (hp_unwind_frame){ start, top ? 0 : ip };
    }
    if (stop == NULL || stop->hit == stop->count)
        n = trim_outer(out, n);
    *n_out = n;
    return HP_UNWIND_COMPLETE;
}

hp_unwind_status hp_unwind_signal(hp_unwinder *u, void *ucontext, hp_unwind_stop *stop,
                                  hp_unwind_frame *out, size_t max, size_t *count)
{
    *count = 0;
    int n = unw_backtrace(u->ips, MAX_IPS);
    if (n >= MAX_IPS)
        return HP_UNWIND_TRUNCATED;
    /* the handler's own frames and the signal trampoline come first: the interrupted
       frame is the one at the context's instruction pointer */
    void *interrupted = (void *)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP];
    for (int i = 0; i < n; i++)
        if (u->ips[i] == interrupted)
            return frames_of(u, (size_t)i, (size_t)n, true, stop, out, max, count);
    return HP_UNWIND_FAILED;
}

hp_unwind_status hp_unwind_here(hp_unwinder *u, hp_unwind_stop *stop, hp_unwind_frame *out,
                                size_t max, size_t *count)
{
    *count = 0;
    int n = unw_backtrace(u->ips, MAX_IPS);
    if (n >= MAX_IPS)
        return HP_UNWIND_TRUNCATED;
    return frames_of(u, 0, n > 0 ? (size_t)n : 0, false, stop, out, max, count);
}
