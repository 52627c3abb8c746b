/*
 * The HP_* configuration variables: one table describes each variable, and everything
 * else (parsing with validation, the help text of `hp-info config-vars`, the effective
 * configuration written to hp.config) is driven by that table, so a new variable is one
 * new row.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "signal_names.h"
#include "util/escape.h"
#include "util/log.h"

hp_config hp_cfg;

typedef enum var_type {
    VAR_BOOL,
    VAR_SIZE,
    VAR_UINT,
    VAR_STRING,
    VAR_CHOICE /* one of the words in choice_vars, stored as its index (an enum) */
} var_type;

typedef struct config_var {
    const char *name;
    var_type type;
    const char *default_value;
    size_t offset; /* into hp_config */
    size_t size;   /* of the field, for strings */
    const char *help;
} config_var;

/* What `hp-info config-vars` shows as the default where default_value is only the
 * starting point of a rule applied later (runtime.c sets HP_TRACE_ADAPTIVE from sampling
 * when the variable is not set). */
static const struct {
    const char *name;
    const char *shown;
} rule_defaults[] = {
    { "HP_TRACE_ADAPTIVE", "true when sampling is on" },
};

/* The words a VAR_CHOICE variable accepts, separated by '|'; a word's index is the value
 * of the enum it is stored in. */
static const struct {
    const char *name;
    const char *choices;
} choice_vars[] = {
    { "HP_TIMER", "tsc|monotonic" },
    { "HP_THREAD_LOCATIONS", "reuse|each" },
    { "HP_PROFILING_RECURSION", "keep|collapse" },
};

static const char *shown_default_of(const config_var *v)
{
    for (size_t i = 0; i < sizeof(rule_defaults) / sizeof(rule_defaults[0]); i++)
        if (strcmp(rule_defaults[i].name, v->name) == 0)
            return rule_defaults[i].shown;
    return v->default_value[0] ? v->default_value : "(empty)";
}

static const char *choices_of(const config_var *v)
{
    for (size_t i = 0; i < sizeof(choice_vars) / sizeof(choice_vars[0]); i++)
        if (strcmp(choice_vars[i].name, v->name) == 0)
            return choice_vars[i].choices;
    return "";
}

#define FIELD(f) offsetof(hp_config, f), sizeof(((hp_config *)0)->f)

