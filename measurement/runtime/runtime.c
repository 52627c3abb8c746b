/*
 * Start-up and end of a measurement run.
 *
 * The state machine (off -> starting -> running -> done, or disabled) is one atomic
 * int, so the first event of any thread and the library constructor can race to start
 * measurement safely; only the winner runs start-up. Start-up reads the configuration
 * and the filter file before anything is measured, so a bad value can stop the program
 * without losing data. The end is registered with atexit, which runs from wherever
 * exit() is called (including return from main). A program the kernel runs with raised
 * rights (set-user-ID, AT_SECURE) is never measured: doc/security.md says why.
 */
#include "runtime.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "measurement/core/config.h"
#include "measurement/finalize/experiment.h"
#include "measurement/core/filter.h"
#include "measurement/core/job.h"
#include "measurement/finalize/finalize.h"
#include "measurement/core/location.h"
#include "measurement/core/memory.h"
#include "measurement/core/metrics.h"
#include "measurement/core/region.h"
#include "measurement/core/overhead.h"
#include "measurement/sampling/sampling.h"
#include "signals.h"
#include "measurement/core/subtree.h"
#include "measurement/core/timer.h"
#include "measurement/core/trace_provider.h"
#include "measurement/trace/trace_buffer.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/log.h"
#include "util/nap.h"

enum { STATE_OFF, STATE_STARTING, STATE_RUNNING, STATE_DONE, STATE_DISABLED };

static _Atomic int state = STATE_OFF;
static bool run_program; /* see take_run_program */
static hp_filter *filter;
static bool mpi_required;
static int (*mpi_probe)(void);
static bool (*mpi_end_explainer)(int rank);

/* secure_getenv: in a set-user-ID or set-group-ID program nothing is read (see
 * secure_mode below; this is the second line of defence). */
static const char *env_lookup(const char *name)
{
    return secure_getenv(name);
}

/* The kernel's secure-execution mode: a set-user-ID or set-group-ID program, or one with
 * file capabilities, run by a user with fewer rights. Its environment is the user's, so
 * it must not steer where files are written or which are read with the program's rights;
 * and a profile of it would show what the user may not see (the names in an unreadable
 * binary). Such a program is not measured (doc/security.md). */
static bool secure_mode(void)
{
    return getauxval(AT_SECURE) != 0;
}

/* The process manager's rank variable of this process ("0" on the first rank), or NULL
 * outside an MPI job's processes (mpiexec and its proxies have none). */
static const char *rank_variable(void)
{
    static const char *const rank_vars[] = { "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK",
                                             "SLURM_PROCID" };
    for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++) {
        const char *v = secure_getenv(rank_vars[i]);
        if (v != NULL && v[0] != '\0')
            return v;
    }
    return NULL;
}

/* All ranks but the first keep the start-up warnings to themselves (one warning per job,
 * not per rank). */
static bool quiet_rank(void)
{
    const char *v = rank_variable();
    return v != NULL && strcmp(v, "0") != 0;
}

extern char **environ;

static atomic_flag names_warned = ATOMIC_FLAG_INIT;

void hp_runtime_warn_unknown_names(int rank)
{
    char text[2048];
    if (rank > 0 || (rank < 0 && quiet_rank()) || !hp_log_first_time(&names_warned) ||
        hp_config_check_names(environ, text, sizeof(text)) == 0)
        return;
    for (char *line = text, *end; *line != '\0'; line = end + 1) {
        end = strchr(line, '\n');
        *end = '\0';
        hp_warn("%s", line);
    }
}

HP_COLD void hp_runtime_stop_on_bad_input(const char *what, const char *message)
{
    atomic_store(&state, STATE_DISABLED); /* nothing is written at exit */
    hp_error("%s:\n%s", what, message);
    hp_error("stopping before the program starts; nothing was "
             "measured. See 'hp-info config-vars'.");
    exit(1);
}

