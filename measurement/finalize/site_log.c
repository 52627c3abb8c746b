/*
 * The site accounting log: one JSON object per line and per job (format in doc/site.md).
 *
 * The record is built in memory first, so that it reaches the file in a single write()
 * on a descriptor opened with O_APPEND: concurrent jobs appending to one local file then
 * never interleave, and a job that dies mid-way leaves no half line behind. The log is
 * opened with O_NOFOLLOW and must be a regular file: a symbolic link planted where the
 * log should be cannot redirect a job's writes, and a FIFO cannot block it (O_NONBLOCK).
 * Nothing here can fail the job: every problem is one message on stderr.
 *
 * The JSON is written by hand rather than with a library, so that measured programs load
 * no extra shared library; strings are escaped per RFC 8259 and invalid UTF-8 (paths are
 * bytes) becomes U+FFFD, so every line parses.
 */
#include "site_log.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measurement/core/config.h"
#include "measurement/core/job.h"
#include "profile/summary.h"
#include "util/log.h"

#ifndef HP_VERSION
#define HP_VERSION "0.0.0"
#endif

enum { RECORD_VERSION = 1, PATH_SIZE = 4096 + 64 };

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not valid. */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || s[0] > 0xF4)
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) || /* overlong, */
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F))   /* surrogates */
        return 0;
    return n;
}

static void json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *s = (const unsigned char *)text; *s != '\0';) {
        if (*s == '"' || *s == '\\') {
            fprintf(out, "\\%c", *s++);
        } else if (*s < 0x20 || *s == 0x7F) {
            fprintf(out, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, out);
        } else {
            int n = utf8_length(s);
            if (n == 0) {
                fputs("\\ufffd", out);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, out);
                s += n;
            }
        }
    }
    fputc('"', out);
}

/* JSON has no NaN or infinity. */
static double finite_or_zero(double v)
{
    return isfinite(v) ? v : 0.0;
}

static const hp_profile_metric *metric_named(const hp_profile *p, const char *name)
{
    for (size_t m = 0; m < p->nmetrics; m++)
        if (strcmp(p->metrics[m].uniq_name, name) == 0)
            return &p->metrics[m];
    return NULL;
}

/* Sum of a metric's values at cnode c over all locations (0 when there is no metric). */
static double metric_sum(const hp_profile *p, const hp_profile_metric *m, size_t c)
{
    double sum = 0;
    for (size_t l = 0; m != NULL && l < p->nlocations; l++) {
        size_t i = c * p->nlocations + l;
        sum += m->dtype == HP_DTYPE_UINT64 ? (double)((const uint64_t *)m->values)[i]
                                           : ((const double *)m->values)[i];
    }
    return sum;
}

/* Calls, time (outermost MPI calls only: MPI inside MPI is not counted twice) and bytes
 * per MPI function of the job. */
typedef struct mpi_total {
    double calls, seconds, bytes;
} mpi_total;

static bool is_mpi(const hp_profile *p, size_t c)
{
    return strcmp(p->regions[p->cnodes[c].region].paradigm, "mpi") == 0;
}

/* Fills totals (one per region) and returns the MPI time of the job; NULL on no memory. */
static mpi_total *mpi_totals(const hp_profile *p, double *mpi_seconds)
{
    mpi_total *t = calloc(p->nregions + 1, sizeof(*t));
    bool *inside = calloc(p->ncnodes + 1, sizeof(*inside)); /* below an MPI call */
    const hp_profile_metric *visits = metric_named(p, "visits"),
                            *time = metric_named(p, "time"),
                            *sent = metric_named(p, "bytes_sent"),
                            *received = metric_named(p, "bytes_received");
    *mpi_seconds = 0;
    if (t == NULL || inside == NULL) {
        free(t);
        free(inside);
        return NULL;
    }
    for (size_t c = 1; c < p->ncnodes; c++) { /* pre-order: parents come first */
        uint32_t parent = p->cnodes[c].parent;
        inside[c] = inside[parent] || is_mpi(p, parent);
        if (!is_mpi(p, c))
            continue;
        mpi_total *r = &t[p->cnodes[c].region];
        r->calls += metric_sum(p, visits, c);
        r->bytes += metric_sum(p, sent, c) + metric_sum(p, received, c);
        if (!inside[c]) {
            double s = metric_sum(p, time, c);
            r->seconds += s;
            *mpi_seconds += s;
        }
    }
    free(inside);
    return t;
}