static const config_var config_vars[] = {
    { "HP_ENABLE_PROFILING", VAR_BOOL, "true", FIELD(enable_profiling),
      "Write a call-path profile (profile.cubex, summary.txt)." },
    { "HP_ENABLE_TRACING", VAR_BOOL, "false", FIELD(enable_tracing),
      "Also write an OTF2 trace (traces.otf2) of every measured region's enter and leave: "
      "Enter/Leave events, or with sampling on calling-context events over the samples' "
      "calling-context tree; see doc/tracing.md." },
    { "HP_WAIT_STATES", VAR_BOOL, "true", FIELD(wait_states),
      "MPI jobs: keep a 32-byte record of every point-to-point message end and blocking "
      "collective (at most half of HP_TOTAL_MEMORY) and compute Scalasca's wait states "
      "(Late Sender, Late Receiver, Wait at N x N, ...) at MPI_Finalize, with no trace: "
      "Cube metrics under time > mpi and the table \"waiting time by cause\" of "
      "summary.txt. Must be the same on every rank. See doc/wait-states.md." },
    { "HP_EXPERIMENT_DIRECTORY", VAR_STRING, "", FIELD(experiment_directory),
      "Experiment directory; empty = hp-<exe>-<YYYYMMDD_HHMMSS>. An existing directory is "
      "never overwritten: a suffix -1, -2, ... is added." },
    { "HP_FILTERING_FILE", VAR_STRING, "", FIELD(filtering_file),
      "Score-P-compatible filter file; empty = no filter." },
    { "HP_TOTAL_MEMORY", VAR_SIZE, "16M", FIELD(total_memory),
      "Measurement memory per process (K, M, G suffixes; at least 256K). When it is used up, "
      "measurement stops growing and the output says so. With tracing, a quarter of it is "
      "each location's trace buffer (flushed to disk when full)." },
    { "HP_TRACE_BUFFER", VAR_SIZE, "0", FIELD(trace_buffer),
      "With tracing: the trace buffer of each location, taken from HP_TOTAL_MEMORY "
      "(K, M, G suffixes); 0 = a quarter of HP_TOTAL_MEMORY. At least 256K, at most half "
      "of HP_TOTAL_MEMORY. See doc/tracing.md." },
    { "HP_TRACE_ADAPTIVE", VAR_BOOL, "true", FIELD(trace_adaptive),
      "With tracing: true keeps the whole run in the trace buffer without flushing: the "
      "buffer is cut into bins, samples are stored by level, and when it is full every "
      "second sample is dropped and the sampling frequency halved; events (MPI and regions) "
      "stop when they fill their share of the buffer (HP_TRACE_EVENT_SHARE, marked in the "
      "trace), while samples go on to the end. false: "
      "a full buffer is flushed to a file (marked in the trace). Not set, it is true when "
      "sampling is on (HP_SAMPLING_FREQUENCY > 0) and false otherwise. See doc/tracing.md." },
    { "HP_TRACE_EVENT_SHARE", VAR_UINT, "50", FIELD(trace_event_share),
      "With HP_TRACE_ADAPTIVE=true: the percentage of the trace buffer that events (MPI and "
      "regions) may fill before they stop (1 to 100); the rest is kept for samples. "
      "See doc/tracing.md." },
    { "HP_TIMER", VAR_CHOICE, "tsc", FIELD(timer),
      "Timer: tsc (the CPU's invariant time-stamp counter; falls back to monotonic when the "
      "CPU has none) or monotonic (clock_gettime)." },
    { "HP_SAMPLING_FREQUENCY", VAR_UINT, "0", FIELD(sampling_frequency),
      "Timer sampling per thread in Hz (wall-clock), 0 = off, at most 20000. Default 0, "
      "but 1000 for programs built with hp-instrument --nocompiler and run by hp-run. With "
      "HP_TRACE_ADAPTIVE=true the start frequency, halved whenever the trace buffer is "
      "full. See doc/sampling.md." },
    { "HP_PROFILING_MAX_DEPTH", VAR_UINT, "0", FIELD(profiling_max_depth),
      "Deepest call path recorded (main is depth 1), 0 = no limit. Calls below it get no "
      "call path of their own: their time stays in the path at the limit as its own "
      "(exclusive) time, as with Score-P's SCOREP_PROFILING_MAX_CALLPATH_DEPTH; their visits "
      "are not counted in the tree, and summary.txt says how many there were (deep "
      "recursion in a bounded tree)." },
    { "HP_PROFILING_RECURSION", VAR_CHOICE, "keep", FIELD(profiling_recursion),
      "keep: every level of a recursion is a call path of its own; collapse: a recursive "
      "call (direct or through other functions) counts as a visit of the outermost call "
      "of the same function on the path, and its callees hang below that one, so deep "
      "recursion gives a small tree; summary.txt names the deepest recursion. Costs a "
      "walk up the call path on every call. See doc/user-guide.md." },
    { "HP_SELECT_SUBTREES", VAR_STRING, "", FIELD(select_subtrees),
      "Measure only inside calls of these functions (comma-separated names or wildcard "
      "patterns as in filter files, e.g. solve,io_*); everything else is switched off and "
      "its time stays with the program root. Empty = measure everything. See "
      "doc/user-guide.md." },
    { "HP_EXCLUDE_SUBTREES", VAR_STRING, "", FIELD(exclude_subtrees),
      "Measure calls of these functions (patterns as for HP_SELECT_SUBTREES) with their "
      "inclusive time, but nothing they call: their callees' time and samples count to "
      "them. Empty = none." },
    { "HP_THREAD_LOCATIONS", VAR_CHOICE, "reuse", FIELD(thread_locations),
      "reuse: a thread that starts takes over the location (call tree, trace) of a thread "
      "that ended, preferring one that ran the same start routine, so a profile has as many "
      "thread locations as threads were alive at once; each: every thread is a location of "
      "its own (as long as HP_TOTAL_MEMORY holds them). See doc/threads.md." },
    /* On by default, as TAU's throttling is: a hot one-line function would otherwise
     * make a C++ program several times slower before anyone reads the profile. */
    { "HP_OVERHEAD_BUDGET", VAR_UINT, "5", FIELD(overhead_budget),
      "Percent, 1 to 100, or 0 = off (every visit counted exactly). Default 5: a function "
      "built with the GCC plug-in whose probe cost exceeds this share of its mean time is "
      "switched off during the run once it was visited 1024 times on one call path; "
      "summary.txt lists it with its visits until then, and demoted.filter in the "
      "experiment directory excludes it at the next build. See doc/hp-instrument.md." },
    { "HP_MPI_UNWIND_EXCLUDE", VAR_STRING,
      "MPI_Comm_rank,MPI_Comm_size,MPI_Wtime,MPI_Wtick,MPI_Test,MPI_Testany,MPI_Testall,"
      "MPI_Testsome,MPI_Test_cancelled,MPI_Iprobe,MPI_Improbe,MPI_Request_get_status,"
      "MPI_Initialized,MPI_Finalized,MPI_Query_thread,MPI_Is_thread_main,MPI_Comm_get_attr,"
      "MPI_Type_size,MPI_Get_count",
      FIELD(mpi_unwind_exclude),
      "With sampling: MPI functions whose calls do not unwind to learn their call path (cheap, "
      "frequent calls); they are still measured, directly below the innermost instrumented "
      "region (or the program). Empty = every call unwinds." },
    { "HP_UNWIND_THUNKS", VAR_BOOL, "false", FIELD(unwind_thunks),
      "With sampling: return addresses on the stack lead through a thunk, so that an unwind "
      "stops at the first frame already known and each return is seen (visits become exact "
      "lower bounds per call path). Off by default: here it costs more than it saves. "
      "Refused (with a message) when the program's C++ unwinder is linked statically." },
    { "HP_MPI_ENABLE_GROUPS", VAR_STRING, "default", FIELD(mpi_enable_groups),
      "MPI function groups to measure (Score-P's names: all, default, cg, coll, env, err, "
      "ext, io, misc, p2p, rma, spawn, topo, type, xnonblock, xreqtest; default = cg, coll, "
      "env, io, p2p, rma, topo, xnonblock). See doc/mpi.md." },
    { "HP_MPI_EXCLUDE", VAR_STRING, "", FIELD(mpi_exclude),
      "MPI functions left unmeasured but counted, e.g. MPI_Comm_rank,MPI_Wtime." },
    { "HP_METRIC_PAPI", VAR_STRING, "", FIELD(metric_papi),
      "PAPI presets or native events to record per call path, comma-separated, e.g. "
      "PAPI_TOT_INS,PAPI_TOT_CYC. 'hp-info metrics' lists what this machine offers. "
      "See doc/counters.md." },
    { "HP_METRIC_PERF", VAR_STRING, "", FIELD(metric_perf),
      "perf events to record per call path, comma-separated, e.g. "
      "task-clock,page-faults,context-switches,instructions (one group per thread, one "
      "read() per enter and exit). 'hp-info metrics' lists them. See doc/counters.md." },
    { "HP_METRIC_RUSAGE", VAR_STRING, "", FIELD(metric_rusage),
      "getrusage(RUSAGE_THREAD) fields to record per call path: all, or a comma-separated "
      "list such as ru_minflt,ru_nvcsw,ru_utime (one system call per enter and exit). See "
      "doc/counters.md." },
    { "HP_FINALIZE_SIGNALS", VAR_STRING, "TERM,INT,XCPU,USR2", FIELD(finalize_signals),
      "Signals that end the measurement cleanly: what was recorded so far is written, "
      "marked as interrupted, then the program's own handler or the default action runs. "
      "Names (TERM or SIGTERM), numbers (1 to 64) or real-time signals (SIGRTMIN+3, "
      "RTMAX-1), comma-separated; none = off (empty is refused). See doc/signals.md." },
    { "HP_DUMP_SIGNAL", VAR_STRING, "", FIELD(dump_signal),
      "A signal (e.g. USR1) that writes a snapshot of the profile so far without stopping "
      "(snapshot-N/ in the experiment directory); empty or none = off. Not one of "
      "HP_FINALIZE_SIGNALS. See doc/signals.md." },
    { "HP_SITE_LOG", VAR_STRING, "", FIELD(site_log),
      "Site accounting log: an absolute path of a file, or of a directory for one file per "
      "day, to which rank 0 appends one JSON line per job at the end. With "
      "HP_ENABLE_PROFILING=false only MPI is measured, for this log. See doc/site.md." },
    { "HP_PLUGINS", VAR_STRING, "", FIELD(plugins),
      "Plug-ins around MPI calls: comma-separated paths of shared objects built against "
      "<hp/plugin.h>, loaded after MPI_Init. See doc/plugins.md." },
    { "HP_VERBOSE", VAR_UINT, "0", FIELD(verbose),
      "Diagnostic output on stderr: 0 = warnings only, 1 = also what is written where, 2 = more." },
};