static void load_configuration(void)
{
    char err[4096];
    if (hp_config_load(env_lookup, err, sizeof(err)) < 0)
        hp_runtime_stop_on_bad_input("invalid configuration", err);
#ifdef HP_MPI_PRELOAD
    if (run_program) /* else MPI_Init warns on rank 0: launchers load us too */
#endif
        hp_runtime_warn_unknown_names(-1);
    if (hp_cfg.filtering_file[0] != '\0') {
        filter = hp_filter_load(hp_cfg.filtering_file, err, sizeof(err));
        if (filter == NULL)
            hp_runtime_stop_on_bad_input("invalid filter file (HP_FILTERING_FILE)", err);
    }
    if (hp_subtree_setup(hp_cfg.select_subtrees, hp_cfg.exclude_subtrees, err,
                         sizeof(err)) < 0)
        hp_runtime_stop_on_bad_input("invalid subtree patterns", err);
    if (hp_metrics_setup(hp_cfg.metric_perf, hp_cfg.metric_rusage, hp_cfg.metric_papi, err,
                         sizeof(err)) < 0)
        hp_runtime_stop_on_bad_input("invalid configuration", err);
}

/* HP_ENABLE_PROFILING=false with HP_SITE_LOG: only MPI calls are measured, for the site
 * log. Every function and user region is filtered (a filtered hook costs one cache probe,
 * and the GCC plug-in's switch one load), and tracing and sampling are off, the same on
 * every rank (tracing decides collectives at MPI_Finalize). Returns 0 or -1 (memory). */
static bool accounting_only;

static int account_only(void)
{
    char err[256];
    if (filter != NULL)
        hp_filter_free(filter);
    filter = hp_filter_parse("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE *\nSCOREP_REGION_NAMES_END\n",
                             "accounting-only mode", err, sizeof(err));
    hp_cfg.enable_tracing = false;
    hp_cfg.sampling_frequency = 0;
    accounting_only = true; /* no sampling, also for --nocompiler builds */
    hp_info("HP_ENABLE_PROFILING=false, HP_SITE_LOG=%s: measuring MPI calls for the site "
            "log only", hp_cfg.site_log);
    return filter != NULL ? 0 : -1;
}

/* Set by the marker library that `hp-instrument --nocompiler` links: such programs have
 * no function hooks, so sampling is what gives their call paths. */
extern const int hp_nocompiler_build __attribute__((weak));

enum { DEFAULT_NOCOMPILER_HZ = 1000 };

/* hp-run sets HP_RUN_PROGRAM to its own process id when its command is the program
 * itself, not a launcher or a script, and then execs the command in that process: the
 * process with that id (also after further execs: env, nice, numactl) is measured from
 * its start and writes its experiment at exit whether or not it initializes MPI (a
 * threaded or OpenMP program without MPI). The processes it starts have other ids and are
 * measured as MPI processes only. An id, not a flag taken out of the environment: a
 * program may define its own unsetenv (bash does), which does nothing this early. */
static void take_run_program(void)
{
    const char *v = secure_getenv("HP_RUN_PROGRAM");
    char *end;
    long pid = v != NULL ? strtol(v, &end, 10) : 0;
    run_program = v != NULL && end != v && *end == '\0' && pid == (long)getpid();
}

/* Sampling starts here, before the master thread's location (and its timer) exists. */
static void start_sampling(void)
{
    uint64_t hz = hp_cfg.sampling_frequency;
    if (accounting_only)
        return;
    if (secure_getenv("HP_SAMPLING_FREQUENCY") == NULL && &hp_nocompiler_build != NULL)
        hz = hp_cfg.sampling_frequency = DEFAULT_NOCOMPILER_HZ;
    if (hz > 0 && hp_sampling_setup(hz) < 0)
        hp_cfg.sampling_frequency = 0;
#ifdef HP_MPI_PRELOAD
    if (!run_program)
        hp_sampling_defer(); /* launchers load us too: sample only MPI processes */
#endif
}

static bool forked_child;

static void finalize_at_exit(void)
{
    if (forked_child) /* said at its exit: a child that execs never gets here */
        hp_warn("process %d was forked (without exec) from a measured "
                "process and was not measured after fork(); its calls are in no "
                "profile", (int)getpid());
    hp_signals_hold(); /* a finalize signal now waits until the experiment is written */
    hp_runtime_finalize();
    hp_signals_release();
}

/* A forked child (without exec) would write a second experiment holding a copy of the
 * parent's data; it is not measured instead, and says so when it exits. A child that
 * execs starts afresh. */
static void stop_in_forked_child(void)
{
    atomic_store(&state, STATE_DISABLED);
    forked_child = true;
    hp_location_stop_all();
}

/* Set by the marker that hp-instrument links into build-system test programs
 * (autoconf's conftest, CMake's cmTC_*): configure runs them, and they must neither be
 * measured nor leave experiment directories behind. */
extern const int hp_configure_probe __attribute__((weak));

