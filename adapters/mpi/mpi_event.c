/*
 * Entering and leaving MPI functions: the core side of every generated wrapper.
 *
 * Each MPI function is one region (paradigm mpi, Score-P's role), defined on its first
 * measured call and then found in an array indexed by the function id, so a measured
 * call costs an array load, the call-tree step and two timestamps. A call that is not
 * selected (HP_MPI_ENABLE_GROUPS, HP_MPI_EXCLUDE) only increments a per-thread counter.
 * Calls made from inside another measured MPI call (MPI implementations and tools
 * calling MPI) are neither measured nor counted.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_Events.h>

#include "adapters/mpi/mpi_event.h"
#include "adapters/mpi/mpi_adapter.h"
#include "adapters/mpi/mpi_comms.h"
#include "adapters/mpi/mpi_functions.h"
#include "adapters/mpi/mpi_plugins.h"
#include "adapters/mpi/mpi_selection.h"
#include "measurement/core/config.h"
#include "measurement/core/event.h"
#include "measurement/core/location.h"
#include "measurement/runtime/thread_attach.h"
#include "measurement/core/memory.h"
#include "measurement/core/region.h"
#include "measurement/runtime/runtime.h"
#include "measurement/sampling/sampling.h"
#include "measurement/waitstates/waitstates.h"
#include "util/compiler.h"

static _Atomic(hp_region *) *mpi_regions; /* one per function, NULL until first use */
static pthread_mutex_t define_lock = PTHREAD_MUTEX_INITIALIZER;

static HP_COLD hp_region *define_region(unsigned fn)
{
    pthread_mutex_lock(&define_lock);
    hp_region *r = atomic_load(&mpi_regions[fn]);
    if (r == NULL) {
        r = hp_region_define(hp_mpi_functions[fn].name, "", -1, HP_PARADIGM_MPI,
                             hp_mpi_functions[fn].role);
        atomic_store_explicit(&mpi_regions[fn], r, memory_order_release);
    }
    pthread_mutex_unlock(&define_lock);
    return r;
}

static inline hp_region *region_of(unsigned fn)
{
    hp_region *r = atomic_load_explicit(&mpi_regions[fn], memory_order_acquire);
    return likely(r != NULL) ? r : define_region(fn);
}

/* Inside the core: the arena is the sampling handler's too. */
static HP_COLD uint64_t *allocate_call_counts(hp_location *loc)
{
    hp_location_enter_core(loc);
    loc->call_counts = hp_arena_alloc(&loc->arena, hp_mpi_function_count * sizeof(uint64_t));
    hp_location_leave_core(loc);
    return loc->call_counts;
}

/* Unmeasured calls are frequent by design (excluded because they are): keep this path
 * short and out of the cold section. */
static inline void count_unmeasured(hp_location *loc, unsigned fn)
{
    uint64_t *counts = loc->call_counts;
    if (counts != NULL || (counts = allocate_call_counts(loc)) != NULL)
        counts[fn]++;
}

/* How a call of each function enters, from hp_mpi_measured, hp_mpi_unwind and
 * hp__mpi_plugin_selected (hp__mpi_modes_update), so that the common call reads one
 * byte: measured plainly, measured and unwinding its call path when the location
 * samples, or anything else (a plug-in selected it) that enter_any handles. All zero
 * (unmeasured) until mpi_setup has the regions array. */
enum { MODE_UNMEASURED = 0, MODE_PLAIN = 1, MODE_UNWINDS = 2, MODE_OTHER = 3 };
static unsigned char call_mode[HP_MPI_FN_COUNT];

void hp__mpi_modes_update(void)
{
    if (mpi_regions == NULL)
        return; /* no regions: every call stays unmeasured (enter_any) */
    for (unsigned fn = 0; fn < HP_MPI_FN_COUNT; fn++)
        call_mode[fn] = !hp_mpi_measured[fn]            ? MODE_UNMEASURED
                        : hp__mpi_plugin_selected[fn] ? MODE_OTHER
                        : hp_mpi_unwind[fn]           ? MODE_UNWINDS
                                                      : MODE_PLAIN;
}

