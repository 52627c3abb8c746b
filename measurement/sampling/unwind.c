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

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <ucontext.h>

#include "thunk_stack.h"
#include "util/compiler.h"
#include "util/hash.h"
#include "util/log.h"

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
    uintptr_t cfas[MAX_IPS];   /* thunk-aware walk: ips[i] was read from cfas[i] - 8 */
    uint16_t src[MAX_IPS];     /* index into ips of each frame frames_of wrote */
    hp_thunk_stack *thunks;    /* the thread's side stack, NULL without thunks */
    hp_unwind_known known;
    ra_entry ra[RA_CACHE_SIZE];
    range_entry ranges[RANGE_CACHE_SIZE];
    unsigned next_range; /* round-robin replacement */
    hp_unwind_stats stats;
};

typedef struct code_range {
    uintptr_t lo, hi;
} code_range;

static code_range libc_code;  /* outermost frames in here are left out */
static code_range own_code;   /* hpmeasure's library: its frames are left out */
static code_range loader_code, vdso_code; /* with libc: never thunked (see set_thunks) */
static uintptr_t entry_point; /* _start */
static bool caching = true;

/* Objects whose frames are left out like ours (hp_unwind_hide_object): added at run
 * time under hidden_lock, read lock-free (the count is published after the range). */
enum { MAX_HIDDEN = 4 };
static code_range hidden_code[MAX_HIDDEN];
static _Atomic unsigned hidden_count;
static pthread_mutex_t hidden_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* libunwind is opened privately (RTLD_LOCAL), not linked: libunwind.so also defines
 * _Unwind_RaiseException & co., and in the global scope (first when preloaded, or before
 * libgcc_s in the load order) it would become the program's C++ exception unwinder. It
 * then skipped destructors and cleanup handlers on pthread_exit/cancel, and a signal in
 * its setcontext window crashed. Only the three entries below are used. */
static int (*libunwind_backtrace)(void **buffer, int size);
static int (*libunwind_proc_info_by_ip)(unw_addr_space_t, unw_word_t, unw_proc_info_t *,
                                        void *);
static unw_addr_space_t *libunwind_local_space;

static int open_libunwind(void)
{
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        hp_warn("sampling is off: cannot load libunwind.so.8 (%s); "
                "install the Debian package libunwind8", dlerror());
        return -1;
    }
    libunwind_backtrace = (int (*)(void **, int))dlsym(h, "unw_backtrace");
    libunwind_proc_info_by_ip = (int (*)(unw_addr_space_t, unw_word_t, unw_proc_info_t *,
                                         void *))dlsym(h, "_ULx86_64_get_proc_info_by_ip");
    libunwind_local_space = (unw_addr_space_t *)dlsym(h, "_ULx86_64_local_addr_space");
    if (libunwind_backtrace == NULL || libunwind_proc_info_by_ip == NULL ||
        libunwind_local_space == NULL) {
        hp_warn("sampling is off: libunwind.so.8 lacks unw_backtrace or "
                "unw_get_proc_info_by_ip");
        return -1;
    }
    return 0;
}

int hp_unwind_init(void)
{
    if (libunwind_backtrace == NULL && open_libunwind() < 0)
        return -1;
    code_range_of((const void *)abort, &libc_code);
    code_range_of((const void *)hp_unwind_init, &own_code);
    entry_point = (uintptr_t)getauxval(AT_ENTRY);
    code_range_of((const void *)getauxval(AT_BASE), &loader_code);
    code_range_of((const void *)getauxval(AT_SYSINFO_EHDR), &vdso_code);
    return 0;
}

