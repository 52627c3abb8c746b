/*
 * The counter framework (metrics.h): resolving HP_METRIC_* at start-up, opening and
 * reading the sources per thread, and the notes about counters left out.
 */
#include "metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

#include "util/compiler.h"
#include "util/escape.h"
#include "util/log.h"

/* Filled from the adapters' entries (metrics.h) or hp_metrics_register; NULL: the source
 * is not in this build. */
static const hp_metric_source_ops *sources[HP_METRIC_SOURCES];
static bool registered[HP_METRIC_SOURCES];
/* Defined by the linker around the section when any entry is linked in; weak, so that
 * a program without a source links too (both NULL then); hidden, so that each library
 * reads its own entries and exports no such symbol. */
extern const hp_metric_source_entry __start_hp_metric_sources[]
    __attribute__((weak, visibility("hidden")));
extern const hp_metric_source_entry __stop_hp_metric_sources[]
    __attribute__((weak, visibility("hidden")));
/* For the message about a source that is not there (its ops would name it). */
static const char *const variables[HP_METRIC_SOURCES] = {
    [HP_METRIC_SOURCE_PERF] = "HP_METRIC_PERF",
    [HP_METRIC_SOURCE_RUSAGE] = "HP_METRIC_RUSAGE",
    [HP_METRIC_SOURCE_PAPI] = "HP_METRIC_PAPI",
};

static hp_metric_info infos[HP_METRICS_MAX];
static unsigned ninfos;
static unsigned source_first[HP_METRIC_SOURCES];
static unsigned source_count[HP_METRIC_SOURCES];

enum { MAX_NOTES = 8, NOTE_SIZE = 256 };
static char notes[MAX_NOTES][NOTE_SIZE];
static _Atomic unsigned nnotes;
/* Per source: a thread could not open it, a read failed (each said once). */
static _Atomic bool open_failed[HP_METRIC_SOURCES];
static _Atomic bool read_failures[HP_METRIC_SOURCES];

static HP_PRINTF(1, 2) void add_note(const char *format, ...)
{
    unsigned i = nnotes++;
    if (i >= MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, format);
    vsnprintf(notes[i], NOTE_SIZE, format, ap);
    va_end(ap);
    hp_warn("%s", notes[i]);
}

void hp_metrics_register(hp_metric_source s, const hp_metric_source_ops *ops)
{
    if ((unsigned)s < HP_METRIC_SOURCES) {
        sources[s] = ops;
        registered[s] = true;
    }
}

/* Takes the linked entries for the sources not set by hand. */
static void collect_sources(void)
{
    for (const hp_metric_source_entry *e = __start_hp_metric_sources;
         e != NULL && e < __stop_hp_metric_sources; e++)
        if ((unsigned)e->source < HP_METRIC_SOURCES && !registered[e->source])
            sources[e->source] = e->ops;
}

const char *hp_metrics_note(unsigned i)
{
    return i < nnotes && i < MAX_NOTES ? notes[i] : NULL;
}

unsigned hp_metrics_count(void)
{
    return ninfos;
}

const hp_metric_info *hp_metrics_info(unsigned i)
{
    return i < ninfos ? &infos[i] : NULL;
}

/* Resolves one name of source s; -1 (with err) for a configuration error. */
static int add_metric(hp_metric_source s, const char *name, char *err, size_t errlen)
{
    const hp_metric_source_ops *ops = sources[s];
    for (unsigned i = 0; i < ninfos; i++)
        if (infos[i].source == s && strcmp(infos[i].name, name) == 0)
            return 0; /* listed twice: once is enough */
    if (ninfos == HP_METRICS_MAX) {
        snprintf(err, errlen, "%s: too many counters (at most %d in all)", ops->variable,
                 HP_METRICS_MAX);
        return -1;
    }
    hp_metric_info *info = &infos[ninfos];
    *info = (hp_metric_info){ .source = s };
    char why[160] = "", shown[100]; /* the name as echoed: escaped and cut (util/escape.h) */
    hp_escape_text(shown, sizeof(shown), name, strlen(name));
    if (strlen(name) >= sizeof(info->name)) {
        snprintf(err, errlen, "%s: counter name too long: '%.40s...'", ops->variable, shown);
        return -1;
    }
    strcpy(info->name, name);
    int rc = ops->resolve(name, info, why, sizeof(why));
    if (rc == HP_METRIC_UNKNOWN) {
        snprintf(err, errlen, "%s: unknown counter '%s'%s%s; run 'hp-info metrics' to list "
                 "the counters this machine offers", ops->variable, shown, why[0] ? ": " : "",
                 why);
        return -1;
    }
    if (rc == HP_METRIC_UNAVAILABLE) {
        add_note("counter %s (%s) not recorded: %s", name, ops->variable, why);
        return 0;
    }
    ninfos++;
    return 0;
}