/* The fields of f that every measured call reads (mpi_adapter.h): explicit stores, as
 * zeroing the whole frame costs a string instruction per call. */
static inline void frame_start(hp_mpi_frame *f, hp_location *loc, unsigned fn)
{
    f->loc = loc;
    f->fn = fn;
    f->trace = 0;
    f->bytes_sent = f->bytes_received = 0;
    f->messages_sent = f->messages_received = 0;
    f->path_anchor = NULL; /* path_counters is read only when this is set */
    f->root = -1;
    f->slot = NULL;
}

/* Before the region is entered, for a call that unwinds its call path (sampling) or
 * that a plug-in selected. Returns the node the region is entered under. Inside the
 * core. Inline, as enter_region is: each frame between the wrapper and the unwinder
 * is one more step of every unwind. */
static inline hp_cct_node *enter_extras_before(hp_location *loc, hp_mpi_frame *f,
                                                unsigned fn)
{
    if (loc->sampling != NULL && hp_mpi_unwind[fn] && !hp_location_switched_off(loc)) {
        f->path_anchor = loc->current;
        f->path_counters = 0;
        loc->current = hp_sampling_call_path(loc);
    }
    if (hp__mpi_plugin_selected[fn]) /* HP_PLUGINS, before the timestamp */
        hp__mpi_plugins_begin(f);
    return loc->current;
}

/* After the region of an unwound call was entered under leaf. */
static HP_COLD void enter_extras_after(hp_location *loc, hp_mpi_frame *f, hp_cct_node *leaf)
{
    if (loc->metrics != NULL && loc->current != NULL &&
        loc->current != leaf) { /* entered with a node: the counters were read */
        hp_cct_path_counters(leaf, f->path_anchor, loc->metrics->last, loc->metrics->n, -1);
        f->path_counters = 1;
    }
}

/* Any enter: the region under the unwound path or after the plug-ins, with counters,
 * trace, a new call-path node or a new stack chunk (hp_event_enter). */
static inline void enter_region(hp_location *loc, hp_mpi_frame *f, unsigned fn,
                                hp_region *r)
{
    hp_cct_node *leaf = NULL;
    if ((loc->sampling != NULL && hp_mpi_unwind[fn]) || hp__mpi_plugin_selected[fn])
        leaf = enter_extras_before(loc, f, fn);
    hp_event_enter(loc, r, (uintptr_t)r);
    if (f->path_anchor != NULL)
        enter_extras_after(loc, f, leaf);
}

/* Whether a call of mode enters without an unwind or a plug-in on loc. */
static inline bool mode_is_plain(const hp_location *loc, unsigned mode)
{
    return mode == MODE_PLAIN || (mode == MODE_UNWINDS && loc->sampling == NULL);
}

/* The common enter of a plain mode: no counters, no trace, room in the stack chunk, and
 * the region's node the one last entered below the current node (inside the core). */
static inline bool plain_enter(const hp_location *loc, const hp_region *r)
{
    const hp_cct_node *parent = loc->current;
    return loc->metrics == NULL && !loc->tracing && loc->sp != loc->stack_limit &&
           loc->depth < loc->depth_limit && loc->depth < loc->max_depth && !r->subtree &&
           parent != NULL && parent->last_entered != NULL &&
           parent->last_entered->region == r;
}

/* hp_event_enter for a plain_enter, without what calls out, so that the fast path needs
 * no saved registers: pushes the frame (its start is the caller's to set, last) and
 * notes it in f, which lets hp_mpi_exit take its fast path. */
static inline hp_frame *push_plain(hp_location *loc, hp_mpi_frame *f, hp_region *r)
{
    hp_frame *slot = loc->sp;
    hp_cct_node *node = loc->current->last_entered;
    node->visits++;
    slot->addr = (uintptr_t)r;
    slot->node = node;
    slot->parent = loc->current;
    loc->current = node;
    loc->sp = slot + 1;
    loc->depth++;
    f->slot = slot;
    return slot;
}

