/*
 * Writing the experiment directory at the end of a run. Every failure here is reported
 * on stderr and the rest is still written: a profile that cannot be written must not
 * cost the summary, and nothing here may crash the program at exit.
 */
#include "experiment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measurement/core/config.h"
#include "profile/cube_writer.h"
#include "measurement/core/location.h"
#include "measurement/core/memory.h"
#include "measurement/core/metrics.h"
#include "measurement/core/overhead.h"
#include "profile_build.h"
#include "measurement/waitstates/waitstates.h"
#include "measurement/core/region.h"
#include "measurement/core/job.h"
#include "site_log.h"
#include "measurement/sampling/sampling.h"
#include "profile/summary.h"
#include "measurement/core/timer.h"
#include "trace_output.h"
#include "util/escape.h"
#include "util/log.h"
#include "util/nap.h"

#ifndef HP_VERSION
#define HP_VERSION "0.0.0"
#endif

enum { MAX_NOTES = 20, PATH_SIZE = 8192, MAX_SUFFIX = 1000, SHOWN_SIZE = 1024 };

/* text (a path made from HP_EXPERIMENT_DIRECTORY) made safe to echo in a message, into
 * out (SHOWN_SIZE bytes): terminal escapes in the name reach the terminal as text. */
static const char *shown(const char *text, char *out)
{
    return hp_escape_text(out, SHOWN_SIZE, text, strlen(text));
}

const char *hp_experiment_program_name(void)
{
    static char name[256];
    if (name[0] == '\0') {
        char path[4096];
        ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
        const char *base = "program";
        if (n > 0) {
            path[n] = '\0';
            base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        }
        if (snprintf(name, sizeof(name), "%s", base) >= (int)sizeof(name))
            name[sizeof(name) - 1] = '\0';
    }
    return name;
}

