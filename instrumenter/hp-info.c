/*
 * hp-info: facts about this hpmeasure installation.
 *
 *   hp-info config-vars   every HP_* variable with its default and meaning
 *   hp-info config        check the HP_* variables of this environment
 *   hp-info metrics       the counters this machine offers (HP_METRIC_*)
 *   hp-info version       the version
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/core/config.h"
#include "measurement/core/metrics.h"

#ifndef HP_VERSION
#define HP_VERSION "unknown"
#endif

static void usage(FILE *out)
{
    fprintf(out, "usage: hp-info <command>\n\n"
                 "commands:\n"
                 "  config-vars   list every HP_* variable with its default and meaning\n"
                 "  config        check the HP_* variables set now and print the effective "
                 "configuration\n"
                 "  metrics       list the counters this machine offers for HP_METRIC_PERF, "
                 "HP_METRIC_RUSAGE and HP_METRIC_PAPI\n"
                 "  version       print the version\n");
}

static const char *env_lookup(const char *name)
{
    return getenv(name);
}

static int check_config(void)
{
    char err[4096];
    if (hp_config_load(env_lookup, err, sizeof(err)) < 0) {
        fprintf(stderr, "hp-info: invalid configuration:\n%s", err);
        return 1;
    }
    /* Counter names too: unknown ones are errors, unavailable ones are said on stderr. */
    if (hp_metrics_setup(hp_cfg.metric_perf, hp_cfg.metric_rusage, hp_cfg.metric_papi, err,
                         sizeof(err)) < 0) {
        fprintf(stderr, "hp-info: invalid configuration:\n%s\n", err);
        return 1;
    }
    extern char **environ;
    if (hp_config_check_names(environ, err, sizeof(err)) > 0)
        fprintf(stderr, "hp-info: warning:\n%s", err);
    hp_config_print_effective(stdout);
    return 0;
}

/* hp-info links the core statically, which pulls in no counter source by itself: name
 * them, as libhpmeasure's sources register themselves (metrics.h). */
static void register_counter_sources(void)
{
    hp_metrics_register(HP_METRIC_SOURCE_PERF, &hp__metric_perf_ops);
    hp_metrics_register(HP_METRIC_SOURCE_RUSAGE, &hp__metric_rusage_ops);
    hp_metrics_register(HP_METRIC_SOURCE_PAPI, &hp__metric_papi_ops);
}

int main(int argc, char **argv)
{
    register_counter_sources();
    if (argc != 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "config-vars") == 0) {
        hp_config_print_help(stdout);
        return 0;
    }
    if (strcmp(argv[1], "config") == 0)
        return check_config();
    if (strcmp(argv[1], "metrics") == 0) {
        hp_metrics_list(stdout);
        return 0;
    }
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("hpmeasure %s\n", HP_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "hp-info: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