hp_unwinder *hp_unwinder_new(hp_arena *arena)
{
    hp_unwinder *u = hp_arena_alloc(arena, sizeof(hp_unwinder));
    if (u != NULL) /* libunwind sets up its per-thread trace cache here, not in a handler */
        libunwind_backtrace(u->ips, MAX_IPS);
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
    if (libunwind_proc_info_by_ip(*libunwind_local_space, ip, &pi, NULL) < 0 ||
        pi.start_ip == 0)
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
 * it is not valid (a cached answer as well). The call instruction ends at ra, so ra - 1
 * is inside the caller even when the call is the caller's last instruction. */
static uintptr_t caller_frame_start(hp_unwinder *u, uintptr_t ra)
{
    ra_entry *e = &u->ra[hp_hash_top(ra, 10)]; /* RA_CACHE_SIZE = 2^10 slots */
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

/* n: hidden_count, read once per unwind */
static bool in_hidden(uintptr_t ip, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (in_range(&hidden_code[i], ip))
            return true;
    return false;
}

void hp_unwind_hide_object(const void *addr)
{
    pthread_mutex_lock(&hidden_lock);
    unsigned n = atomic_load_explicit(&hidden_count, memory_order_relaxed);
    bool known = false;
    for (unsigned i = 0; i < n && !known; i++)
        known = in_range(&hidden_code[i], (uintptr_t)addr);
    if (!known && n < MAX_HIDDEN) {
        code_range_of(addr, &hidden_code[n]);
        if (hidden_code[n].lo != 0)
            atomic_store_explicit(&hidden_count, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&hidden_lock);
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

/* True when a stop lies in our own code: a measured frame may carry the address of one
 * of our functions that stays on the stack while the program's code runs below it (the
 * OpenMP adapter's team trampoline, hp__omp_enter_at). Only then are our own frames
 * looked up (MPI unwinds pass through several of them). */
static bool has_own_stop(const hp_unwind_stop *stop)
{
    for (size_t i = 0; stop != NULL && i < stop->count; i++)
        if (in_range(&own_code, stop->starts[i]))
            return true;
    return false;
}

/* True when our own frame at ip is one of the stops (has_own_stop said there is one). */
static HP_COLD bool own_frame_stops(hp_unwinder *u, hp_unwind_stop *stop, uintptr_t ip,
                                    bool top)
{
    uintptr_t start = top ? top_frame_start(u, ip) : caller_frame_start(u, ip);
    return start != 0 && is_stop(stop, start);
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
    /* own frames can be stops only below a runtime's trampolines (hp_unwind_hide_object) */
    unsigned hidden = atomic_load_explicit(&hidden_count, memory_order_acquire);
    bool own_stops = hidden > 0 && has_own_stop(stop);
    for (size_t i = first; i < count; i++) {
        uintptr_t ip = (uintptr_t)u->ips[i];
        if (in_range(&own_code, ip)) { /* hpmeasure's own frames (wrappers, hooks) */
            if (unlikely(own_stops) && own_frame_stops(u, stop, ip, i == first && exact_first))
                break; /* an OpenMP team trampoline */
            continue;
        }
        if (unlikely(hidden > 0) && in_hidden(ip, hidden))
            continue;
        bool top = i == first && exact_first;
        uintptr_t start = top ? top_frame_start(u, ip) : caller_frame_start(u, ip);
        if (start == 0)
            return HP_UNWIND_FAILED;
        if (is_stop(stop, start))
            break;
        if (n == max)
            return HP_UNWIND_TRUNCATED;
        u->src[n] = (uint16_t)i;
        out[n++] = (hp_unwind_frame){ start, top ? 0 : ip };
    }
    if (stop == NULL || stop->hit == stop->count)
        n = trim_outer(out, n);
    *n_out = n;
    return HP_UNWIND_COMPLETE;
}

static hp_unwind_status thunked_unwind(hp_unwinder *u, uintptr_t interrupted, uintptr_t sp,
                                       hp_unwind_stop *stop, hp_unwind_frame *out, size_t max,
                                       size_t *count);

hp_unwind_status hp_unwind_signal(hp_unwinder *u, void *ucontext, hp_unwind_stop *stop,
                                  hp_unwind_frame *out, size_t max, size_t *count)
{
    *count = 0;
    if (u->thunks != NULL) {
        const greg_t *regs = ((ucontext_t *)ucontext)->uc_mcontext.gregs;
        return thunked_unwind(u, (uintptr_t)regs[REG_RIP], (uintptr_t)regs[REG_RSP], stop, out,
                              max, count);
    }
    int n = libunwind_backtrace(u->ips, MAX_IPS);
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
    if (u->thunks != NULL)
        return thunked_unwind(u, 0, (uintptr_t)__builtin_frame_address(0), stop, out, max,
                              count);
    int n = libunwind_backtrace(u->ips, MAX_IPS);
    if (n >= MAX_IPS)
        return HP_UNWIND_TRUNCATED;
    return frames_of(u, 0, n > 0 ? (size_t)n : 0, false, stop, out, max, count);
}

/* ---- the thunk-aware walk (thunks.h) ---------------------------------------------------
 *
 * libunwind's fast backtrace does not say where it found each return address, and its
 * unw_step blocks signals twice per frame (about 10 us a frame here). libgcc's unwinder
 * tells the canonical frame address of each frame, and the return address into a frame
 * was read from that address minus 8; with glibc 2.35 and later it finds unwind tables
 * through _dl_find_object, without locks or system calls. It is reached through its own
 * handle, whichever unwinder the program's symbols resolve to. */

struct _Unwind_Context;
typedef int (*trace_fn)(struct _Unwind_Context *, void *);
enum { URC_NO_REASON = 0, URC_END_OF_STACK = 5 };

static int (*gcc_backtrace)(trace_fn, void *);
static uintptr_t (*gcc_get_cfa)(struct _Unwind_Context *);
static uintptr_t (*gcc_get_ip_info)(struct _Unwind_Context *, int *);

/* libc's context switches (swapcontext, setcontext) load the other context's stack
 * pointer some instructions before they push its return address and return: a signal in
 * between finds a stack pointer that their unwind tables do not describe, so the word
 * there is taken for a return address. It is whatever the other stack held (0x1 on the
 * coroutine stack of thunks.cpp), and libgcc, finding no unwind table for it, reads the
 * code at that address to recognise a signal frame: SIGSEGV inside the handler. Samples
 * interrupted anywhere in these functions are therefore not walked. Their extents are
 * looked up here, outside any handler (dladdr1 takes the loader's lock). */
static code_range context_switch_code[2];

static void context_switch_range(void *fn, code_range *out)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (fn != NULL && dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) != 0 && sym != NULL &&
        info.dli_saddr != NULL && sym->st_size > 0) {
        out->lo = (uintptr_t)info.dli_saddr;
        out->hi = out->lo + sym->st_size;
    }
}

static bool in_context_switch(uintptr_t ip)
{
    return in_range(&context_switch_code[0], ip) || in_range(&context_switch_code[1], ip);
}

static int count_frame(struct _Unwind_Context *ctx, void *arg)
{
    (void)ctx;
    ++*(int *)arg;
    return URC_NO_REASON;
}

int hp_unwind_enable_thunks(void)
{
    void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
    if (gcc == NULL)
        return -1;
    gcc_backtrace = (int (*)(trace_fn, void *))dlsym(gcc, "_Unwind_Backtrace");
    gcc_get_cfa = (uintptr_t(*)(struct _Unwind_Context *))dlsym(gcc, "_Unwind_GetCFA");
    gcc_get_ip_info =
        (uintptr_t(*)(struct _Unwind_Context *, int *))dlsym(gcc, "_Unwind_GetIPInfo");
    if (gcc_backtrace == NULL || gcc_get_cfa == NULL || gcc_get_ip_info == NULL)
        return -1;
    int frames = 0; /* libgcc sets up its register table on first use: not in a handler */
    gcc_backtrace(count_frame, &frames);
    context_switch_range((void *)swapcontext, &context_switch_code[0]);
    context_switch_range((void *)setcontext, &context_switch_code[1]);
    return 0;
}

void hp_unwinder_set_thunks(hp_unwinder *u, hp_thunk_stack *t)
{
    u->thunks = t;
    if (t != NULL) {
        int frames = 0;
        gcc_backtrace(count_frame, &frames);
    }
}

hp_unwind_known hp_unwinder_known(const hp_unwinder *u)
{
    return u->known;
}

typedef struct walk {
    hp_unwinder *u;
    size_t n;
    size_t hit; /* index of the thunk's address in ips, or SIZE_MAX */
    bool full;
} walk;

/* One frame of libgcc's walk: its address and where that address was read from. The
 * walk ends at the thunk (libgcc could not go on: the thunk has no unwind table). */
static int walk_frame(struct _Unwind_Context *ctx, void *arg)
{
    walk *w = arg;
    int exact;
    uintptr_t ip = gcc_get_ip_info(ctx, &exact);
    if (ip == 0)
        return URC_END_OF_STACK;
    if (w->n == MAX_IPS) {
        w->full = true;
        return URC_END_OF_STACK;
    }
    w->u->ips[w->n] = (void *)ip;
    w->u->cfas[w->n] = gcc_get_cfa(ctx);
    if (ip == (uintptr_t)hp__thunk) {
        w->hit = w->n++;
        return URC_END_OF_STACK;
    }
    w->n++;
    return URC_NO_REASON;
}

/* The side stack entry of slot, or SIZE_MAX. */
static size_t entry_of(const hp_thunk_stack *t, uintptr_t slot)
{
    for (size_t i = t->count; i-- > 0;)
        if (t->entries[i].slot == slot)
            return i;
    return SIZE_MAX;
}

/* Code whose return address slot may hold the thunk: not the C library, the dynamic
 * loader or the vDSO (some of their functions read their own return address: setjmp,
 * getcontext, dlsym), and not hpmeasure itself. */
static bool thunkable(uintptr_t addr)
{
    return !in_range(&libc_code, addr) && !in_range(&own_code, addr) &&
           !in_range(&loader_code, addr) && !in_range(&vdso_code, addr);
}

/* Extends the side stack inward over the n frames of the unwind just made (frames_of's
 * src says where each came from in ips): entry e holds the return address into the frame
 * at depth e, taken from the slot in the frame at depth e + 1. It stops at the first
 * frame that cannot be thunked, so the entries always cover a path from its outer end.
 * ips[walked) are the walk's own, the rest came from the side stack. */
static void set_thunks(hp_unwinder *u, hp_thunk_stack *t, size_t first, bool exact_first,
                       size_t walked, size_t n)
{
    for (size_t e = t->count; e < t->capacity && e + 1 < n; e++) {
        size_t i = u->src[n - 1 - e], owner = u->src[n - 2 - e];
        if (i >= walked || owner + 1 != i || (exact_first && i == first))
            break; /* not walked, a frame between them was left out, or not a return */
        uintptr_t owner_ip = (uintptr_t)u->ips[owner];
        if (!thunkable(exact_first && owner == first ? owner_ip : owner_ip - 1))
            break;
        uintptr_t *slot = (uintptr_t *)(u->cfas[i] - 8);
        if (*slot != (uintptr_t)u->ips[i])
            break; /* not where libgcc read it: leave it alone */
        t->entries[e] = (hp_thunk_entry){ (uintptr_t)slot, *slot };
        t->count = e + 1;
        atomic_signal_fence(memory_order_seq_cst);
        *slot = (uintptr_t)hp__thunk;
        u->stats.thunks_set++;
    }
}

/* What the side stack says about the previous path: alive entries now, tracked before. */
static hp_unwind_known known_of(const hp_thunk_stack *t, size_t alive_entries)
{
    size_t prev = t->reset ? 0 : t->tracked;
    hp_unwind_known k = { alive_entries > 0 ? alive_entries + 1 : 0, alive_entries + 1,
                          alive_entries + 1 };
    if (prev > alive_entries)
        k.gone_end = prev + 1;
    return k;
}

/* Appends the side stack's return addresses outward of entry d to ips at index at (the
 * thunk's place). Returns the new number of ips, or 0 when they do not fit. */
static size_t append_prefix(hp_unwinder *u, const hp_thunk_stack *t, size_t d, size_t at)
{
    if (at + d + 1 > MAX_IPS)
        return 0;
    for (size_t k = d + 1; k-- > 0;)
        u->ips[at++] = (void *)t->entries[k].ra;
    return at;
}

/* An unwind that stops at the first thunk, reuses the side stack beyond it and sets
 * thunks on the new frames. interrupted: the signal context's instruction pointer, or 0
 * when unwinding from here; sp: the stack pointer of the code unwound. */
static hp_unwind_status thunked_unwind(hp_unwinder *u, uintptr_t interrupted, uintptr_t sp,
                                       hp_unwind_stop *stop, hp_unwind_frame *out, size_t max,
                                       size_t *count)
{
    hp_thunk_stack *t = u->thunks;
    u->known = (hp_unwind_known){ 0, 0, 0 };
    if (interrupted >= (uintptr_t)hp__thunk && interrupted < (uintptr_t)hp__thunk_end)
        return HP_UNWIND_FAILED; /* inside the thunk: the side stack is changing */
    if (interrupted != 0 && in_context_switch(interrupted))
        return HP_UNWIND_FAILED; /* the stack pointer may be the other context's: above */
    walk w = { u, 0, SIZE_MAX, false };
    gcc_backtrace(walk_frame, &w);
    u->stats.walked_frames += w.n;
    size_t first = 0;
    while (interrupted != 0 && first < w.n && (uintptr_t)u->ips[first] != interrupted)
        first++;
    if (first == w.n || w.full) {
        t->reset = true;
        return first == w.n ? HP_UNWIND_FAILED : HP_UNWIND_TRUNCATED;
    }
    size_t n = w.n, alive = 0, walked = w.n;
    if (w.hit != SIZE_MAX) {
        size_t d = entry_of(t, u->cfas[w.hit] - 8);
        if (d == SIZE_MAX) {
            t->reset = true;
            return HP_UNWIND_FAILED;
        }
        walked = w.hit;
        n = append_prefix(u, t, d, w.hit);
        if (n == 0)
            return HP_UNWIND_TRUNCATED;
        alive = d + 1;
        u->stats.thunk_prefixes++;
    }
    /* on another stack than the thread's own (swapcontext, coroutines), the side stack
       names frames that are merely suspended: leave it alone */
    bool may_change = !t->blocked && sp >= t->stack_lo && sp < t->stack_hi;
    bool may_set = may_change && (stop == NULL || stop->count == 0);
    if (may_change)
        t->count = alive; /* entries beyond the thunk met belong to frames that are gone */
    hp_unwind_status status =
        frames_of(u, first, n, interrupted != 0, stop, out, max, count);
    if (status != HP_UNWIND_COMPLETE || !may_set) {
        t->reset = true;
        return status;
    }
    u->known = known_of(t, alive);
    set_thunks(u, t, first, interrupted != 0, walked, *count);
    t->tracked = t->count;
    t->reset = false;
    return status;
}