/* Every enter: measured or not, the thread's first, an unwind, a plug-in, a new node. */
static __attribute__((noinline)) int enter_any(hp_mpi_frame *f, unsigned fn)
{
    f->loc = NULL;
    hp_location *loc = hp_location_get();
    if (unlikely(loc == NULL || hp_location_ignores_events(loc) || loc->in_mpi ||
                 mpi_regions == NULL))
        return 0;
    if (!hp_mpi_measured[fn]) {
        count_unmeasured(loc, fn);
        return 0;
    }
    hp_region *r = region_of(fn);
    if (unlikely(r == NULL))
        return 0;
    hp_location_enter_core(loc);
    loc->in_mpi = true;
    frame_start(f, loc, fn);
    if (likely(mode_is_plain(loc, call_mode[fn]) && plain_enter(loc, r)))
        push_plain(loc, f, r)->start = hp_timer_now();
    else
        enter_region(loc, f, fn, r);
    hp_location_leave_core(loc);
    return 1;
}

/* The end of a plain enter without a TSC: the clock is a call. */
static __attribute__((noinline)) int stamp_clock(hp_location *loc, hp_frame *slot)
{
    slot->start = hp__timer_monotonic_now();
    hp_location_leave_core(loc);
    return 1;
}

/* The common measured call (plain mode, plain_enter) and the common unmeasured one are
 * handled here with tail calls only, so that this is a leaf without saved registers;
 * anything else goes to enter_any, which decides again from the start. */
int hp_mpi_enter(hp_mpi_frame *f, unsigned fn)
{
    hp_location *loc = hp__tls_location;
    if (unlikely(loc == NULL || hp_location_ignores_events(loc) || loc->in_mpi))
        return enter_any(f, fn);
    unsigned mode = call_mode[fn];
    if (unlikely(!mode_is_plain(loc, mode))) {
        if (mode != MODE_UNMEASURED || loc->call_counts == NULL)
            return enter_any(f, fn);
        loc->call_counts[fn]++;
        f->loc = NULL;
        return 0;
    }
    hp_region *r = atomic_load_explicit(&mpi_regions[fn], memory_order_acquire);
    if (unlikely(r == NULL))
        return enter_any(f, fn);
    hp_location_enter_core(loc);
    if (unlikely(!plain_enter(loc, r))) {
        hp_location_leave_core(loc);
        return enter_any(f, fn);
    }
    loc->in_mpi = true;
    frame_start(f, loc, fn);
    hp_frame *slot = push_plain(loc, f, r);
    if (unlikely(!hp_timer_read_tsc(&slot->start)))
        return stamp_clock(loc, slot);
    hp_location_leave_core(loc);
    return 1;
}

/* OTF2's collective operation of each function plus one (0 = none; OTF2's BARRIER is 0),
 * filled at start-up. */
static uint8_t *collective_ops;