/* Wall time: the longest time of a process's master thread at the root. */
static double wall_seconds(const hp_profile *p)
{
    const hp_profile_metric *time = metric_named(p, "time");
    double wall = 0;
    for (size_t l = 0; time != NULL && l < p->nlocations; l++) {
        double v = ((const double *)time->values)[l]; /* cnode 0 */
        if (p->locations[l].thread == 0 && v > wall)
            wall = v;
    }
    return wall;
}

/* The most threads of one process. */
static size_t threads_per_process(const hp_profile *p)
{
    size_t most = 0;
    for (size_t proc = 0; proc < p->nprocesses; proc++) {
        size_t n = 0;
        for (size_t l = 0; l < p->nlocations; l++)
            n += p->locations[l].process == proc;
        if (n > most)
            most = n;
    }
    return most;
}

static void write_identity(FILE *out)
{
    static const char *const job_vars[] = { "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID" };
    const char *job = NULL;
    for (size_t i = 0; i < sizeof(job_vars) / sizeof(job_vars[0]) && job == NULL; i++)
        job = secure_getenv(job_vars[i]);
    struct passwd pw, *found = NULL;
    char pwbuf[1024], uid[32], exe[4096], host[256] = "";
    snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
    const char *user = getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &found) == 0 &&
                               found != NULL ? found->pw_name : uid;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    gethostname(host, sizeof(host) - 1);
    const char *app = strrchr(exe, '/');

    fputs("\"user\":", out);
    json_string(out, user);
    fputs(",\"job\":", out);
    if (job != NULL && job[0] != '\0')
        json_string(out, job);
    else
        fputs("null", out);
    fputs(",\"exe\":", out);
    json_string(out, exe);
    fputs(",\"app\":", out);
    json_string(out, app != NULL ? app + 1 : exe);
    fputs(",\"host\":", out);
    json_string(out, host);
}

static void write_mpi(FILE *out, const hp_profile *p, const mpi_total *t)
{
    fputs(",\"mpi\":{", out);
    bool first = true;
    for (size_t r = 0; t != NULL && r < p->nregions; r++) {
        if (t[r].calls == 0 && t[r].seconds == 0)
            continue;
        fputs(first ? "" : ",", out);
        first = false;
        json_string(out, p->regions[r].name);
        fprintf(out, ":{\"calls\":%.0f,\"time_s\":%.9g,\"bytes\":%.0f}", t[r].calls,
                finite_or_zero(t[r].seconds), t[r].bytes);
    }
    /* Counted, not timed (HP_MPI_EXCLUDE): one entry per function and process. */
    for (size_t u = 0; u < p->nunmeasured; u++) {
        const char *name = p->unmeasured[u].name;
        size_t earlier = 0;
        while (earlier < u && strcmp(p->unmeasured[earlier].name, name) != 0)
            earlier++;
        if (earlier < u)
            continue; /* summed at its first entry */
        uint64_t calls = 0;
        for (size_t v = u; v < p->nunmeasured; v++)
            calls += strcmp(p->unmeasured[v].name, name) == 0 ? p->unmeasured[v].calls : 0;
        fputs(first ? "" : ",", out);
        first = false;
        json_string(out, name);
        fprintf(out, ":{\"calls\":%llu,\"time_s\":0,\"bytes\":0}", (unsigned long long)calls);
    }
    fputc('}', out);
}

/* Counter totals of the job (HP_METRIC_PERF/RUSAGE/PAPI: the profile's inclusive integer
 * metrics), summed over ranks: all, inside outermost MPI calls, and the rest. They come
 * from the unified profile, which already holds every rank's values, so no extra
 * communication is needed; the integers add up exactly (mpi + app = total). Nothing is
 * written when no counter was measured. Returns -1 when memory ran out. */