#define NVARS (sizeof(config_vars) / sizeof(config_vars[0]))

int hp_config_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = { "true", "yes", "1", "on" };
    static const char *const no[] = { "false", "no", "0", "off" };
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

int hp_config_parse_uint(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int hp_config_parse_size(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b') /* accept "16MB" as well as "16M" */
        end++;
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static const char *choice_word(const char *choices, int i, char *out, size_t size);

/* The forms v accepts, for messages and help (choices are listed into buf). */
static const char *accepted_forms(const config_var *v, char *buf, size_t size)
{
    switch (v->type) {
    case VAR_BOOL: return "true, false, yes, no, 1, 0";
    case VAR_SIZE: return "a byte count with optional K, M or G suffix, e.g. 16M";
    case VAR_UINT: return "a non-negative whole number";
    case VAR_CHOICE: {
        char word[64];
        buf[0] = '\0';
        for (int i = 0; *choice_word(choices_of(v), i, word, sizeof(word)) != '\0'; i++) {
            size_t used = strlen(buf);
            snprintf(buf + used, size - used, "%s%s", i == 0 ? "" : " or ", word);
        }
        return buf;
    }
    case VAR_STRING: return "any text";
    }
    return "";
}

_Static_assert(sizeof(hp_timer_kind) == sizeof(int) &&
                   sizeof(hp_thread_locations) == sizeof(int) &&
                   sizeof(hp_recursion) == sizeof(int),
               "VAR_CHOICE fields are stored as int");

/* The index of word s in choices ("a|b|c"), or -1. Case does not matter. */
static int choice_index(const char *choices, const char *s)
{
    size_t n = strlen(s);
    int i = 0;
    for (const char *c = choices; *c != '\0'; i++) {
        size_t len = strcspn(c, "|");
        if (len == n && strncasecmp(c, s, n) == 0)
            return i;
        c += len + (c[len] == '|');
    }
    return -1;
}

/* The word of choices at index i (into out). */
static const char *choice_word(const char *choices, int i, char *out, size_t size)
{
    const char *c = choices;
    for (; i > 0 && *c != '\0'; i--)
        c += strcspn(c, "|") + (c[strcspn(c, "|")] == '|');
    snprintf(out, size, "%.*s", (int)strcspn(c, "|"), c);
    return out;
}

/* Stores the parsed value of one variable into hp_cfg. Returns 0 or -1. */
static int store_value(const config_var *v, const char *s)
{
    char *field = (char *)&hp_cfg + v->offset;
    uint64_t u;
    switch (v->type) {
    case VAR_BOOL:
        return hp_config_parse_bool(s, (bool *)field);
    case VAR_SIZE:
        if (hp_config_parse_size(s, &u) < 0)
            return -1;
        *(uint64_t *)field = u;
        return 0;
    case VAR_UINT:
        if (hp_config_parse_uint(s, &u) < 0)
            return -1;
        if (v->size == sizeof(int)) {
            if (u > 1000000)
                return -1;
            *(int *)field = (int)u;
        } else {
            *(uint64_t *)field = u;
        }
        return 0;
    case VAR_CHOICE: {
        int i = choice_index(choices_of(v), s);
        if (i < 0)
            return -1;
        *(int *)field = i;
        return 0;
    }
    case VAR_STRING:
        if (strlen(s) >= v->size)
            return -1;
        strcpy(field, s);
        return 0;
    }
    return -1;
}

/* Range checks that depend on the meaning, not the type. */
static const char *check_range(const config_var *v)
{
    if (strcmp(v->name, "HP_TOTAL_MEMORY") == 0 && hp_cfg.total_memory < 256 * 1024)
        return "at least 256K";
    if (strcmp(v->name, "HP_TRACE_BUFFER") == 0 && hp_cfg.trace_buffer != 0 &&
        (hp_cfg.trace_buffer < 256 * 1024 || hp_cfg.trace_buffer > hp_cfg.total_memory / 2))
        return "0 (a quarter of HP_TOTAL_MEMORY), or from 256K up to half of HP_TOTAL_MEMORY";
    if (strcmp(v->name, "HP_TRACE_EVENT_SHARE") == 0 &&
        (hp_cfg.trace_event_share < 1 || hp_cfg.trace_event_share > 100))
        return "1 up to 100 (percent of the trace buffer)";
    if (strcmp(v->name, "HP_SAMPLING_FREQUENCY") == 0 && hp_cfg.sampling_frequency > 20000)
        return "0 (off) up to 20000 Hz";
    if (strcmp(v->name, "HP_OVERHEAD_BUDGET") == 0 && hp_cfg.overhead_budget > 100)
        return "0 (off) up to 100 (percent)";
    if (strcmp(v->name, "HP_SITE_LOG") == 0 && hp_cfg.site_log[0] != '\0' &&
        hp_cfg.site_log[0] != '/')
        return "an absolute path (of a file, or of a directory for one file per day)";
    return NULL;
}

/* Signal lists (signal_names.c): NULL when valid, else why not (into why). An empty
 * HP_FINALIZE_SIGNALS would silently mean none, and SIGTERM would then write nothing. */
static const char *check_signals(const config_var *v, char *why, size_t whylen)
{
    const char *s = (const char *)&hp_cfg + v->offset;
    hp_signal_set set;
    if (strcmp(v->name, "HP_FINALIZE_SIGNALS") != 0 && strcmp(v->name, "HP_DUMP_SIGNAL") != 0)
        return NULL;
    if (strcmp(v->name, "HP_FINALIZE_SIGNALS") == 0 && s[strspn(s, " \t")] == '\0')
        return "empty; none means no signal";
    if (hp_signal_parse_list(s, &set, why, whylen) < 0)
        return why;
    if (strcmp(v->name, "HP_DUMP_SIGNAL") == 0 && (set & (set - 1)) != 0)
        return "one signal only";
    return NULL;
}

/* HP_DUMP_SIGNAL against HP_FINALIZE_SIGNALS, once both are read: a signal that both
 * snapshots and ends the measurement cannot do both (HP_DUMP_SIGNAL=TERM would keep
 * SIGTERM from ending the program). Returns 0 or -1 after a message into err. */
static int check_dump_not_finalize(const char *(*getenv_fn)(const char *), char *err,
                                   size_t errlen);

/* Pattern lists (subtree.c): NULL when valid, else why not. */
static const char *check_patterns(const config_var *v)
{
    const char *s = (const char *)&hp_cfg + v->offset;
    if (strcmp(v->name, "HP_SELECT_SUBTREES") != 0 &&
        strcmp(v->name, "HP_EXCLUDE_SUBTREES") != 0)
        return NULL;
    if (s[0] == ',' || strstr(s, ",,") != NULL || (s[0] != '\0' && s[strlen(s) - 1] == ','))
        return "an empty pattern";
    return NULL;
}

static void append(char *err, size_t errlen, const char *fmt, ...)
{
    size_t used = strlen(err);
    if (used >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + used, errlen - used, fmt, ap);
    va_end(ap);
}

int hp_config_load(const char *(*getenv_fn)(const char *), char *err, size_t errlen)
{
    int bad = 0;
    if (errlen)
        err[0] = '\0';
    memset(&hp_cfg, 0, sizeof(hp_cfg));
    for (size_t i = 0; i < NVARS; i++) {
        const config_var *v = &config_vars[i];
        store_value(v, v->default_value); /* defaults always parse */
        const char *s = getenv_fn(v->name);
        if (s == NULL)
            continue;
        const char *range = NULL;
        char why[128], forms[128], shown[100];
        /* Echoed escaped and cut: a value may hold anything, terminal escapes too. */
        hp_escape_text(shown, sizeof(shown), s, strlen(s));
        if (store_value(v, s) < 0) {
            if (v->type == VAR_STRING)
                append(err, errlen, "%s='%.60s...' is too long: at most %zu characters\n",
                       v->name, shown, v->size - 1);
            else
                append(err, errlen, "%s='%s' is not valid: expected %s\n", v->name, shown,
                       accepted_forms(v, forms, sizeof(forms)));
            bad = 1;
        } else if ((range = check_range(v)) != NULL) {
            append(err, errlen, "%s='%s' is out of range: expected %s\n", v->name, shown,
                   range);
            bad = 1;
        } else if ((range = check_signals(v, why, sizeof(why))) != NULL) {
            append(err, errlen, "%s='%s' is not valid (%s): expected %s\n", v->name, shown,
                   range, HP_SIGNAL_LIST_FORMS);
            bad = 1;
        } else if ((range = check_patterns(v)) != NULL) {
            append(err, errlen, "%s='%s' is not valid (%s): expected function names or "
                   "wildcard patterns, separated by commas, e.g. solve,io_*\n", v->name, shown,
                   range);
            bad = 1;
        }
    }
    if (!bad && check_dump_not_finalize(getenv_fn, err, errlen) < 0)
        bad = 1;
    hp_cfg.trace_adaptive_set = getenv_fn("HP_TRACE_ADAPTIVE") != NULL;
    hp_log_set_verbosity(hp_cfg.verbose); /* the one place HP_VERBOSE is read */
    return bad ? -1 : 0;
}

static int check_dump_not_finalize(const char *(*getenv_fn)(const char *), char *err,
                                   size_t errlen)
{
    hp_signal_set dump, finalize;
    char why[128];
    if (hp_signal_parse_list(hp_cfg.dump_signal, &dump, why, sizeof(why)) < 0 ||
        hp_signal_parse_list(hp_cfg.finalize_signals, &finalize, why, sizeof(why)) < 0 ||
        (dump & finalize) == 0)
        return 0;
    bool set = getenv_fn("HP_FINALIZE_SIGNALS") != NULL;
    char dump_shown[100], finalize_shown[300];
    append(err, errlen, "HP_DUMP_SIGNAL='%s' is not valid (it is also a finalize signal: "
           "HP_FINALIZE_SIGNALS=%s%s): expected a signal that is not in "
           "HP_FINALIZE_SIGNALS, e.g. USR1, or leave it out of HP_FINALIZE_SIGNALS\n",
           hp_escape_text(dump_shown, sizeof(dump_shown), hp_cfg.dump_signal,
                          strlen(hp_cfg.dump_signal)),
           hp_escape_text(finalize_shown, sizeof(finalize_shown), hp_cfg.finalize_signals,
                          strlen(hp_cfg.finalize_signals)),
           set ? "" : " by default");
    return -1;
}

void hp_config_print_help(FILE *out)
{
    for (size_t i = 0; i < NVARS; i++) {
        const config_var *v = &config_vars[i];
        char forms[128];
        fprintf(out, "%s\n  Type:    %s\n  Default: %s\n  %s\n\n", v->name,
                accepted_forms(v, forms, sizeof(forms)),
                shown_default_of(v), v->help);
    }
}

static void print_value(FILE *out, const config_var *v)
{
    const char *field = (const char *)&hp_cfg + v->offset;
    switch (v->type) {
    case VAR_BOOL: fputs(*(const bool *)field ? "true" : "false", out); break;
    case VAR_SIZE:
    case VAR_UINT:
        if (v->size == sizeof(int))
            fprintf(out, "%d", *(const int *)field);
        else
            fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    case VAR_CHOICE: {
        char word[64];
        fputs(choice_word(choices_of(v), *(const int *)field, word, sizeof(word)), out);
        break;
    }
    case VAR_STRING: fputs(field, out); break;
    }
}

void hp_config_print_effective(FILE *out)
{
    for (size_t i = 0; i < NVARS; i++) {
        fprintf(out, "%s=", config_vars[i].name);
        print_value(out, &config_vars[i]);
        fputc('\n', out);
    }
}

/* ---------------------------------------------------------------- unknown names */

/* Variables that start with HP_ but are not the measurement's configuration: they belong
 * to the compiler wrapper and the launcher, to the example plug-ins (doc/plugins.md),
 * and to the project's own build, test and benchmark scripts, which run measured
 * programs with them set. None of them is worth a warning. */
static const char *const other_names[] = {
    "HP_WRAPPER", "HP_WRAPPER_ARGS", /* hp-instrument */
    "HP_SRCDIR", "HP_BUILDDIR", "HP_BUILD_DIR", "HP_TOP", "HP_PREFIX", "HP_JOBS",
    "HP_PACKAGES", "HP_CONFIGURE_ARGS", "HP_SANITIZE_CFLAGS", "HP_ASAN_RUNTIME",
    "HP_MPI_TIMEOUT", "HP_UPDATE_SCREENSHOT", "HP_PLUGIN_GCC_VERSION",
};
static const char *const other_prefixes[] = {
    "HP_INSTRUMENT_", /* hp-instrument's install directories and plug-in */
    "HP_RUN_",        /* hp-run (HP_RUN_PROGRAM, HP_RUN_LIBDIR) */
    "HP_CSV_", "HP_ITER_", /* the example plug-ins */
    "HP_TEST_", "HP_BENCH_",
};

static bool is_other_name(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof(other_names) / sizeof(other_names[0]); i++)
        if (strlen(other_names[i]) == n && strncmp(other_names[i], name, n) == 0)
            return true;
    for (size_t i = 0; i < sizeof(other_prefixes) / sizeof(other_prefixes[0]); i++)
        if (strncmp(other_prefixes[i], name, strlen(other_prefixes[i])) == 0)
            return true;
    return false;
}

static bool is_config_name(const char *name, size_t n)
{
    for (size_t i = 0; i < NVARS; i++)
        if (strlen(config_vars[i].name) == n && strncmp(config_vars[i].name, name, n) == 0)
            return true;
    return false;
}

/* Edit distance (insertions, deletions, substitutions and swaps of two neighbours, case
 * ignored) between a (n bytes) and b, stopping at NAME_MAX_LENGTH characters. */
enum { NAME_MAX_LENGTH = 48 };

static bool same_letter(char x, char y)
{
    return toupper((unsigned char)x) == toupper((unsigned char)y);
}

static size_t name_distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b), d[NAME_MAX_LENGTH + 1][NAME_MAX_LENGTH + 1];
    n = n < NAME_MAX_LENGTH ? n : NAME_MAX_LENGTH;
    m = m < NAME_MAX_LENGTH ? m : NAME_MAX_LENGTH;
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[i - 1][j - 1] + !same_letter(a[i - 1], b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) &&
                same_letter(a[i - 2], b[j - 1]) && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1; /* two neighbours swapped */
            d[i][j] = best;
        }
    }
    return d[n][m];
}

