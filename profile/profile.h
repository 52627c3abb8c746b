/*
 * The unified profile: what finalize hands to the writers (Cube4, summary.txt).
 *
 * It is a plain, flat description of one experiment after the call trees of all
 * locations (threads, later ranks) have been merged: region definitions, one call tree
 * whose nodes are numbered in depth-first pre-order, the system tree, and a set of
 * metrics with one value per (call-tree node, location). Writers only read it; they never
 * see raw events or per-thread structures.
 *
 * Invariants (the builder guarantees them, writers may rely on them):
 *  - cnodes[0] is the single root (parent == HP_PROFILE_NO_PARENT); for every other
 *    node parent < its own index, and nodes are in depth-first pre-order: the children of
 *    a node follow it, each child's subtree contiguous, children in increasing index;
 *  - every cnode's region < nregions;
 *  - locations are numbered 0..nlocations-1 in the order processes then threads, each
 *    location's process < nprocesses, each process's node < nnodes;
 *  - a metric's values are stored row-major: values[cnode * nlocations + location];
 *    an INCLUSIVE metric stores inclusive values (subtree included), an EXCLUSIVE metric
 *    exclusive ones.
 */
#ifndef HP_PROFILE_PROFILE_H
#define HP_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_PROFILE_NO_PARENT UINT32_MAX

/* The Cube attribute that carries hp_profile.wait_states. */
#define HP_CUBE_ATTR_WAIT_STATES "hpmeasure::wait_states"

/* The Cube attribute that carries hp_profile.interrupted. */
#define HP_CUBE_ATTR_INTERRUPTED "hpmeasure::interrupted"

typedef struct hp_profile_region {
    const char *name;         /* displayed (demangled) name */
    const char *mangled_name; /* equal to name when there is no other */
    const char *file;         /* source file, "" when unknown */
    int begin_line;           /* -1 when unknown */
    int end_line;             /* -1 when unknown */
    const char *paradigm;     /* Cube paradigm: "compiler", "user", "mpi", "measurement" */
    const char *role;         /* Cube role: "function", "artificial", ... */
    bool demoted;             /* switched off during the run by the overhead budget (in
                                 some process) */
} hp_profile_region;

typedef struct hp_profile_cnode {
    uint32_t parent; /* HP_PROFILE_NO_PARENT for the root */
    uint32_t region;
} hp_profile_cnode;

typedef struct hp_profile_node {
    const char *name; /* host name */
} hp_profile_node;

typedef struct hp_profile_process {
    int rank;      /* MPI rank, 0 without MPI */
    uint32_t node; /* index into nodes */
} hp_profile_process;

typedef struct hp_profile_location {
    const char *name; /* "Master thread", "Pthread 1", ... */
    int thread;       /* thread number within its process, 0 = master */
    uint32_t process; /* index into processes */
} hp_profile_location;

typedef enum hp_metric_dtype {
    HP_DTYPE_UINT64,    /* uint64_t values */
    HP_DTYPE_DOUBLE,    /* double values */
    HP_DTYPE_MINDOUBLE, /* double values aggregated with min */
    HP_DTYPE_MAXDOUBLE  /* double values aggregated with max */
} hp_metric_dtype;

typedef enum hp_metric_kind {
    HP_METRIC_EXCLUSIVE,
    HP_METRIC_INCLUSIVE
} hp_metric_kind;

/* Counters (metrics.h: perf events, getrusage fields, PAPI) are the only metrics that are
 * INCLUSIVE with dtype UINT64; the counters table and the trace writer find them so. */
typedef struct hp_profile_metric {
    const char *uniq_name; /* "time", "visits", ... ([A-Za-z0-9_]) */
    const char *disp_name; /* "Time", "Visits", ... */
    const char *uom;       /* "sec", "occ", "bytes" */
    const char *descr;
    hp_metric_dtype dtype;
    hp_metric_kind kind;
    const void *values; /* ncnodes * nlocations values of dtype, row-major */
    /* uniq_name of the parent in the metric tree, NULL for a root; a parent comes
     * before its children in the metrics array. Cube stores a parent's value including
     * its children's (the wait states under time > mpi, doc/wait-states.md). */
    const char *parent;
} hp_profile_metric;

/* Calls that were counted but not measured (e.g. MPI functions left out by
 * HP_MPI_ENABLE_GROUPS / HP_MPI_EXCLUDE): one entry per (function, process) with calls. */
typedef struct hp_profile_call_count {
    const char *name;
    uint32_t process; /* index into processes */
    uint64_t calls;
} hp_profile_call_count;

/* Sampling statistics of the experiment (sums over locations and processes; all zero
 * when nothing was sampled). Every field is a uint64_t: they are summed field by field. */
