/*
 * HP_METRIC_PERF: Linux perf events through perf_event_open, without libpfm. Per thread
 * the configured events form one group (the first is the leader) opened with
 * PERF_FORMAT_GROUP, so one read() returns all of them. Events count user space only
 * (exclude_kernel), which kernel.perf_event_paranoid=2, Debian's default, allows for a
 * process's own threads; software events (page faults, task clock, ...) are counted all
 * the same since they are charged to the user context that caused them.
 */
#include "metrics.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct perf_event_name {
    const char *name;
    uint32_t type;
    uint64_t config;
    const char *unit;
    const char *descr;
} perf_event_name;

/* perf(1)'s names for the generic events. */
static const perf_event_name events[] = {
    { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "nsec",
      "CPU time of the thread (perf task-clock)" },
    { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "nsec",
      "CPU clock while the thread runs (perf cpu-clock)" },
    { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "occ",
      "Page faults (perf page-faults)" },
    { "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "occ",
      "Minor page faults: no I/O (perf minor-faults)" },
    { "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "occ",
      "Major page faults: with I/O (perf major-faults)" },
    { "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "occ",
      "Context switches (perf context-switches)" },
    { "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "occ",
      "Moves of the thread to another CPU (perf cpu-migrations)" },
    { "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "occ",
      "Alignment faults (perf alignment-faults)" },
    { "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "occ",
      "Emulation faults (perf emulation-faults)" },
    { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "occ",
      "CPU cycles (perf cycles)" },
    { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "occ",
      "Instructions retired (perf instructions)" },
    { "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "occ",
      "Last-level cache accesses (perf cache-references)" },
    { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "occ",
      "Last-level cache misses (perf cache-misses)" },
    { "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "occ",
      "Branch instructions retired (perf branches)" },
    { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "occ",
      "Mispredicted branches (perf branch-misses)" },
    { "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "occ",
      "Bus cycles (perf bus-cycles)" },
    { "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "occ",
      "Reference cycles, not scaled by frequency (perf ref-cycles)" },
};
enum { NEVENTS = sizeof(events) / sizeof(events[0]) };

static int event_open(uint32_t type, uint64_t config, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = type;
    a.config = config;
    a.read_format = PERF_FORMAT_GROUP;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* Why perf_event_open failed, for people. */
static void explain(int err, char *why, size_t whylen)
{
    if (err == ENOENT || err == EOPNOTSUPP)
        snprintf(why, whylen, "this machine has no counter for it (perf_event_open: %s; "
                 "no hardware PMU, e.g. in a VM)", strerror(err));
    else if (err == EACCES || err == EPERM)
        snprintf(why, whylen, "not permitted (perf_event_open: %s; see "
                 "/proc/sys/kernel/perf_event_paranoid)", strerror(err));
    else
        snprintf(why, whylen, "perf_event_open: %s", strerror(err));
}

static const perf_event_name *find(const char *name)
{
    for (int i = 0; i < NEVENTS; i++)
        if (strcmp(events[i].name, name) == 0)
            return &events[i];
    return NULL;
}

static int perf_resolve(const char *name, hp_metric_info *info, char *why, size_t whylen)
{
    const perf_event_name *e = find(name);
    if (e == NULL)
        return HP_METRIC_UNKNOWN;
    int fd = event_open(e->type, e->config, -1);
    if (fd < 0) {
        explain(errno, why, whylen);
        return HP_METRIC_UNAVAILABLE;
    }
    close(fd);
    snprintf(info->uniq_name, sizeof(info->uniq_name), "perf_%s", name);
    for (char *c = info->uniq_name; *c != '\0'; c++)
        if (*c == '-')
            *c = '_';
    info->unit = e->unit;
    info->descr = e->descr;
    info->code = (uint64_t)(e - events);
    return HP_METRIC_OK;
}

static void perf_close(hp_metric_handle *h)
{
    for (int i = 0; i < (int)h->id; i++)
        close(h->fd[i]);
    h->id = 0;
}

static int perf_open(const hp_metric_info *infos, unsigned n, hp_metric_handle *h, char *why,
                     size_t whylen)
{
    h->id = 0;
    for (unsigned i = 0; i < n; i++) {
        const perf_event_name *e = &events[infos[i].code];
        int fd = event_open(e->type, e->config, i == 0 ? -1 : h->fd[0]);
        if (fd < 0) {
            explain(errno, why, whylen);
            perf_close(h);
            return -1;
        }
        h->fd[h->id++] = fd;
    }
    return 0;
}

/* One read() for the whole group: { nr, value[nr] }. */
static int perf_read(const hp_metric_handle *h, unsigned n, uint64_t *values)
{
    uint64_t buf[1 + HP_METRICS_MAX];
    ssize_t want = (ssize_t)((1 + n) * sizeof(uint64_t));
    if (read(h->fd[0], buf, (size_t)want) != want || buf[0] != n)
        return -1;
    memcpy(values, buf + 1, n * sizeof(uint64_t));
    return 0;
}

static void perf_list(FILE *out)
{
    for (int i = 0; i < NEVENTS; i++) {
        int fd = event_open(events[i].type, events[i].config, -1);
        char why[160] = "opens here";
        if (fd >= 0)
            close(fd);
        else
            explain(errno, why, sizeof(why));
        fprintf(out, "  %-18s %-5s %s: %s\n", events[i].name, events[i].unit,
                events[i].descr, why);
    }
}

const hp_metric_source_ops hp__metric_perf_ops = {
    "HP_METRIC_PERF", "perf events", perf_resolve, perf_open, perf_read, perf_close, perf_list,
    NULL
};