/* The known name closest to name (n bytes), or NULL when none is close enough to be a
 * typo of it: at most 3 edits, and fewer than a third of the name's length. */
static const char *closest_name(const char *name, size_t n)
{
    const char *best = NULL;
    size_t best_distance = 4;
    for (size_t i = 0; i < NVARS; i++) {
        size_t d = name_distance(name, n, config_vars[i].name);
        if (d < best_distance && d * 3 < n) {
            best = config_vars[i].name;
            best_distance = d;
        }
    }
    return best;
}

int hp_config_check_names(char *const *env, char *out, size_t outlen)
{
    int unknown = 0;
    if (outlen)
        out[0] = '\0';
    for (char *const *e = env; e != NULL && *e != NULL; e++) {
        size_t n = strcspn(*e, "=");
        if (strncmp(*e, "HP_", 3) != 0 || is_config_name(*e, n) || is_other_name(*e, n))
            continue;
        char shown[100];
        const char *close = closest_name(*e, n);
        hp_escape_text(shown, sizeof(shown), *e, n);
        if (close != NULL)
            append(out, outlen, "%s is not a configuration variable; did you mean %s? "
                   "It is ignored.\n", shown, close);
        else
            append(out, outlen, "%s is not a configuration variable; it is ignored "
                   "('hp-info config-vars' lists them).\n", shown);
        unknown++;
    }
    return unknown;
}