static int write_counters(FILE *out, const hp_profile *p)
{
    bool *outer = NULL, first = true;
    for (size_t m = 0; m < p->nmetrics; m++) {
        const hp_profile_metric *mt = &p->metrics[m];
        if (mt->kind != HP_METRIC_INCLUSIVE || mt->dtype != HP_DTYPE_UINT64)
            continue;
        if (outer == NULL && (outer = hp_profile_outermost_mpi(p)) == NULL)
            return -1;
        uint64_t total = 0, mpi = 0;
        for (size_t proc = 0; proc < p->nprocesses; proc++) {
            hp_mpi_split split;
            hp_profile_split_mpi(p, mt, outer, proc, &split);
            total += split.total_u;
            mpi += split.mpi_u;
        }
        fputs(first ? ",\"counters\":{" : ",", out);
        first = false;
        json_string(out, mt->uniq_name);
        fprintf(out, ":{\"total\":%llu,\"mpi\":%llu,\"app\":%llu}", (unsigned long long)total,
                (unsigned long long)mpi, (unsigned long long)(total - mpi));
    }
    if (!first)
        fputc('}', out);
    free(outer);
    return 0;
}

/* The record as one line, malloc'd into *buf; returns its length or 0 (no memory). */
static size_t build_record(const hp_profile *p, char **buf)
{
    size_t len = 0;
    FILE *out = open_memstream(buf, &len);
    if (out == NULL)
        return 0;
    double mpi_seconds, wall = wall_seconds(p);
    mpi_total *totals = mpi_totals(p, &mpi_seconds);
    time_t start = hp_job_start_time();
    struct tm tm;
    char start_text[32] = "";
    if (gmtime_r(&start, &tm) != NULL)
        strftime(start_text, sizeof(start_text), "%Y-%m-%dT%H:%M:%SZ", &tm);
    size_t ranks = p->nprocesses > 0 ? p->nprocesses : 1;

    fprintf(out, "{\"v\":%d,", RECORD_VERSION);
    write_identity(out);
    fprintf(out, ",\"nodes\":%zu,\"ranks\":%zu,\"threads\":%zu", p->nnodes > 0 ? p->nnodes : 1,
            ranks, threads_per_process(p));
    fprintf(out, ",\"start\":\"%s\",\"start_epoch\":%lld,\"wall_s\":%.9g,\"mpi_s\":%.9g,"
                 "\"mpi_share\":%.6f",
            start_text, (long long)start, finite_or_zero(wall), finite_or_zero(mpi_seconds),
            wall > 0 ? finite_or_zero(mpi_seconds / (wall * (double)ranks)) : 0.0);
    write_mpi(out, p, totals);
    int counters = write_counters(out, p);
    fprintf(out, ",\"hpmeasure\":\"%s\"}\n", HP_VERSION);
    free(totals);
    if (fclose(out) != 0 || totals == NULL || counters != 0) {
        free(*buf);
        *buf = NULL;
        return 0;
    }
    return len;
}

/* The file to append to: HP_SITE_LOG itself, or in a directory hp-site-<UTC day>.jsonl. */
static void log_path(char *path, size_t size)
{
    struct stat st;
    if (lstat(hp_cfg.site_log, &st) == 0 && S_ISDIR(st.st_mode)) {
        time_t now = time(NULL);
        struct tm tm;
        char day[16] = "unknown-day";
        if (gmtime_r(&now, &tm) != NULL)
            strftime(day, sizeof(day), "%Y-%m-%d", &tm);
        snprintf(path, size, "%s/hp-site-%s.jsonl", hp_cfg.site_log, day);
    } else {
        snprintf(path, size, "%s", hp_cfg.site_log);
    }
}

/* Opens path for appending; returns the descriptor or -1 with *why set. */
static int open_log(const char *path, const char **why)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                  0666);
    if (fd < 0) {
        *why = errno == ELOOP   ? "it is a symbolic link, which is refused"
               : errno == ENXIO ? "it is not a regular file (a FIFO?)"
                                : strerror(errno);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        *why = "it is not a regular file";
        close(fd);
        return -1;
    }
    return fd;
}

void hp_site_log_append(const hp_profile *p)
{
    if (hp_cfg.site_log[0] == '\0')
        return;
    char path[PATH_SIZE], *record = NULL;
    const char *why = NULL;
    log_path(path, sizeof(path));
    size_t len = build_record(p, &record);
    int fd = len > 0 ? open_log(path, &why) : -1;
    if (len == 0)
        why = "out of memory";
    if (fd >= 0) {
        ssize_t n;
        do
            n = write(fd, record, len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            why = strerror(errno);
        else if ((size_t)n != len)
            why = "short write (file system full?)";
        close(fd);
    }
    if (why != NULL)
        hp_warn("HP_SITE_LOG: cannot append this job's record to %s: %s; "
                "the job is not affected", path, why);
    else
        hp_info("job record appended to %s", path);
    free(record);
}
