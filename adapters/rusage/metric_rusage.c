/*
 * HP_METRIC_RUSAGE: fields of getrusage(RUSAGE_THREAD), the calling thread's own usage.
 * Each read is one system call (about as costly as a perf read, see doc/counters.md), so
 * these are recorded only when asked for. Times are counted in microseconds; ru_maxrss is
 * a high-water mark, so its value per call path is how much the peak grew there.
 */
#include "measurement/core/metrics.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

typedef struct rusage_field {
    const char *name;
    const char *unit;
    const char *descr;
} rusage_field;

static const rusage_field fields[] = {
    { "ru_utime", "usec", "User CPU time (getrusage)" },
    { "ru_stime", "usec", "System CPU time (getrusage)" },
    { "ru_maxrss", "KiB", "Growth of the peak resident set size (getrusage)" },
    { "ru_minflt", "occ", "Minor page faults: no I/O (getrusage)" },
    { "ru_majflt", "occ", "Major page faults: with I/O (getrusage)" },
    { "ru_inblock", "occ", "Block input operations (getrusage)" },
    { "ru_oublock", "occ", "Block output operations (getrusage)" },
    { "ru_nvcsw", "occ", "Voluntary context switches (getrusage)" },
    { "ru_nivcsw", "occ", "Involuntary context switches (getrusage)" },
};
enum { NFIELDS = sizeof(fields) / sizeof(fields[0]) };

static const char *const all_fields[] = { "ru_utime", "ru_stime", "ru_maxrss", "ru_minflt",
                                          "ru_majflt", "ru_inblock", "ru_oublock",
                                          "ru_nvcsw", "ru_nivcsw", NULL };

static uint64_t usec(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* Field i of u, in the order of fields[]. */
static uint64_t field_value(const struct rusage *u, uint64_t i)
{
    switch (i) {
    case 0: return usec(u->ru_utime);
    case 1: return usec(u->ru_stime);
    case 2: return (uint64_t)u->ru_maxrss;
    case 3: return (uint64_t)u->ru_minflt;
    case 4: return (uint64_t)u->ru_majflt;
    case 5: return (uint64_t)u->ru_inblock;
    case 6: return (uint64_t)u->ru_oublock;
    case 7: return (uint64_t)u->ru_nvcsw;
    default: return (uint64_t)u->ru_nivcsw;
    }
}

static int rusage_resolve(const char *name, hp_metric_info *info, char *why, size_t whylen)
{
    for (int i = 0; i < NFIELDS; i++) {
        if (strcmp(fields[i].name, name) != 0)
            continue;
        struct rusage u;
        if (getrusage(RUSAGE_THREAD, &u) < 0) {
            snprintf(why, whylen, "getrusage(RUSAGE_THREAD): %s", strerror(errno));
            return HP_METRIC_UNAVAILABLE;
        }
        snprintf(info->uniq_name, sizeof(info->uniq_name), "%s", name);
        info->unit = fields[i].unit;
        info->descr = fields[i].descr;
        info->code = (uint64_t)i;
        return HP_METRIC_OK;
    }
    snprintf(why, whylen, "the fields are all or %s ... %s", fields[0].name,
             fields[NFIELDS - 1].name);
    return HP_METRIC_UNKNOWN;
}

/* Keeps the fields to read: fd[i] = index into fields[]. */
static int rusage_open(const hp_metric_info *infos, unsigned n, hp_metric_handle *h,
                       char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    for (unsigned i = 0; i < n; i++)
        h->fd[i] = (int)infos[i].code;
    return 0;
}

static int rusage_read(const hp_metric_handle *h, unsigned n, uint64_t *values)
{
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) < 0)
        return -1;
    for (unsigned i = 0; i < n; i++)
        values[i] = field_value(&u, (uint64_t)h->fd[i]);
    return 0;
}

static void rusage_close(hp_metric_handle *h)
{
    (void)h;
}

static void rusage_list(FILE *out)
{
    struct rusage u;
    const char *state = getrusage(RUSAGE_THREAD, &u) == 0 ? "available" : strerror(errno);
    for (int i = 0; i < NFIELDS; i++)
        fprintf(out, "  %-18s %-5s %s: %s\n", fields[i].name, fields[i].unit,
                fields[i].descr, state);
    fprintf(out, "  %-18s       every field above\n", "all");
}

const hp_metric_source_ops hp__metric_rusage_ops = {
    "HP_METRIC_RUSAGE", "getrusage fields", rusage_resolve, rusage_open, rusage_read,
    rusage_close, rusage_list, all_fields
};

HP_METRIC_SOURCE_REGISTER(HP_METRIC_SOURCE_RUSAGE, hp__metric_rusage_ops)