/* The configured or default name of the experiment directory. */
static void base_name(time_t start, char *base, size_t size)
{
    if (hp_cfg.experiment_directory[0] != '\0') {
        snprintf(base, size, "%s", hp_cfg.experiment_directory);
        /* "exp/" is exp: suffixes and the creating rank's exp.<token>.tmp go after it. */
        for (size_t n = strlen(base); n > 1 && base[n - 1] == '/'; n--)
            base[n - 1] = '\0';
        return;
    }
    char stamp[32];
    struct tm tm;
    if (start == 0) /* a process that does not measure (MPI rank 0 writing the others') */
        start = time(NULL);
    localtime_r(&start, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
    snprintf(base, size, "hp-%s-%s", hp_experiment_program_name(), stamp);
}

/* The name with suffix i: base itself for 0, else base-i. Returns 0 or -1 (too long). */
static int suffixed(const char *base, int i, char *dir, size_t size)
{
    int n = i == 0 ? snprintf(dir, size, "%s", base) : snprintf(dir, size, "%s-%d", base, i);
    if (n >= (int)size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Creates the directory: the configured or default name, with -1, -2, ... appended
 * when it exists already. Returns 0 and the name in dir, or -1. */
static int create_directory(time_t start, char *dir, size_t size)
{
    char base[4096];
    base_name(start, base, sizeof(base));
    for (int i = 0; i < MAX_SUFFIX; i++) {
        if (suffixed(base, i, dir, size) < 0)
            return -1;
        if (mkdir(dir, 0777) == 0) {
            if (i > 0) {
                char shown_base[SHOWN_SIZE], shown_dir[SHOWN_SIZE];
                hp_warn("%s exists already; writing to %s instead", shown(base, shown_base),
                        shown(dir, shown_dir));
            }
            return 0;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* Whether the trace's adaptive-buffer notes are the job's, said after the trace is
 * written (hp_experiment_trace_notes_by_job), rather than this process's own. */
static bool trace_notes_by_job;

void hp_experiment_trace_notes_by_job(bool by_job)
{
    trace_notes_by_job = by_job;
}

size_t hp_experiment_adaptive_notes(const hp_trace_output_adaptive *ad, char notes[][256])
{
    size_t n = 0;
    if (ad->halved_locations > 0)
        snprintf(notes[n++], 256, "HP_TRACE_ADAPTIVE: the sampling frequency was halved on %u "
                 "locations (%llu times in all; the lowest final frequency %.4g Hz): the trace "
                 "keeps every 2^k-th sample, each standing for 2^k start intervals",
                 ad->halved_locations, (unsigned long long)ad->halvings,
                 1e9 / (double)ad->longest_period);
    if (ad->stopped_locations > 0)
        snprintf(notes[n++], 256, "HP_TRACE_ADAPTIVE: events stopped at their share of the "
                 "trace on %u locations, %.3f to %.3f s after start (TRACE EVENTS STOPPED); "
                 "samples go on: %llu events (%llu messages) left out",
                 ad->stopped_locations, ad->first_stop, ad->last_stop,
                 (unsigned long long)ad->lost, (unsigned long long)ad->messages_lost);
    return n;
}

/* Collects lines about degraded measurement for summary.txt and stderr. */
static size_t collect_notes(char notes[][256])
{
    uint64_t dropped = 0, mismatched = 0, unmatched = 0, lost_nodes = 0, deep = 0, off = 0;
    uint64_t folded = 0, folded_max = 0;
    const hp_region *deepest = NULL;
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next) {
        dropped += l->dropped_visits;
        deep += l->deep_visits;
        off += l->off_visits;
        folded += l->folded_calls;
        if (l->folded_max > folded_max) {
            folded_max = l->folded_max;
            deepest = l->folded_deepest;
        }
        mismatched += l->mismatched_exits;
        unmatched += l->unmatched_exits;
        lost_nodes += l->cct.lost_nodes;
    }
    hp_memory_stats m;
    hp_memory_get_stats(&m);
    size_t n = 0;
    if (m.failed_requests > 0)
        snprintf(notes[n++], 256, "HP_TOTAL_MEMORY (%llu bytes) was used up: %llu visits "
                 "and %llu call paths were not recorded; raise HP_TOTAL_MEMORY",
                 (unsigned long long)m.total, (unsigned long long)dropped,
                 (unsigned long long)lost_nodes);
    if (deep > 0)
        snprintf(notes[n++], 256, "%llu calls deeper than HP_PROFILING_MAX_DEPTH=%llu have "
                 "no call path of their own: their time is in the path at that depth",
                 (unsigned long long)deep, (unsigned long long)hp_cfg.profiling_max_depth);
    if (deepest != NULL)
        snprintf(notes[n++], 256, "HP_PROFILING_RECURSION=collapse folded %llu recursive "
                 "calls into the calls they recursed from; the deepest recursion: %llu "
                 "recursive calls open at once, in %.80s", (unsigned long long)folded,
                 (unsigned long long)folded_max, deepest->name);
    if (off > 0)
        snprintf(notes[n++], 256, "%llu calls were switched off by HP_SELECT_SUBTREES or "
                 "HP_EXCLUDE_SUBTREES: their time is in the program root or the excluded "
                 "region that called them", (unsigned long long)off);
    if (mismatched > 0)
        snprintf(notes[n++], 256, "%llu regions were closed by the exit of an outer "
                 "function (longjmp, exceptions or cancelled threads)",
                 (unsigned long long)mismatched);
    if (unmatched > 0)
        snprintf(notes[n++], 256, "%llu function exits matched no entered function "
                 "and were ignored", (unsigned long long)unmatched);
    if (hp_trace_output_flushes() > 0)
        snprintf(notes[n++], 256, "trace buffers were flushed to disk %llu times (regions "
                 "TRACE BUFFER FLUSH in the trace); raise HP_TOTAL_MEMORY to avoid it",
                 (unsigned long long)hp_trace_output_flushes());
    if (hp_trace_output_lost_samples() > 0)
        snprintf(notes[n++], 256, "%llu samples are not in the trace: its buffer was full and "
                 "no event of their thread came to flush it; raise HP_TOTAL_MEMORY",
                 (unsigned long long)hp_trace_output_lost_samples());
    if (!trace_notes_by_job) {
        hp_trace_output_adaptive ad;
        hp_trace_output_adaptive_stats(&ad);
        n += hp_experiment_adaptive_notes(&ad, notes + n);
    }
    if (hp_location_refused_count() > 0)
        snprintf(notes[n++], 256, "%llu threads were not measured: HP_TOTAL_MEMORY could "
                 "not hold their call trees", (unsigned long long)hp_location_refused_count());
    size_t demoted = 0;
    hp_overhead_demoted(&demoted);
    if (demoted > 0)
        snprintf(notes[n++], 256, "HP_OVERHEAD_BUDGET=%llu%% switched off %zu hot, short "
                 "region%s during the run (listed in summary.txt with visits until then; "
                 "demoted.filter leaves them out at the next build; HP_OVERHEAD_BUDGET=0 "
                 "counts every visit)", (unsigned long long)hp_cfg.overhead_budget, demoted,
                 demoted == 1 ? "" : "s");
    if (hp_region_unknown_count() > 0)
        snprintf(notes[n++], 256, "%llu functions had no symbol and are named "
                 "UNKNOWN@...", (unsigned long long)hp_region_unknown_count());
    return n;
}

/* Opens the directory dir itself, never a symbolic link in its place (ELOOP). */
static int open_directory(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && errno == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
        errno = ELOOP;
    return fd;
}

/* Why a file or directory could not be written: strerror, said plainly for a symbolic
 * link that was not followed. */
static const char *why(int error)
{
    return error == ELOOP ? "a symbolic link is in its place (not followed)" : strerror(error);
}

/* Opens dir/name for writing; path receives the full name for messages. Neither dir
 * nor name may be a symbolic link: one put there cannot send our output elsewhere. */
static FILE *open_in_directory(const char *dir, const char *name, char *path, size_t size)
{
    if (snprintf(path, size, "%s/%s", dir, name) >= (int)size) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int dfd = open_directory(dir);
    if (dfd < 0)
        return NULL;
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    int error = errno;
    close(dfd);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL && fd >= 0) {
        error = errno;
        close(fd);
    }
    errno = error;
    return f;
}

/* Says that path cannot be written, and why (errno). */
static void cannot_write(const char *path)
{
    char shown_path[SHOWN_SIZE];
    int error = errno;
    hp_error("cannot write %s: %s", shown(path, shown_path), why(error));
}

static void write_config(const char *dir)
{
    char path[PATH_SIZE];
    FILE *f = open_in_directory(dir, "hp.config", path, sizeof(path));
    if (f == NULL) {
        cannot_write(path);
        return;
    }
    hp_config_print_effective(f);
    if (fclose(f) != 0)
        cannot_write(path);
}

static void write_summary(const char *dir, const char *file, const hp_profile *p,
                          char notes[][256], size_t nnotes)
{
    const char *lines[MAX_NOTES + 1];
    for (size_t i = 0; i < nnotes; i++)
        lines[i] = notes[i];
    lines[nnotes] = NULL;
    hp_summary_notes sn = { hp_experiment_program_name(), hp_timer_name(), lines };
    char path[PATH_SIZE];
    FILE *f = open_in_directory(dir, file, path, sizeof(path));
    int rc = f != NULL ? hp_summary_write(f, p, &sn) : -1;
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    if (rc < 0)
        cannot_write(path);
}

static void write_cube(const char *dir, const char *file, const hp_profile *p)
{
    char path[PATH_SIZE], err[512], text[SHOWN_SIZE];
    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
        hp_error("experiment directory name too long: %s", shown(dir, text));
    else if (hp_cube_write(p, path, err, sizeof(err)) < 0)
        hp_error("%s", shown(err, text)); /* err names the path */
}

/* The directory in use ("" = not created yet). */
static char directory[PATH_SIZE / 2];

/* An MPI job's directory is named by rank 0 at MPI_Init but created only when the first
 * rank writes into it, so that a job killed before it writes anything (SIGKILL, a crash,
 * a launcher's time-out) leaves no empty directory behind. Ranks write at different times
 * (a signalled rank writes its own profile), so whichever rank comes first creates it,
 * with the job's token in JOB_MARKER; a rank that finds the name taken reads the token
 * to tell its own job's directory from another run's. Another run that took the name
 * meanwhile (the same HP_EXPERIMENT_DIRECTORY, or the same program started in the same
 * second) is never written into: every rank goes on to the next suffix alike.
 *
 * The directory never exists without its marker: the creating rank makes a private
 * NAME.<token>.tmp, marks it and renames it to NAME without replacing anything
 * (RENAME_NOREPLACE), so a rank that loses the race reads the winner's marker at once,
 * however slow the winner's filesystem. Where the filesystem cannot rename that way
 * (EINVAL: some NFS and FUSE), NAME is made empty first as a lock and the marked
 * directory renamed over it; a rank finding NAME empty waits for the marker then. */
#define JOB_MARKER ".hp-job"
enum { MARKER_WAIT_MS = 2000 };
static hp_experiment_job job; /* token "" = no plan: the process names its own */

void hp_experiment_plan_job(hp_experiment_job *plan)
{
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    *plan = (hp_experiment_job){ .first = 0 };
    snprintf(plan->token, sizeof(plan->token), "%.40s:%ld:%llu", host, (long)getpid(),
             (unsigned long long)hp_timer_monotonic_ns());
    base_name(hp_job_start_time(), plan->base, sizeof(plan->base));
    char dir[PATH_SIZE / 2];
    struct stat st;
    while (plan->first < MAX_SUFFIX &&
           suffixed(plan->base, plan->first, dir, sizeof(dir)) == 0 && lstat(dir, &st) == 0)
        plan->first++;
    if (plan->first > 0) {
        char shown_base[SHOWN_SIZE], shown_dir[SHOWN_SIZE];
        hp_warn("%s exists already; writing to %s instead", shown(plan->base, shown_base),
                shown(dir, shown_dir));
    }
    job = *plan;
}

void hp_experiment_join_job(const hp_experiment_job *plan)
{
    job = *plan;
}

/* Writes the job's token into the new, private directory tmp. Returns 0 or -1. */
static int write_marker(const char *tmp)
{
    int dfd = open_directory(tmp);
    if (dfd < 0)
        return -1;
    int fd = openat(dfd, JOB_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0666);
    size_t len = strlen(job.token);
    int rc = fd >= 0 && write(fd, job.token, len) == (ssize_t)len ? 0 : -1;
    int error = errno;
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        error = errno, rc = -1;
    close(dfd);
    errno = error;
    return rc;
}

/* Removes the private directory tmp and its marker, keeping errno. */
static void remove_private(const char *tmp)
{
    int error = errno, dfd = open_directory(tmp);
    if (dfd >= 0) {
        unlinkat(dfd, JOB_MARKER, 0);
        close(dfd);
    }
    rmdir(tmp);
    errno = error;
}

/* Test only: HP_TEST_PUBLISH_DELAY_MS makes the creating rank slow (an oversubscribed
 * node, a slow filesystem) right before its directory appears under the real name;
 * HP_TEST_RENAME_FALLBACK=1 takes the way of filesystems without RENAME_NOREPLACE. */
static void test_publish_delay(void)
{
    const char *value = secure_getenv("HP_TEST_PUBLISH_DELAY_MS");
    for (long ms = value != NULL ? atol(value) : 0; ms > 0; ms--)
        hp_nap(1000000);
}

static int rename_noreplace(const char *from, const char *to)
{
    const char *fallback = secure_getenv("HP_TEST_RENAME_FALLBACK");
    if (fallback != NULL && strcmp(fallback, "1") == 0) {
        errno = EINVAL;
        return -1;
    }
    test_publish_delay();
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

/* Makes tmp, already marked, appear as dir, unless dir exists. Returns 0, or -1 with
 * errno EEXIST when dir exists, or another error. */
static int publish_directory(const char *tmp, const char *dir)
{
    if (rename_noreplace(tmp, dir) == 0)
        return 0;
    if (errno == ENOTEMPTY)
        errno = EEXIST;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    /* No RENAME_NOREPLACE here: claim the name with an empty directory, which nothing
     * else can take from us, then replace it by the marked one (rename replaces an empty
     * directory atomically). */
    if (mkdir(dir, 0777) < 0)
        return -1;
    test_publish_delay();
    if (rename(tmp, dir) == 0)
        return 0;
    int error = errno;
    rmdir(dir);
    errno = error;
    return -1;
}

/* Creates dir with the job's marker in it, never visible without. Returns 0, or -1 with
 * errno (EEXIST: dir exists). Leaves nothing behind when it fails. */
static int create_marked_directory(const char *dir)
{
    char tmp[PATH_SIZE];
    if (snprintf(tmp, sizeof(tmp), "%s.%s.tmp", dir, job.token) >= (int)sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (mkdir(tmp, 0777) < 0)
        return -1;
    if (write_marker(tmp) < 0 || publish_directory(tmp, dir) < 0) {
        remove_private(tmp);
        return -1;
    }
    return 0;
}

/* Reads dir's marker into text (size bytes). Returns 0, or -1 with errno ENOENT when dir
 * holds nothing at all yet (a creating rank without RENAME_NOREPLACE is about to rename
 * its marked directory over it), another errno when dir is not this kind of directory:
 * a symbolic link, or a directory with other files but no marker. */
static int read_marker(const char *dir, char *text, size_t size)
{
    int dfd = open_directory(dir);
    if (dfd < 0)
        return -1;
    int fd = openat(dfd, JOB_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, text, size - 1);
        text[n > 0 ? n : 0] = '\0';
        close(fd);
        close(dfd);
        return 0;
    }
    int error = errno;
    DIR *d = error == ENOENT ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        close(dfd);
        errno = error;
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL && (strcmp(e->d_name, ".") == 0 ||
                                        strcmp(e->d_name, "..") == 0))
        ;
    errno = e == NULL ? ENOENT : EEXIST;
    closedir(d);
    return -1;
}

/* Whether dir (which exists) is this job's: its marker holds our token. An empty dir is
 * waited for a while (see read_marker) before it counts as another run's. */
static bool is_job_directory(const char *dir)
{
    char text[sizeof(job.token)];
    for (int ms = 0; ms < MARKER_WAIT_MS; ms++) {
        if (read_marker(dir, text, sizeof(text)) == 0)
            return strcmp(text, job.token) == 0;
        if (errno != ENOENT)
            return false;
        hp_nap(1000000);
    }
    return false;
}

/* The job's directory: created by this rank, or found created by another rank. */
static int claim_job_directory(char *dir, size_t size)
{
    for (int i = job.first; i < job.first + MAX_SUFFIX; i++) {
        if (suffixed(job.base, i, dir, size) < 0)
            return -1;
        if (create_marked_directory(dir) == 0) {
            if (i > job.first) {
                char shown_dir[SHOWN_SIZE];
                hp_warn("another run took the experiment directory name meanwhile; "
                        "writing to %s instead", shown(dir, shown_dir));
            }
            return 0;
        }
        if (errno != EEXIST)
            return -1;
        if (is_job_directory(dir))
            return 0;
    }
    errno = EEXIST;
    return -1;
}

const char *hp_experiment_directory(void)
{
    if (directory[0] != '\0')
        return directory;
    if (job.token[0] == '\0' && hp_job_mpi_active()) {
        /* No directory of its own: the job's would be written without it. */
        hp_error("rank %d: no experiment directory to write into (rank 0, which names "
                 "it, does not measure)", hp_job_rank());
        return directory;
    }
    int rc = job.token[0] != '\0'
                 ? claim_job_directory(directory, sizeof(directory))
                 : create_directory(hp_job_start_time(), directory, sizeof(directory));
    if (rc < 0) {
        char shown_dir[SHOWN_SIZE];
        int error = errno;
        hp_error("cannot create the experiment directory %s: %s", shown(directory, shown_dir),
                 strerror(error));
        directory[0] = '\0';
    }
    return directory;
}

/* Unmeasured calls per function, summed over this process's locations. */
static int add_unmeasured(hp_profile_data *d)
{
    size_t n = 0;
    const char *const *names = hp_location_call_names(&n);
    if (n == 0)
        return 0;
    uint64_t *sums = calloc(n, sizeof(uint64_t));
    d->unmeasured = calloc(n, sizeof(hp_profile_call_count));
    if (sums == NULL || d->unmeasured == NULL) {
        free(sums);
        return -1;
    }
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next)
        for (size_t i = 0; l->call_counts != NULL && i < n; i++)
            sums[i] += l->call_counts[i];
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (sums[i] > 0)
            d->unmeasured[used++] = (hp_profile_call_count){ names[i], 0, sums[i] };
    free(sums);
    d->profile.unmeasured = d->unmeasured;
    d->profile.nunmeasured = used;
    return 0;
}

static void add_sampling(hp_profile_data *d)
{
    hp_sampling_stats s;
    uint64_t interval_ns;
    hp_sampling_collect(&s, &interval_ns);
    hp_profile_sampling *out = &d->profile.sampling;
    *out = (hp_profile_sampling){ .frequency = hp_cfg.sampling_frequency,
                                  .samples = s.samples,
                                  .attributed = s.attributed,
                                  .in_mpi = s.in_mpi,
                                  .busy = s.busy,
                                  .throttled = s.throttled,
                                  .failed = s.failed + s.truncated,
                                  .unanchored = s.unanchored,
                                  .mpi_unwinds = s.mpi_unwinds,
                                  .held = s.held,
                                  .thunks_set = s.thunks_set,
                                  .thunk_prefixes = s.thunk_prefixes,
                                  .walked_frames = s.walked_frames };
    for (int i = 0; i < HP_PROFILE_SAMPLING_BUCKETS && i < HP_SAMPLING_BUCKETS; i++)
        out->histogram[i] = s.histogram[i];
}

/* The units that fell back at build time, as the profile's lines (profile.h), or NULL;
 * made once, kept to the end of the process. */
static const char *fallback_note(void)
{
    static char *note;
    size_t count, kept, size = 64;
    char *const *lines = hp_overhead_fallback_units(&count, &kept);
    if (note != NULL || count == 0)
        return note;
    for (size_t i = 0; i < kept; i++)
        size += lines[i] != NULL ? strlen(lines[i]) + 1 : 0;
    note = malloc(size);
    if (note == NULL)
        return NULL;
    size_t len = 0, shown = 0;
    note[0] = '\0';
    for (size_t i = 0; i < kept; i++)
        if (lines[i] != NULL) {
            len += (size_t)snprintf(note + len, size - len, "%s\n", lines[i]);
            shown++;
        }
    if (shown < count) /* lines lost to a full list or to memory */
        snprintf(note + len, size - len, "and %zu more\n", count - shown);
    return note;
}

/* Linked in by hp-instrument when clang's after-inlining hooks were used
 * (instrumenter/clang_marker.c). */
extern const int hp_clang_after_inlining_build __attribute__((weak));

/* What the compiler instrumented, the probe cost, and the visits it was paid for. */
static void add_instrumentation(hp_profile_data *d, double ticks_per_second)
{
    uint64_t units[HP_INSTR_COUNTS];
    hp_overhead_unit_totals(units);
    hp_profile *p = &d->profile;
    hp_profile_instrumentation *out = &p->instrumentation;
    *out = (hp_profile_instrumentation){
        .units = units[HP_INSTR_UNITS],
        .instrumented = units[HP_INSTR_INSTRUMENTED],
        .skipped_inline = units[HP_INSTR_INLINE],
        .skipped_artificial = units[HP_INSTR_ARTIFICIAL],
        .skipped_system = units[HP_INSTR_SYSTEM],
        .filtered = units[HP_INSTR_FILTERED],
        .budget_percent = hp_cfg.overhead_budget,
        .probe_ps = (uint64_t)((double)hp_overhead_probe_ticks() * 1e12 / ticks_per_second),
        .hooks = &hp_clang_after_inlining_build != NULL ? HP_HOOKS_CLANG_AFTER_INLINING
                                                         : HP_HOOKS_GCC,
    };
    double measured = 0;
    for (size_t c = 0; c < p->ncnodes; c++) {
        bool compiler = strcmp(p->regions[p->cnodes[c].region].paradigm, "compiler") == 0;
        bool root = p->cnodes[c].parent == HP_PROFILE_NO_PARENT;
        for (size_t l = 0; l < p->nlocations; l++) {
            if (compiler)
                out->probe_visits += d->visits[c * p->nlocations + l];
            if (root)
                measured += d->time[c * p->nlocations + l];
        }
    }
    out->measured_ns = (uint64_t)(measured * 1e9);
}

/* Writes dir/demoted.filter: a compile-time filter (hp-instrument --instrument-filter)
 * that leaves out every region the budget switched off. Nothing when none was. */
static void write_demoted_filter(const char *dir, const hp_profile *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nregions; i++)
        n += p->regions[i].demoted;
    if (n == 0)
        return;
    char path[PATH_SIZE];
    FILE *f = open_in_directory(dir, "demoted.filter", path, sizeof(path));
    if (f == NULL)
        return;
    fprintf(f, "# Regions that HP_OVERHEAD_BUDGET=%llu%% switched off during the run: their\n"
               "# probes cost more than the budget allows. Build with\n"
               "#   hp-instrument --instrument-filter=%s ...\n"
               "# to leave them out at compile time (they can then be inlined).\n"
               "SCOREP_REGION_NAMES_BEGIN\n",
            (unsigned long long)p->instrumentation.budget_percent, path);
    /* Symbol names hold no blanks, '#' or wildcards: no escaping needed. */
    for (size_t i = 0; i < p->nregions; i++)
        if (p->regions[i].demoted)
            fprintf(f, "  EXCLUDE MANGLED %s\n", p->regions[i].mangled_name);
    fprintf(f, "SCOREP_REGION_NAMES_END\n");
    if (fclose(f) != 0)
        cannot_write(path);
}

int hp_experiment_build(hp_profile_data *d)
{
    static char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    hp_profile_options options = { hp_job_rank(), hp_job_mpi_active(),
                                   hp_cfg.profiling_recursion == HP_RECURSION_COLLAPSE,
                                   hp_ws_on };
    if (hp_location_list() == NULL) {
        hp_error("no thread could be measured: HP_TOTAL_MEMORY (%llu bytes) is too small; "
                 "nothing written",
                 (unsigned long long)hp_cfg.total_memory);
        return -1;
    }
    if (hp_profile_build(d, hp_location_list(), hp_timer_ticks_per_second(), host,
                         "hpmeasure " HP_VERSION, &options) < 0 ||
        add_unmeasured(d) < 0) {
        hp_error("out of memory while building the profile");
        return -1;
    }
    add_sampling(d);
    add_instrumentation(d, hp_timer_ticks_per_second());
    return 0;
}

/* Why the run was cut short ("" = it was not): goes into the profile and summary. */
static char interruption[128];

void hp_experiment_set_interrupted(const char *text)
{
    snprintf(interruption, sizeof(interruption), "%s", text);
}

/* Writes p into dir (which exists) as profile<suffix>.cubex and summary<suffix>.txt. The
 * Cube file comes last (it appears whole, by a rename): an MPI rank ended by a signal
 * takes the other ranks' Cube files as the sign that they have written everything
 * (hp_experiment_wait_for_ranks) and then dies, and hydra then SIGKILLs the rest. */
static void write_profile_in(const char *dir, const hp_profile *p, const char *suffix)
{
    char notes[MAX_NOTES][256], name[64];
    size_t nnotes = collect_notes(notes);
    size_t said = nnotes; /* the counters' notes were said on stderr when they arose */
    for (unsigned i = 0; nnotes < MAX_NOTES && hp_metrics_note(i) != NULL; i++)
        snprintf(notes[nnotes++], 256, "%s", hp_metrics_note(i));
    hp_profile marked = *p;
    if (interruption[0] != '\0')
        marked.interrupted = interruption;
    marked.wait_states = hp_ws_note();
    /* This process's units: an MPI job's processes run the same program, and a merged
     * profile carries no strings. */
    marked.fallback_units = fallback_note();
    snprintf(name, sizeof(name), "summary%s.txt", suffix);
    write_summary(dir, name, &marked, notes, nnotes);
    write_config(dir);
    write_demoted_filter(dir, p);
    for (size_t i = 0; i < said; i++)
        hp_warn("%s", notes[i]);
    snprintf(name, sizeof(name), "profile%s.cubex", suffix);
    write_cube(dir, name, &marked);
}

void hp_experiment_append_summary(const char *text)
{
    char path[PATH_SIZE];
    if (directory[0] == '\0' ||
        snprintf(path, sizeof(path), "%s/summary.txt", directory) >= (int)sizeof(path))
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (f == NULL && fd >= 0)
        close(fd);
    int rc = f != NULL && fputs(text, f) >= 0 ? 0 : -1;
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    if (rc < 0)
        cannot_write(path);
}

void hp_experiment_write_profile(const hp_profile *p, const char *suffix)
{
    if (suffix[0] == '\0') /* the whole job's profile */
        hp_site_log_append(p);
    if (!hp_cfg.enable_profiling) /* accounting only (HP_SITE_LOG): no experiment */
        return;
    if (hp_experiment_directory()[0] == '\0')
        return;
    write_profile_in(directory, p, suffix);
    char shown_dir[SHOWN_SIZE];
    hp_info("experiment written to %s", shown(directory, shown_dir));
    if (hp_location_thread_count() > hp_location_count())
        hp_info("%llu threads ran in %u locations (HP_THREAD_LOCATIONS=reuse)",
                (unsigned long long)hp_location_thread_count(), hp_location_count());
}

/* Adds (sign 1) or takes back (sign -1) the time so far of the calling thread's open
 * frames, so that a snapshot shows main and the calls around the snapshot with their
 * time; the thread is inside the snapshot, so nothing else changes these nodes. */
static void open_frames_time(hp_location *loc, uint64_t now, int sign)
{
    const hp_stack_chunk *c = loc->chunk;
    const hp_frame *f = loc->sp;
    for (uint64_t n = loc->depth; n > 0 && c != NULL; n--) {
        if (f == c->base) {
            if (c->prev == NULL)
                break;
            c = c->prev;
            f = c->limit;
        }
        --f;
        if (f->node != NULL && f->start <= now)
            f->node->incl_ticks += sign > 0 ? now - f->start : -(now - f->start);
    }
}

void hp_experiment_wait_for_ranks(int size, int max_ms)
{
    for (int ms = 0; ms < max_ms && directory[0] != '\0'; ms += 10) {
        int found = 0;
        char path[PATH_SIZE];
        for (int r = 0; r < size; r++) {
            snprintf(path, sizeof(path), "%s/profile-rank%d.cubex", directory, r);
            found += access(path, F_OK) == 0;
        }
        if (found >= size)
            return;
        hp_nap(10000000);
    }
}

void hp_experiment_snapshot(int number)
{
    uint64_t now = hp_timer_now();
    for (hp_location *l = hp_location_list(); l != NULL; l = l->next) {
        hp_cct_node *root = l->cct.root;
        if (!atomic_load(&l->closed)) { /* the program root's time, as closing sets it */
            root->incl_ticks = hp_location_root_ticks(l, now);
            if (root->visits == 1)
                root->min_ticks = root->max_ticks = root->incl_ticks;
        }
    }
    hp_location *self = hp__tls_location;
    bool own = self != NULL && !hp_location_ignores_events(self) && !self->in_core;
    if (own)
        open_frames_time(self, now, 1);
    hp_profile_data d;
    int rc = hp_experiment_build(&d);
    if (own)
        open_frames_time(self, now, -1);
    if (rc < 0)
        return;
    char dir[PATH_SIZE], suffix[32] = "";
    if (hp_experiment_directory()[0] == '\0')
        goto out;
    snprintf(dir, sizeof(dir), "%s/snapshot-%d", directory, number);
    /* MPI ranks share it; a symbolic link put in its place is not followed. */
    int dfd = mkdir(dir, 0777) == 0 || errno == EEXIST ? open_directory(dir) : -1;
    if (dfd < 0) {
        char shown_dir[SHOWN_SIZE];
        int error = errno;
        hp_error("cannot create %s: %s", shown(dir, shown_dir), why(error));
        goto out;
    }
    close(dfd);
    if (hp_job_mpi_active())
        snprintf(suffix, sizeof(suffix), "-rank%d", hp_job_rank());
    snprintf(interruption, sizeof(interruption), "snapshot %d, taken while the program "
             "ran", number);
    write_profile_in(dir, &d.profile, suffix);
    interruption[0] = '\0';
    char shown_dir[SHOWN_SIZE];
    hp_warn("snapshot %d written to %s", number, shown(dir, shown_dir));
out:
    hp_profile_data_release(&d);
}

void hp_experiment_write_rank(int rank)
{
    char suffix[32];
    snprintf(suffix, sizeof(suffix), "-rank%d", rank);
    hp_profile_data d;
    if (hp_experiment_build(&d) < 0)
        return;
    hp_experiment_write_profile(&d.profile, suffix);
    hp_profile_data_release(&d);
}
