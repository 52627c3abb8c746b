/*
 * HP_METRIC_PERF: Linux perf events through perf_event_open, without libpfm. Per thread
 * the configured events are opened in groups read with PERF_FORMAT_GROUP, one read() per
 * group: one group per kind of kernel event source, because a group that mixes them
 * reads its members late (seen on Linux 6.18: task-clock led by page-faults lags by
 * milliseconds, and page-faults led by task-clock likewise). The kinds are the counting
 * software events (page faults, context switches, ...), task-clock, cpu-clock and the
 * hardware events; so `page-faults,context-switches` is one read, `task-clock,page-faults`
 * two.
 *
 * Events count kernel context too where allowed (context switches and CPU migrations
 * only happen there); where kernel.perf_event_paranoid forbids it, user space only
 * (exclude_kernel), and a counter that then cannot count anything says so at start-up.
 */
#include "measurement/core/metrics.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
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

/* Bit of hp_metric_info.code: count user space only (kernel counting not permitted). */
#define USER_ONLY (UINT64_C(1) << 32)

static int event_open(const perf_event_name *e, bool user_only, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = e->type;
    a.config = e->config;
    a.read_format = PERF_FORMAT_GROUP;
    a.exclude_kernel = user_only;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* Opens e alone, with kernel counting when permitted; *user_only says which it got. */
static int probe_open(const perf_event_name *e, bool *user_only)
{
    *user_only = false;
    int fd = event_open(e, false, -1);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        *user_only = true;
        fd = event_open(e, true, -1);
    }
    return fd;
}

/* Software events that only happen in kernel context: nothing to count in user space. */
static bool kernel_only(const perf_event_name *e)
{
    return e->type == PERF_TYPE_SOFTWARE && (e->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                                             e->config == PERF_COUNT_SW_CPU_MIGRATIONS);
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
    bool user_only;
    int fd = probe_open(e, &user_only);
    if (fd < 0) {
        explain(errno, why, whylen);
        return HP_METRIC_UNAVAILABLE;
    }
    close(fd);
    if (user_only && kernel_only(e)) {
        snprintf(why, whylen, "it happens in the kernel, which "
                 "/proc/sys/kernel/perf_event_paranoid does not let this process count");
        return HP_METRIC_UNAVAILABLE;
    }
    snprintf(info->uniq_name, sizeof(info->uniq_name), "perf_%s", name);
    for (char *c = info->uniq_name; *c != '\0'; c++)
        if (*c == '-')
            *c = '_';
    info->unit = e->unit;
    info->descr = e->descr;
    info->code = (uint64_t)(e - events) | (user_only ? USER_ONLY : 0);
    return HP_METRIC_OK;
}

static void perf_close(hp_metric_handle *h)
{
    for (int i = 0; i < (int)h->id; i++)
        close(h->fd[i]);
    h->id = 0;
}

/* The kernel event sources, one group each (see above). */
enum { GROUP_SOFTWARE, GROUP_TASK_CLOCK, GROUP_CPU_CLOCK, GROUP_HARDWARE, NGROUPS };

static int group_of(const perf_event_name *e)
{
    if (e->type == PERF_TYPE_HARDWARE)
        return GROUP_HARDWARE;
    if (e->config == PERF_COUNT_SW_TASK_CLOCK)
        return GROUP_TASK_CLOCK;
    return e->config == PERF_COUNT_SW_CPU_CLOCK ? GROUP_CPU_CLOCK : GROUP_SOFTWARE;
}

static const perf_event_name *event_of(const hp_metric_info *info)
{
    return &events[info->code & ~USER_ONLY];
}

/* Opens the events group by group: h->fd[j] is the j-th event opened, h->slot[j] its
 * configured index, h->slot[n + g] the size of group g (its events are contiguous). */
static int perf_open(const hp_metric_info *infos, unsigned n, hp_metric_handle *h, char *why,
                     size_t whylen)
{
    _Static_assert(HP_METRICS_MAX + NGROUPS <= sizeof(h->slot), "slot too small");
    h->id = 0;
    for (int g = 0; g < NGROUPS; g++) {
        unsigned leader = (unsigned)h->id;
        for (unsigned i = 0; i < n; i++) {
            if (group_of(event_of(&infos[i])) != g)
                continue;
            int fd = event_open(event_of(&infos[i]), infos[i].code & USER_ONLY,
                                (unsigned)h->id == leader ? -1 : h->fd[leader]);
            if (fd < 0) {
                explain(errno, why, whylen);
                perf_close(h);
                return -1;
            }
            h->slot[h->id] = (unsigned char)i;
            h->fd[h->id++] = fd;
        }
        h->slot[n + (unsigned)g] = (unsigned char)((unsigned)h->id - leader);
    }
    return 0;
}

/* One read() per group: { nr, value[nr] }. */
static int perf_read(const hp_metric_handle *h, unsigned n, uint64_t *values)
{
    uint64_t buf[1 + HP_METRICS_MAX];
    unsigned j = 0;
    for (unsigned g = 0; g < NGROUPS; g++) {
        unsigned size = h->slot[n + g];
        if (size == 0)
            continue;
        ssize_t want = (ssize_t)((1 + size) * sizeof(uint64_t));
        if (read(h->fd[j], buf, (size_t)want) != want || buf[0] != size)
            return -1;
        for (unsigned k = 0; k < size; k++, j++)
            values[h->slot[j]] = buf[1 + k];
    }
    return 0;
}

static void perf_list(FILE *out)
{
    for (int i = 0; i < NEVENTS; i++) {
        bool user_only;
        int fd = probe_open(&events[i], &user_only);
        char why[160] = "opens here";
        if (fd >= 0)
            close(fd);
        else
            explain(errno, why, sizeof(why));
        if (fd >= 0 && user_only)
            snprintf(why, sizeof(why), kernel_only(&events[i])
                                           ? "not here: it happens in the kernel, which "
                                             "perf_event_paranoid does not let us count"
                                           : "opens here (user space only)");
        fprintf(out, "  %-18s %-5s %s: %s\n", events[i].name, events[i].unit,
                events[i].descr, why);
    }
}

const hp_metric_source_ops hp__metric_perf_ops = {
    "HP_METRIC_PERF", "perf events", perf_resolve, perf_open, perf_read, perf_close, perf_list,
    NULL
};

HP_METRIC_SOURCE_REGISTER(HP_METRIC_SOURCE_PERF, hp__metric_perf_ops)
