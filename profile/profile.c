/*
 * Lookups on the unified profile of profile.h that every reader of it shares: the
 * summary tables, the derived metrics and hp-report.
 */
#include "profile.h"

#include <string.h>

const hp_profile_metric *hp_profile_find_metric(const hp_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nmetrics; i++)
        if (strcmp(p->metrics[i].uniq_name, name) == 0)
            return &p->metrics[i];
    return NULL;
}
