/*
 * HP_METRIC_PAPI: PAPI presets (PAPI_TOT_INS) and native events by name, through
 * Debian's libpapi. The library is initialised on first use with thread support; each
 * thread gets its own event set, read with one PAPI_read. Where PAPI's components find no
 * counters (no PMU, e.g. in a VM), a name PAPI knows is "unavailable", with the reason
 * PAPI's perf_event component gives, and the run continues without it.
 */
#include "measurement/core/metrics.h"

#include <papi.h>
#include <pthread.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status = PAPI_ENOINIT;

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

static void papi_init(void)
{
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    init_status = v == PAPI_VER_CURRENT ? PAPI_thread_init(thread_id) : v < 0 ? v : PAPI_EINVAL;
}

static bool ready(char *why, size_t whylen)
{
    pthread_once(&init_once, papi_init);
    if (init_status != PAPI_OK)
        snprintf(why, whylen, "PAPI_library_init: %s", PAPI_strerror(init_status));
    return init_status == PAPI_OK;
}

/* Why a known event cannot be counted: PAPI's error plus the reason its disabled
 * component gives (e.g. "perf_event: Error libpfm4 no default PMU found"). */
static void explain(int rc, int code, char *why, size_t whylen)
{
    int cidx = PAPI_get_event_component(code);
    const PAPI_component_info_t *c = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    if (c != NULL && c->disabled)
        snprintf(why, whylen, "%s (PAPI component %s: %s)", PAPI_strerror(rc), c->name,
                 c->disabled_reason);
    else
        snprintf(why, whylen, "%s", PAPI_strerror(rc));
}

static int papi_resolve(const char *name, hp_metric_info *info, char *why, size_t whylen)
{
    if (!ready(why, whylen))
        return HP_METRIC_UNAVAILABLE;
    int code;
    if (PAPI_event_name_to_code(name, &code) != PAPI_OK)
        return HP_METRIC_UNKNOWN;
    int set = PAPI_NULL;
    int rc = PAPI_create_eventset(&set);
    if (rc == PAPI_OK)
        rc = PAPI_add_event(set, code);
    if (rc != PAPI_OK)
        explain(rc, code, why, whylen);
    if (set != PAPI_NULL) {
        PAPI_cleanup_eventset(set);
        PAPI_destroy_eventset(&set);
    }
    if (rc != PAPI_OK)
        return HP_METRIC_UNAVAILABLE;
    size_t n = 0;
    for (const char *c = name; *c != '\0' && n + 1 < sizeof(info->uniq_name); c++)
        info->uniq_name[n++] = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                                       (*c >= '0' && *c <= '9') ? *c : '_';
    info->uniq_name[n] = '\0';
    info->unit = "occ";
    info->descr = "PAPI counter";
    info->code = (uint64_t)(uint32_t)code;
    return HP_METRIC_OK;
}

static void papi_close(hp_metric_handle *h)
{
    int set = (int)h->id;
    long long ignored[HP_METRICS_MAX];
    PAPI_stop(set, ignored);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    PAPI_unregister_thread();
}

static int papi_open(const hp_metric_info *infos, unsigned n, hp_metric_handle *h, char *why,
                     size_t whylen)
{
    int set = PAPI_NULL;
    int rc = PAPI_register_thread();
    if (rc == PAPI_OK)
        rc = PAPI_create_eventset(&set);
    for (unsigned i = 0; rc == PAPI_OK && i < n; i++)
        rc = PAPI_add_event(set, (int)infos[i].code);
    if (rc == PAPI_OK)
        rc = PAPI_start(set);
    if (rc != PAPI_OK) {
        snprintf(why, whylen, "%s", PAPI_strerror(rc));
        if (set != PAPI_NULL) {
            PAPI_cleanup_eventset(set);
            PAPI_destroy_eventset(&set);
        }
        return -1;
    }
    h->id = set;
    return 0;
}

static int papi_read(const hp_metric_handle *h, unsigned n, uint64_t *values)
{
    long long v[HP_METRICS_MAX];
    if (PAPI_read((int)h->id, v) != PAPI_OK)
        return -1;
    for (unsigned i = 0; i < n; i++)
        values[i] = (uint64_t)v[i];
    return 0;
}

/* Presets and native events that PAPI reports available on this machine. */
static void papi_list(FILE *out)
{
    char why[160];
    if (!ready(why, sizeof(why))) {
        fprintf(out, "  none: %s\n", why);
        return;
    }
    size_t shown = 0;
    for (int pass = 0; pass < 2; pass++) {
        int code = pass == 0 ? PAPI_PRESET_MASK : PAPI_NATIVE_MASK;
        int modifier = pass == 0 ? PAPI_PRESET_ENUM_AVAIL : PAPI_ENUM_FIRST;
        if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
            continue;
        do {
            PAPI_event_info_t info;
            if (PAPI_get_event_info(code, &info) != PAPI_OK ||
                (pass == 0 && info.count == 0))
                continue;
            fprintf(out, "  %-18s occ   %s\n", info.symbol, info.short_descr);
            shown++;
        } while (PAPI_enum_event(&code, modifier) == PAPI_OK);
    }
    for (int i = 0; i < PAPI_num_components(); i++) {
        const PAPI_component_info_t *c = PAPI_get_component_info(i);
        if (c != NULL && c->disabled)
            fprintf(out, "  (component %s disabled: %s)\n", c->name, c->disabled_reason);
    }
    if (shown == 0)
        fprintf(out, "  none: PAPI finds no counters on this machine\n");
}

const hp_metric_source_ops hp__metric_papi_ops = {
    "HP_METRIC_PAPI", "PAPI presets and native events", papi_resolve, papi_open, papi_read,
    papi_close, papi_list, NULL
};

HP_METRIC_SOURCE_REGISTER(HP_METRIC_SOURCE_PAPI, hp__metric_papi_ops)