/* A budget set in HP_TOTAL_MEMORY that the address space or `ulimit -v` cannot hold is a
 * bad value like any other: refused before the program starts, not found out by a run
 * that measures nothing. (Its pages are reserved, not committed: any budget that fits is
 * accepted.) */
static void refuse_memory_budget(const char *value, int error)
{
    char text[512], shown[100];
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    hp_escape_text(shown, sizeof(shown), value, strlen(value));
    snprintf(text, sizeof(text), "HP_TOTAL_MEMORY='%s' (%llu bytes) cannot be reserved "
             "(%s): expected a budget this process can map (this machine has %lluM of "
             "memory; see also ulimit -v)\n", shown, (unsigned long long)hp_cfg.total_memory,
             strerror(error), (unsigned long long)pages * (unsigned long long)page_size >> 20);
    hp_runtime_stop_on_bad_input("invalid configuration", text);
}

/* Whether this process says what concerns the whole job: not an MPI rank other than 0,
 * and under hp-run's launcher (which loads us into mpiexec and its proxies too) only
 * rank 0 itself. */
static bool speaks_for_job(void)
{
    if (quiet_rank())
        return false;
#ifdef HP_MPI_PRELOAD
    if (!run_program)
        return rank_variable() != NULL;
#endif
    return true;
}

/* Reserves the memory budget. The default one may not fit a small `ulimit -v`: the
 * user asked for nothing, so the program runs unmeasured, as it would without us, and
 * says so once. An explicit HP_TOTAL_MEMORY that does not fit is refused. Returns 0 or
 * -1 (measure nothing). */
static int reserve_memory_budget(void)
{
    if (hp_memory_init(hp_cfg.total_memory) == 0)
        return 0;
    int error = errno;
    const char *value = secure_getenv("HP_TOTAL_MEMORY");
    if (value != NULL)
        refuse_memory_budget(value, error);
    if (speaks_for_job())
        hp_warn("the default memory budget (HP_TOTAL_MEMORY=%llu bytes) cannot be reserved "
                "(%s; ulimit -v?): the program runs unmeasured. Set HP_TOTAL_MEMORY to a "
                "budget this process can map to measure it",
                (unsigned long long)hp_cfg.total_memory, strerror(error));
    return -1;
}

/* Whether ending measurement now writes anything (a signal's message and a snapshot
 * depend on it): not in hp-run's processes that have not initialized MPI through us
 * (mpiexec, its proxies, an MPI process before MPI_Init), unless hp-run's command is the
 * program itself. The probe of hp_runtime_finalize is not asked here (it may print): an
 * hp-run process whose MPI_Init another tool hid from us writes nothing on a signal. */
static bool will_write(void)
{
    return hp_runtime_running() && (hp_job_mpi_active() || !mpi_required);
}