static int add_list(hp_metric_source s, const char *list, char *err, size_t errlen)
{
    source_first[s] = ninfos;
    source_count[s] = 0;
    if (sources[s] == NULL) {
        if (list == NULL || list[strspn(list, ", ")] == '\0')
            return 0;
        snprintf(err, errlen, "%s: this build has no such counter source (it is not linked "
                 "in); run 'hp-info metrics' to list the counters it offers", variables[s]);
        return -1;
    }
    char name[128];
    for (const char *p = list != NULL ? list : ""; *p != '\0';) {
        size_t n = strcspn(p, ", ");
        if (n > 0) {
            snprintf(name, sizeof(name), "%.*s", (int)n, p);
            const char *const *all = sources[s]->all;
            for (size_t i = 0; all != NULL && strcmp(name, "all") == 0 && all[i]; i++)
                if (add_metric(s, all[i], err, errlen) < 0)
                    return -1;
            if ((all == NULL || strcmp(name, "all") != 0) &&
                add_metric(s, name, err, errlen) < 0)
                return -1;
        }
        p += n + (p[n] != '\0');
    }
    source_count[s] = ninfos - source_first[s];
    return 0;
}

int hp_metrics_setup(const char *perf, const char *rusage, const char *papi, char *err,
                     size_t errlen)
{
    ninfos = 0;
    collect_sources();
    const char *lists[HP_METRIC_SOURCES] = { perf, rusage, papi };
    for (int s = 0; s < HP_METRIC_SOURCES; s++)
        if (add_list((hp_metric_source)s, lists[s], err, errlen) < 0)
            return -1;
    return 0;
}

void hp_metrics_list(FILE *out)
{
    collect_sources();
    for (int s = 0; s < HP_METRIC_SOURCES; s++) {
        if (sources[s] == NULL)
            continue;
        fprintf(out, "%s (%s):\n", sources[s]->what, sources[s]->variable);
        sources[s]->list(out);
        fputc('\n', out);
    }
}

bool hp_metrics_thread_start(hp_metrics *m)
{
    if (ninfos == 0)
        return false;
    memset(m, 0, sizeof(*m));
    m->n = ninfos;
    for (unsigned i = 0; i < ninfos; i++) /* a source that cannot be opened reads 0 */
        m->last[i] = HP_METRICS_BIAS;
    for (int s = 0; s < HP_METRIC_SOURCES; s++) {
        m->first[s] = source_first[s];
        if (source_count[s] == 0)
            continue;
        char why[160] = "";
        if (sources[s]->open(&infos[source_first[s]], source_count[s], &m->handle[s], why,
                             sizeof(why)) < 0) {
            if (!atomic_exchange(&open_failed[s], true))
                add_note("%s could not be opened on a thread (its values stay 0 there): %s",
                         sources[s]->variable, why);
            continue;
        }
        m->count[s] = source_count[s];
    }
    hp_metrics_read(m);
    return true;
}

void hp_metrics_thread_stop(hp_metrics *m)
{
    for (int s = 0; s < HP_METRIC_SOURCES; s++)
        if (m->count[s] > 0) {
            sources[s]->close(&m->handle[s]);
            m->count[s] = 0;
        }
}

/* A source whose read failed stays at its last values from now on. */
static HP_COLD void read_failed(hp_metrics *m, int s)
{
    m->count[s] = 0;
    if (!atomic_exchange(&read_failures[s], true))
        add_note("reading %s failed on a thread: its counters stop there at the last values "
                 "read", sources[s]->variable);
}

void hp_metrics_read(hp_metrics *m)
{
    uint64_t values[HP_METRICS_MAX];
    for (int s = 0; s < HP_METRIC_SOURCES; s++) {
        unsigned n = m->count[s];
        if (n == 0)
            continue;
        if (unlikely(sources[s]->read(&m->handle[s], n, values) < 0)) {
            read_failed(m, s);
            continue;
        }
        for (unsigned i = 0; i < n; i++)
            m->last[m->first[s] + i] = values[i] + HP_METRICS_BIAS;
    }
}

void hp__metrics_enter(hp_metrics *m, uint64_t *counters)
{
    hp_metrics_read(m);
    for (unsigned i = 0; i < m->n; i++)
        counters[i] -= m->last[i];
}

void hp__metrics_exit(hp_metrics *m, uint64_t *counters)
{
    hp_metrics_read(m);
    for (unsigned i = 0; i < m->n; i++)
        counters[i] += m->last[i];
}

uint64_t hp_metrics_trace(const hp_metrics *m, hp_trace_buffer *b, uint64_t time)
{
    for (unsigned i = 0; i < m->n; i++) {
        hp_trace_payload value = { m->last[i] - HP_METRICS_BIAS, 0 };
        time = hp_trace_add_args(b, HP_TRACE_METRIC, i, time, &value, 1);
    }
    return time;
}
