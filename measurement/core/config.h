/*
 * Configuration: the HP_* environment variables, read once at start-up.
 *
 * Every variable is described once, in the table in config.c (name, type, default,
 * meaning); parsing, validation, `hp-info config-vars` and the experiment's hp.config are
 * all generated from that table. A bad value is reported with the variable, the value and
 * the accepted forms; the caller then stops the program before anything is measured. A
 * name that starts with HP_ but has no row is named as a likely typo, with the closest row.
 */
#ifndef HP_MEASUREMENT_CONFIG_H
#define HP_MEASUREMENT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum hp_timer_kind {
    HP_TIMER_TSC,
    HP_TIMER_MONOTONIC
} hp_timer_kind;

typedef enum hp_thread_locations {
    HP_THREAD_LOCATIONS_REUSE, /* a thread that starts takes over an ended thread's */
    HP_THREAD_LOCATIONS_EACH   /* one location per thread */
} hp_thread_locations;

typedef enum hp_recursion {
    HP_RECURSION_KEEP,    /* a call path per recursion level */
    HP_RECURSION_COLLAPSE /* recursive calls fold into their outermost call's node */
} hp_recursion;

typedef struct hp_config {
    bool enable_profiling;
    bool enable_tracing;
    bool wait_states;                /* HP_WAIT_STATES (MPI jobs) */
    char experiment_directory[4096]; /* "" = default name */
    char filtering_file[4096];       /* "" = no filter */
    uint64_t total_memory;           /* bytes */
    uint64_t trace_buffer;           /* bytes per location, 0 = a quarter of total_memory */
    bool trace_adaptive;             /* HP_TRACE_ADAPTIVE: trace_bins.h instead of flushes */
    bool trace_adaptive_set;         /* HP_TRACE_ADAPTIVE given: otherwise it follows sampling */
    uint64_t trace_event_share;      /* HP_TRACE_EVENT_SHARE: percent of the bins for events */
    hp_timer_kind timer;
    uint64_t sampling_frequency;     /* Hz, 0 = off */
    uint64_t overhead_budget;        /* percent, 0 = off */
    uint64_t profiling_max_depth;    /* call path depth recorded, 0 = no limit */
    hp_recursion profiling_recursion;
    char select_subtrees[2048];      /* HP_SELECT_SUBTREES patterns, "" = all */
    char exclude_subtrees[2048];     /* HP_EXCLUDE_SUBTREES patterns, "" = none */
    hp_thread_locations thread_locations;
    char mpi_unwind_exclude[2048];   /* MPI functions that do not unwind when sampling */
    bool unwind_thunks;
    char mpi_enable_groups[512];
    char mpi_exclude[2048];
    char metric_papi[1024];
    char metric_perf[1024];
    char metric_rusage[1024];
    char finalize_signals[256];      /* HP_FINALIZE_SIGNALS (signal_names.h syntax) */
    char dump_signal[32];            /* HP_DUMP_SIGNAL, "" = none */
    char site_log[4096];             /* HP_SITE_LOG, "" = none (site_log.h) */
    char plugins[4096];              /* HP_PLUGINS, comma-separated paths, "" = none */
    int verbose;
} hp_config;

/* The configuration in force (valid after hp_config_load succeeded). */
extern hp_config hp_cfg;

/* Reads every HP_* variable into hp_cfg. Returns 0, or -1 after writing one message per
 * bad value (variable, value, accepted forms) into err. getenv_fn is getenv normally; tests
 * pass their own. */
int hp_config_load(const char *(*getenv_fn)(const char *), char *err, size_t errlen);

/* Names every variable of env (a NULL-terminated NAME=value array, like environ) that
 * starts with HP_ but is neither a configuration variable nor one of the other tools'
 * (hp-instrument, hp-run, the example plug-ins), one line each into out, with the closest
 * configuration variable when it looks like a typo of one. Returns how many. */
int hp_config_check_names(char *const *env, char *out, size_t outlen);

/* Prints every variable with its type, default and meaning (hp-info config-vars). */
void hp_config_print_help(FILE *out);

/* Prints the effective configuration as NAME=value lines (the experiment's hp.config). */
void hp_config_print_effective(FILE *out);

/* Parsers, exposed for unit tests. Each returns 0 or -1. */
int hp_config_parse_bool(const char *s, bool *out);
int hp_config_parse_size(const char *s, uint64_t *out);
int hp_config_parse_uint(const char *s, uint64_t *out);

#endif