/* Returns the state to enter: running, or disabled when something is missing. */
static int start_measurement(void)
{
    take_run_program();
    if (&hp_configure_probe != NULL)
        return STATE_DISABLED;
    if (secure_mode()) {
        hp_warn("this program runs with raised rights (set-user-ID, set-group-ID or file "
                "capabilities): measuring nothing, the HP_* variables are ignored. Measure "
                "a copy without the set-user-ID bit instead (doc/security.md)");
        return STATE_DISABLED;
    }
    load_configuration();
    if (!hp_cfg.enable_profiling && hp_cfg.site_log[0] == '\0') {
        hp_info("HP_ENABLE_PROFILING=false: measuring nothing");
        return STATE_DISABLED;
    }
    if (!hp_cfg.enable_profiling && account_only() < 0)
        return STATE_DISABLED;
    bool fell_back;
    hp_timer_init(hp_cfg.timer, &fell_back);
    if (fell_back)
        hp_info("this CPU has no invariant TSC; using the monotonic clock");
    if (reserve_memory_budget() < 0)
        return STATE_DISABLED;
    if (hp_region_init(filter) < 0) {
        hp_error("cannot reserve the region table (%s); measuring nothing", strerror(errno));
        return STATE_DISABLED;
    }
    hp_region *root = hp_region_define(hp_experiment_program_name(), "", -1,
                                       HP_PARADIGM_MEASUREMENT, HP_ROLE_ARTIFICIAL);
    if (root == NULL)
        return STATE_DISABLED;
    hp_location_set_root_region(root);
    hp_location_set_depth_limit(hp_cfg.profiling_max_depth);
    hp_location_set_collapse(hp_cfg.profiling_recursion == HP_RECURSION_COLLAPSE);
    hp_location_set_reuse(hp_cfg.thread_locations == HP_THREAD_LOCATIONS_REUSE);
    hp_overhead_init(hp_cfg.overhead_budget);
    start_sampling();
    if (hp_cfg.enable_tracing) {
        if (hp_trace_setup(hp_cfg.total_memory) < 0)
            return STATE_DISABLED;
        hp_trace_set_event_share((unsigned)hp_cfg.trace_event_share);
        /* Hybrid mode (tracing and sampling) is what the adaptive buffer is for: the
         * default there; without samples, only when asked for. hp.config shows the
         * choice made. */
        if (!hp_cfg.trace_adaptive_set)
            hp_cfg.trace_adaptive = hp_sampling_enabled();
        hp_trace_set_buffer(hp_cfg.trace_buffer, hp_cfg.trace_adaptive,
                            hp_cfg.sampling_frequency ? 1000000000 / hp_cfg.sampling_frequency
                                                      : 0);
        if (hp_sampling_enabled()) /* samples in the trace, at a frequency it may halve */
            hp_trace_set_sample_record(hp_trace_slots(HP_TRACE_SAMPLE), hp_sampling_trace_rearm);
        hp_location_set_tracing(true);
    }
    hp_job_set_start_time(time(NULL));
    static const hp_signal_actions actions = { will_write, hp_runtime_finalize };
    hp_signals_install(&actions);
    atexit(finalize_at_exit);
    pthread_atfork(NULL, NULL, stop_in_forked_child);
    return STATE_RUNNING;
}

bool hp_runtime_ensure_started(void)
{
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (likely(s == STATE_RUNNING))
        return true;
    if (s != STATE_OFF)
        return false;
    int expected = STATE_OFF;
    if (!atomic_compare_exchange_strong(&state, &expected, STATE_STARTING))
        return false; /* another thread is starting; its events come first */
    atomic_store_explicit(&state, start_measurement(), memory_order_release);
    return atomic_load(&state) == STATE_RUNNING;
}

/* Waits (at most about a second) until loc's thread is not inside the core: a sample
 * handler or hook that started before the stop may still be extending its call tree. */
static void wait_outside_core(hp_location *loc)
{
    if (loc == hp__tls_location)
        return;
    for (int i = 0; i < 1000 && loc->in_core; i++) {
        hp_nap(1000000);
    }
}

bool hp_runtime_running(void)
{
    return atomic_load(&state) == STATE_RUNNING;
}

bool hp_runtime_stop(void)
{
    int expected = STATE_RUNNING;
    if (!atomic_compare_exchange_strong(&state, &expected, STATE_DONE))
        return false;
    uint64_t now = hp_timer_now();
    for (hp_location *l = hp_location_stop_all(); l != NULL; l = l->next) {
        hp_sampling_thread_stop(l);
        wait_outside_core(l);
        hp_location_close(l, now); /* no-op for threads that ended already */
    }
    hp_region_resolve_sampled();
    /* The filter is not freed: a thread still resolving a region may be reading it. */
    return true;
}

void hp_runtime_finalize(void)
{
    if (!hp_runtime_stop())
        return;
    if (hp_job_mpi_active()) {
        int rank = hp_job_rank();
        if (mpi_end_explainer == NULL || !mpi_end_explainer(rank))
            hp_warn("rank %d ended without MPI_Finalize; writing its own "
                    "profile-rank%d.cubex", rank, rank);
        hp_experiment_write_rank(rank);
        return;
    }
    int rank = mpi_probe != NULL ? mpi_probe() : -1;
    if (rank >= 0) { /* MPI ran, but its MPI_Init and MPI_Finalize bypassed us */
        hp_warn("rank %d: MPI_Init was not seen (another tool's "
                "MPI_Init wrapper?); writing this rank's own profile-rank%d.cubex",
                rank, rank);
        hp_experiment_write_rank(rank);
    } else if (!mpi_required) {
        hp_finalize_job(hp_transport_serial(), true);
    }
}

void hp_runtime_set_mpi_probe(int (*probe)(void))
{
    mpi_probe = probe;
}

void hp_runtime_set_mpi_end_explainer(bool (*explain)(int rank))
{
    mpi_end_explainer = explain;
}

void hp_runtime_require_mpi(void)
{
    mpi_required = !run_program;
}