static uint8_t collective_op_of(const char *name)
{
    static const struct {
        const char *name;
        OTF2_CollectiveOp op;
    } ops[] = {
        { "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER },
        { "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST },
        { "MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE },
        { "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE },
        { "MPI_Gather", OTF2_COLLECTIVE_OP_GATHER },
        { "MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER },
        { "MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER },
        { "MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL },
        { "MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV },
        { "MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV },
        { "MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV },
        { "MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV },
        { "MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW },
        { "MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
        { "MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
        { "MPI_Scan", OTF2_COLLECTIVE_OP_SCAN },
        { "MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN },
    };
    size_t n = strlen(name);
    if (n > 2 && strcmp(name + n - 2, "_c") == 0) /* large-count variants */
        n -= 2;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strlen(ops[i].name) == n && strncmp(ops[i].name, name, n) == 0)
            return (uint8_t)(ops[i].op + 1);
    /* Non-blocking variants: "MPI_Ibcast" is MPI_Bcast's operation. */
    if (n > 6 && strncmp(name, "MPI_I", 5) == 0 && name[5] >= 'a' && name[5] <= 'z') {
        char blocking[64];
        snprintf(blocking, sizeof(blocking), "MPI_%c%.*s", name[5] - 'a' + 'A', (int)(n - 6),
                 name + 6);
        return collective_op_of(blocking);
    }
    return 0;
}

unsigned hp_mpi_collective_op(unsigned fn)
{
    return collective_ops != NULL ? collective_ops[fn] : 0;
}

/* The local communicator id of the events (mpi_comms.h: 0 MPI_COMM_WORLD, 1
 * MPI_COMM_SELF, 2... the communicators the program created), translated into the
 * job's ids when the trace is written; UINT32_MAX (intercommunicators, communicators
 * the registry could not take) leaves the events out. */
static uint32_t trace_comm_id(MPI_Comm comm)
{
    return hp_mpi_comm_local_id(comm);
}

/* MpiIsend at the call's start, MpiIrecvRequest likewise (their completion events come
 * from the completing call, hp_mpi_trace_completion). */
static void trace_request_events(hp_trace_buffer *b, const hp_mpi_frame *f, uint32_t comm,
                                 uint64_t start)
{
    if (f->trace & HP_MPI_TRACE_ISEND) {
        hp_trace_payload p[2] = {
            { (uint64_t)(uint32_t)f->send_peer << 32 | (uint32_t)f->send_tag, f->bytes_sent },
            { f->request_id, 0 }
        };
        hp_trace_add_args(b, HP_TRACE_MPI_ISEND, comm, start, p, 2);
    }
    if (f->trace & HP_MPI_TRACE_IRECV_REQUEST) {
        hp_trace_payload p = { f->request_id, 0 };
        hp_trace_add_args(b, HP_TRACE_MPI_IRECV_REQUEST, 0, start, &p, 1);
    }
    if (f->trace & HP_MPI_TRACE_NBC_REQUEST) {
        hp_trace_payload p = { f->request_id, 0 };
        hp_trace_add_args(b, HP_TRACE_NBC_REQUEST, 0, start, &p, 1);
    }
}

/* What the call moved, into its call-path node. */
static inline void add_messages(hp_cct_node *node, const hp_mpi_frame *f)
{
    node->bytes_sent += f->bytes_sent;
    node->bytes_received += f->bytes_received;
    node->messages_sent += f->messages_sent;
    node->messages_received += f->messages_received;
}

/* The message and collective events of a measured call, between its Enter (at start)
 * and its Leave (at now), in time order. */
static HP_COLD void trace_mpi_events(hp_location *loc, const hp_mpi_frame *f, uint64_t start,
                                     uint64_t now)
{
    uint32_t comm = trace_comm_id(f->comm);
    if (comm == UINT32_MAX)
        return;
    hp_trace_buffer *b = &loc->trace;
    if (f->trace & HP_MPI_TRACE_SEND) {
        hp_trace_payload p = { (uint64_t)(uint32_t)f->send_peer << 32 | (uint32_t)f->send_tag,
                               f->bytes_sent };
        hp_trace_add_args(b, HP_TRACE_MPI_SEND, comm, start, &p, 1);
    }
    trace_request_events(b, f, comm, start);
    uint8_t op = collective_ops != NULL ? collective_ops[f->fn] : 0;
    if ((f->trace & HP_MPI_TRACE_COLL) && op != 0)
        hp_trace_add(b, HP_TRACE_COLL_BEGIN, comm, start);
    if (f->trace & HP_MPI_TRACE_RECV) {
        hp_trace_payload p = { (uint64_t)(uint32_t)f->recv_peer << 32 | (uint32_t)f->recv_tag,
                               f->bytes_received };
        hp_trace_add_args(b, HP_TRACE_MPI_RECV, comm, now, &p, 1);
    }
    if ((f->trace & HP_MPI_TRACE_COLL) && op != 0) {
        uint32_t root = f->root >= 0 ? (uint32_t)f->root : OTF2_UNDEFINED_UINT32;
        hp_trace_payload p[2] = { { (uint64_t)(op - 1) << 32 | root, f->bytes_sent },
                                  { f->bytes_received, 0 } };
        hp_trace_add_args(b, HP_TRACE_COLL_END, comm, now, p, 2);
    }
}

/* What a traced MPI call appends at its end, at most: its message, request and
 * collective events (16 slots), counter values (2 each), its Leave, and a flush region
 * (hp_trace_reserve). */
enum { MPI_LEAVE_SLOTS = 16 + 2 * HP_METRICS_MAX + 1 + 2 };

/* Leaves the MPI region of f at now (inside the core), whatever the call carried. */
static HP_COLD void leave_mpi_region(hp_location *loc, const hp_mpi_frame *f, uint64_t now)
{
    uint64_t flush[2] = { 0, 0 };
    uintptr_t addr = (uintptr_t)atomic_load_explicit(&mpi_regions[f->fn],
                                                     memory_order_relaxed);
    uint64_t ticks = 0;
    if (unlikely(!hp_event_exit_matches(loc, addr))) {
        hp__event_exit_mismatch(loc, addr, now);
    } else {
        hp_cct_node *node = loc->sp[-1].node;
        ticks = now - loc->sp[-1].start;
        if (loc->tracing && f->trace != 0 && node != NULL) {
            hp_trace_reserve(&loc->trace, MPI_LEAVE_SLOTS, flush);
            trace_mpi_events(loc, f, loc->sp[-1].start, now);
        }
        if (node != NULL)
            add_messages(node, f);
        hp_event_pop(loc, now);
        if (unlikely(flush[1] != 0)) /* after the call's events: it happened after them */
            hp_trace_add_flush(&loc->trace, flush[0], flush[1]);
    }
    loc->mpi_ticks += ticks;
    if (f->path_anchor != NULL) { /* the unwound path below the anchor */
        hp_cct_path_add(loc->current, f->path_anchor, ticks);
        if (f->path_counters)
            hp_cct_path_counters(loc->current, f->path_anchor, loc->metrics->last,
                                      loc->metrics->n, 1);
        loc->current = f->path_anchor;
    }
    if (hp__mpi_plugin_selected[f->fn]) /* HP_PLUGINS, after the timestamp */
        hp__mpi_plugins_end(f);
}

/* Every exit that the fast one does not take: the frame was not pushed by a plain
 * enter, or it is no longer on top, or events are ignored now, or the pop ends the
 * outermost frame while subtrees are selected or leaves the stack chunk. */
static __attribute__((noinline)) void exit_any(hp_mpi_frame *f, uint64_t now)
{
    hp_location *loc = f->loc;
    if (loc == NULL)
        return;
    hp_location_enter_core(loc);
    if (!hp_location_ignores_events(loc))
        leave_mpi_region(loc, f, now);
    else if (hp__mpi_plugin_selected[f->fn])
        hp__mpi_plugins_end(f);
    loc->in_mpi = false;
    hp_location_leave_core(loc);
}

/* The exit of a frame that hp_mpi_enter pushed plainly (f->slot): it is still on top
 * (nothing left frames behind or popped it), and popping it stays in the stack chunk
 * or ends the outermost frame with no subtree selection to switch off. Then the exit is
 * hp_event_pop without what calls out. A plain enter left out counters, trace, unwind
 * and plug-ins, so nothing of them needs checking here. messages: add what the byte
 * helpers counted in f to the node (false for functions that have no helpers). */
static inline void exit_at(hp_mpi_frame *f, uint64_t now, bool messages)
{
    hp_frame *top = f->slot;
    hp_location *loc = f->loc;
    if (unlikely(top == NULL)) {
        exit_any(f, now);
        return;
    }
    hp_location_enter_core(loc);
    if (unlikely(loc->sp != top + 1 || hp_location_ignores_events(loc) ||
                 loc->dropped_depth != 0 ||
                 (top == loc->stack_base && (loc->depth != 1 || hp_subtree_selecting())))) {
        exit_any(f, now);
        return;
    }
    hp_cct_node *node = top->node;
    uint64_t ticks = now - top->start;
    loc->sp = top;
    loc->depth--;
    loc->mpi_ticks += ticks;
    if (messages)
        add_messages(node, f);
    hp_cct_visit_end(node, ticks);
    loc->current = top->parent;
    loc->in_mpi = false;
    hp_location_leave_core(loc);
}

/* The exits of calls that kept wait-state records (mpi_waitstates.h): the exit stamp
 * closes them, so that they read no clock of their own. Out of line, so that the
 * common exit stays a leaf. */
static __attribute__((noinline)) void exit_closing(hp_mpi_frame *f, uint64_t now)
{
    if (f->trace & HP_MPI_TRACE_WS_OPEN0)
        hp_ws_set_exit(f->ws_open[0], now);
    if (f->trace & HP_MPI_TRACE_WS_OPEN1)
        hp_ws_set_exit(f->ws_open[1], now);
    f->trace &= ~(unsigned)HP_MPI_TRACE_WS;
    exit_at(f, now, true);
}

/* The exits without a TSC: the clock is a call, kept out of the fast path. */
static __attribute__((noinline)) void exit_clock(hp_mpi_frame *f, bool messages)
{
    uint64_t now = hp__timer_monotonic_now();
    if (messages && unlikely(f->trace & HP_MPI_TRACE_WS))
        exit_closing(f, now);
    else
        exit_at(f, now, messages);
}

/* The exit's timestamp first, then the pop. Only functions with helpers (messages) keep
 * wait-state records: the path of those without has no test for them. */
static inline void exit_now(hp_mpi_frame *f, bool messages)
{
    uint64_t now;
    if (unlikely(!hp_timer_read_tsc(&now)))
        exit_clock(f, messages);
    else if (messages && unlikely(f->trace & HP_MPI_TRACE_WS))
        exit_closing(f, now);
    else
        exit_at(f, now, messages);
}

void hp_mpi_exit(hp_mpi_frame *f)
{
    exit_now(f, true);
}

void hp_mpi_exit_no_bytes(hp_mpi_frame *f)
{
    exit_now(f, false);
}

/* Reads the MPI selection at start-up (starting measurement first if the runtime's own
 * constructor has not run yet): a bad group or function name stops the program before
 * main, like every other bad HP_* value. */
__attribute__((constructor)) static void mpi_setup(void)
{
    if (!hp_runtime_ensure_started())
        return;
#ifdef HP_MPI_PRELOAD
    hp_runtime_require_mpi();
#endif
    char err[1024];
    if (hp_mpi_selection_init(hp_cfg.mpi_enable_groups, hp_cfg.mpi_exclude, err,
                              sizeof(err)) < 0 ||
        hp_mpi_unwind_init(hp_cfg.mpi_unwind_exclude, err, sizeof(err)) < 0)
        hp_runtime_stop_on_bad_input("invalid configuration", err);
    const char **names = hp_memory_pages(hp_mpi_function_count * sizeof(char *));
    void *regions = hp_memory_pages(hp_mpi_function_count * sizeof(hp_region *));
    if (names == NULL || regions == NULL)
        return; /* budget too small for MPI: calls go unmeasured */
    collective_ops = hp_memory_pages(hp_mpi_function_count);
    for (unsigned i = 0; i < hp_mpi_function_count; i++) {
        names[i] = hp_mpi_functions[i].name;
        if (collective_ops != NULL)
            collective_ops[i] = collective_op_of(names[i]);
    }
    hp_location_set_call_names(names, hp_mpi_function_count);
    mpi_regions = regions;
    hp__mpi_modes_update();
}
