/*
 * Counters per call path: the framework behind HP_METRIC_PERF, HP_METRIC_RUSAGE and
 * HP_METRIC_PAPI.
 *
 * At start-up the configured names are resolved once per process, in the order perf,
 * rusage, PAPI: a name that does not exist stops the program (like every bad HP_* value);
 * a counter that exists but cannot be opened here (no PMU, perf_event_paranoid, ...) is
 * reported once on stderr and in summary.txt, and left out. The counters that remain are
 * the same for every thread, so every call-tree node carries a dense vector of them.
 *
 * Per thread, each source is opened when the thread's location is created and read with
 * one system call (perf: one read() of the whole group; rusage: one getrusage; PAPI:
 * PAPI_read). Values are accumulated per node without storing anything per frame: an
 * enter subtracts the current values from the node, the matching exit adds them, so a
 * closed node holds the sum of its visits' differences (inclusive). A node has at most one
 * open visit (recursion creates a new node per level). Every value read is stored with a
 * bias of 2^62 (HP_METRICS_BIAS), which cancels out between an enter and its exit, so a
 * node whose visit is still open holds a negative value (as int64) even when nothing was
 * counted outside its visits: the snapshot and profile builders add the location's last
 * values to such nodes (hp_metrics_value).
 *
 * A failing read marks its source failed on that thread; its values stay at the last
 * good read, so later differences are zero and nothing open goes negative.
 */
#ifndef HP_MEASUREMENT_METRICS_H
#define HP_MEASUREMENT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "measurement/trace/trace_buffer.h"

enum { HP_METRICS_MAX = 16 };

/* Added to every value read (see above); counters stay far below it. */
#define HP_METRICS_BIAS (UINT64_C(1) << 62)

typedef enum hp_metric_source {
    HP_METRIC_SOURCE_PERF,
    HP_METRIC_SOURCE_RUSAGE,
    HP_METRIC_SOURCE_PAPI,
    HP_METRIC_SOURCES
} hp_metric_source;

/* One configured counter. */
typedef struct hp_metric_info {
    hp_metric_source source;
    char name[64];       /* as configured: "page-faults", "ru_minflt", "PAPI_TOT_INS" */
    char uniq_name[80];  /* the Cube metric: [A-Za-z0-9_] */
    const char *unit;    /* Cube unit of measure: "occ", "usec", "nsec", "KiB" */
    const char *descr;
    uint64_t code;       /* source-specific: perf (type << 32 | config), rusage field */
} hp_metric_info;

/* Outcome of resolving one name in a source. */
enum {
    HP_METRIC_OK = 0,
    HP_METRIC_UNKNOWN = -1,    /* no such counter: a configuration error */
    HP_METRIC_UNAVAILABLE = -2 /* exists but cannot be opened here: left out */
};

/* A source's per-thread state (file descriptors, PAPI event set). */
typedef struct hp_metric_handle {
    intptr_t id;
    int fd[HP_METRICS_MAX];
    unsigned char slot[HP_METRICS_MAX + 8]; /* source-specific */
} hp_metric_handle;

/* What each source (adapters/{perf,rusage,papi}/metric_*.c) provides and registers with
 * hp_metrics_register. read fills n values and returns 0, or -1 when it failed. */
typedef struct hp_metric_source_ops {
    const char *variable; /* "HP_METRIC_PERF" */
    const char *what;     /* "perf events" */
    /* Fills info (all but source and name) or says why not. */
    int (*resolve)(const char *name, hp_metric_info *info, char *why, size_t whylen);
    /* Opens the n counters of infos for the calling thread. Returns 0, or -1 with why. */
    int (*open)(const hp_metric_info *infos, unsigned n, hp_metric_handle *h, char *why,
                size_t whylen);
    int (*read)(const hp_metric_handle *h, unsigned n, uint64_t *values);
    void (*close)(hp_metric_handle *h);
    /* Lists what this machine offers (hp-info metrics). */
    void (*list)(FILE *out);
    /* What the name "all" stands for (NULL-terminated), or NULL when it is not accepted. */
    const char *const *all;
} hp_metric_source_ops;

extern const hp_metric_source_ops hp__metric_perf_ops;
extern const hp_metric_source_ops hp__metric_rusage_ops;
extern const hp_metric_source_ops hp__metric_papi_ops;