enum { HP_PROFILE_SAMPLING_BUCKETS = 12 };
typedef struct hp_profile_sampling {
    uint64_t frequency;   /* Hz per thread (the largest of the processes) */
    uint64_t samples;     /* timer signals that reached measured threads */
    uint64_t attributed;  /* unwound and added to the call tree */
    uint64_t in_mpi;      /* ignored: inside MPI */
    uint64_t busy;        /* counted, not unwound: inside the measurement core */
    uint64_t throttled;   /* handlers slower than half an interval: samples skipped after */
    uint64_t failed;      /* failed or truncated unwinds (UNWIND FAILED) */
    uint64_t unanchored;  /* instrumented caller not on the stack: time left with it */
    uint64_t mpi_unwinds; /* MPI calls whose call path was unwound */
    uint64_t held;        /* signals held back by blocking calls, sampled at their end */
    uint64_t thunks_set;     /* HP_UNWIND_THUNKS: return addresses replaced by the thunk */
    uint64_t thunk_prefixes; /* unwinds that stopped at a thunk and reused its prefix */
    uint64_t walked_frames;  /* frames the thunk-aware unwinds stepped through */
    /* effective sample intervals in tenths of the nominal one: [0,10%) ... [100,110%),
       then 110% and more */
    uint64_t histogram[HP_PROFILE_SAMPLING_BUCKETS];
} hp_profile_sampling;

/* What the compiler instrumented and what its probes cost (overhead.h). Counts of
 * functions come from code built with the GCC plug-in (the largest of the processes, which
 * usually run the same program); the rest sums over processes. All zero when nothing is
 * compiler-instrumented. */
typedef struct hp_profile_instrumentation {
    uint64_t units;              /* translation units built with the plug-in */
    uint64_t instrumented;       /* functions given hooks */
    uint64_t skipped_inline;     /* left out: declared inline */
    uint64_t skipped_artificial; /* left out: compiler-generated */
    uint64_t skipped_system;     /* left out: defined in system headers */
    uint64_t filtered;           /* left out by the compile-time filter */
    uint64_t budget_percent;     /* HP_OVERHEAD_BUDGET (0 = off) */
    uint64_t probe_ps;           /* calibrated enter/exit cost in picoseconds (largest) */
    uint64_t probe_visits;       /* visits of compiler-instrumented regions (sum) */
    uint64_t measured_ns;        /* time of every location's root (sum) */
    uint64_t hooks;              /* enum hp_profile_hooks: the hooks without the plug-in */
} hp_profile_instrumentation;

/* Which function hooks a program without the plug-in has (the last word of the note;
 * profiles written before it had none, which reads as HP_HOOKS_GCC). */
enum hp_profile_hooks {
    HP_HOOKS_GCC = 0,                /* -finstrument-functions: every function */
    HP_HOOKS_CLANG_AFTER_INLINING = 1 /* clang's -finstrument-functions-after-inlining */
};

/* Cube anchor attributes that carry the instrumentation note: the fields above as decimal
 * numbers in order, and the mangled names of demoted regions, separated by spaces. */
#define HP_CUBE_ATTR_INSTRUMENTATION "hpmeasure::instrumentation"
#define HP_CUBE_ATTR_DEMOTED "hpmeasure::demoted"
/* The Cube attribute that carries hp_profile.fallback_units. */
#define HP_CUBE_ATTR_FALLBACK "hpmeasure::fallback"

typedef struct hp_profile {
    const char *creator;      /* e.g. "hpmeasure 0.1.0" */
    const char *machine_name; /* system tree root, e.g. "Linux" */

    const hp_profile_region *regions;
    size_t nregions;
    const hp_profile_cnode *cnodes;
    size_t ncnodes;

    const hp_profile_node *nodes;
    size_t nnodes;
    const hp_profile_process *processes;
    size_t nprocesses;
    const hp_profile_location *locations;
    size_t nlocations;

    const hp_profile_metric *metrics;
    size_t nmetrics;

    const hp_profile_call_count *unmeasured; /* may be NULL when nunmeasured == 0 */
    size_t nunmeasured;

    hp_profile_sampling sampling;
    hp_profile_instrumentation instrumentation;

    /* NULL or "" for a complete run; else why it was cut short, e.g. "interrupted by
     * signal 15 (SIGTERM) at 2.500 s" (a Cube attribute, shown by the reports). */
    const char *interrupted;

    /* NULL or ""; else the translation units that hp-instrument compiled again after
     * the GCC plug-in failed on them, one line each: "file: used instead (what failed)"
     * (a last line may say how many more there were). */
    const char *fallback_units;

    /* NULL or ""; else what the wait-state analysis covered (HP_WAIT_STATES), e.g.
     * "100.0% of 40 communicating MPI calls kept ..." (a Cube attribute). */
    const char *wait_states;
} hp_profile;

/* A count held in a double (sums of visits, values read from a file) as a uint64_t,
 * rounded: NaN and negative values are 0, values beyond UINT64_MAX are UINT64_MAX. A
 * plain cast of such values is undefined, and a damaged profile can hold any of them. */
static inline uint64_t hp_profile_count(double v)
{
    if (!(v > 0))
        return 0;
    return v + 0.5 < 18446744073709551616.0 ? (uint64_t)(v + 0.5) : UINT64_MAX;
}

/* The metric called name, or NULL (profile.c). */
const hp_profile_metric *hp_profile_find_metric(const hp_profile *p, const char *name);

#endif
