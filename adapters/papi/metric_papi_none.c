/*
 * HP_METRIC_PAPI in a build without libpapi (configure found no libpapi-dev): every name
 * is unavailable, with that reason, so the run continues with the other sources.
 */
#include "measurement/core/metrics.h"

static int none_resolve(const char *name, hp_metric_info *info, char *why, size_t whylen)
{
    (void)name;
    (void)info;
    snprintf(why, whylen, "hpmeasure was built without PAPI (install libpapi-dev and "
             "configure again)");
    return HP_METRIC_UNAVAILABLE;
}

static int none_open(const hp_metric_info *infos, unsigned n, hp_metric_handle *h, char *why,
                     size_t whylen)
{
    (void)infos;
    (void)n;
    (void)h;
    snprintf(why, whylen, "hpmeasure was built without PAPI");
    return -1;
}

static int none_read(const hp_metric_handle *h, unsigned n, uint64_t *values)
{
    (void)h;
    (void)n;
    (void)values;
    return -1;
}

static void none_close(hp_metric_handle *h)
{
    (void)h;
}

static void none_list(FILE *out)
{
    fprintf(out, "  none: hpmeasure was built without PAPI\n");
}

const hp_metric_source_ops hp__metric_papi_ops = {
    "HP_METRIC_PAPI", "PAPI presets and native events", none_resolve, none_open, none_read,
    none_close, none_list, NULL
};

HP_METRIC_SOURCE_REGISTER(HP_METRIC_SOURCE_PAPI, hp__metric_papi_ops)