/* One source as its adapter file declares it (HP_METRIC_SOURCE_REGISTER). Aligned to
 * its size, so that the linker lays the entries out as an array with no gaps. */
typedef struct __attribute__((aligned(16))) hp_metric_source_entry {
    hp_metric_source source;
    const hp_metric_source_ops *ops;
} hp_metric_source_entry;

/* The core knows the sources only through a table the adapters fill: folders call
 * downwards (doc/architecture.md), so the core never names an adapter. Each source's
 * file puts an entry in the linker section hp_metric_sources, which the core reads
 * (__start_/__stop_hp_metric_sources) when it resolves HP_METRIC_*: static data, no
 * constructor, so it is there even when another library's constructor calls
 * instrumented code and starts measurement before ours ran (runtime.h). */
#define HP_METRIC_SOURCE_REGISTER(s, ops)                                              \
    __attribute__((used, section("hp_metric_sources"))) static const                  \
        hp_metric_source_entry metric_source_entry = { (s), &(ops) };

/* Sets a source by hand, in place of the linked entry (ops NULL: none): programs that link
 * the core statically and pull no source in by itself (hp-info, unit tests). Not
 * thread-safe: for start-up only. */
void hp_metrics_register(hp_metric_source s, const hp_metric_source_ops *ops);

/* Resolves the three comma-separated lists (NULL or "" = none). Returns 0, or -1 with a
 * message naming the variable, the bad name and `hp-info metrics` in err. Counters that
 * cannot be opened are reported on stderr (once) and kept for hp_metrics_notes. */
int hp_metrics_setup(const char *perf, const char *rusage, const char *papi, char *err,
                     size_t errlen);

/* The counters in use (the same for every thread), and their description. */
unsigned hp_metrics_count(void);
const hp_metric_info *hp_metrics_info(unsigned i);

/* Lines for summary.txt about counters that were left out or stopped (NULL after the
 * last): "counter instructions (HP_METRIC_PERF) not recorded: ...". */
const char *hp_metrics_note(unsigned i);

/* hp-info metrics: what each source offers here. */
void hp_metrics_list(FILE *out);

/* Per-thread state. */
typedef struct hp_metrics {
    hp_metric_handle handle[HP_METRIC_SOURCES];
    unsigned first[HP_METRIC_SOURCES]; /* index of the source's first value */
    unsigned count[HP_METRIC_SOURCES]; /* its number of values (0 = not used/failed) */
    unsigned n;                        /* all values */
    uint64_t last[HP_METRICS_MAX];     /* values of the last read, plus HP_METRICS_BIAS */
} hp_metrics;

/* Opens the counters for the calling thread in m. Returns false when no counter is
 * configured (m is then unused). Sources that cannot be opened on this thread are noted. */
bool hp_metrics_thread_start(hp_metrics *m);
void hp_metrics_thread_stop(hp_metrics *m);

/* Reads every source once into m->last (one system call per configured source). */
void hp_metrics_read(hp_metrics *m);

/* The hot path's calls (only made when counters are configured): read once, then
 * subtract from (enter) or add to (exit) the node's counters. */
void hp__metrics_enter(hp_metrics *m, uint64_t *counters);
void hp__metrics_exit(hp_metrics *m, uint64_t *counters);

/* Ends a node's open visit at the last values read (closing a location). */
static inline void hp_metrics_add_last(const hp_metrics *m, uint64_t *counters)
{
    for (unsigned i = 0; i < m->n; i++)
        counters[i] += m->last[i];
}

/* With tracing: one metric event per counter at time, with the last values read.
 * Returns the time they were recorded with (later after a flush: see hp_trace_add). */
uint64_t hp_metrics_trace(const hp_metrics *m, hp_trace_buffer *b, uint64_t time);

/* The value a node's counter i holds for a profile: as stored when its visits are closed,
 * plus the location's last values while a visit is open (see above). */
static inline uint64_t hp_metrics_value(const hp_metrics *m, const uint64_t *counters,
                                        unsigned i)
{
    uint64_t v = counters[i];
    return (int64_t)v < 0 ? v + m->last[i] : v;
}

#endif
