/*
 * libFuzzer target for the configuration parser (measurement/core/config.c). The input
 * is an environment: lines NAME=value (the last line of a name wins, as in a shell),
 * which hp_config_load reads through its getenv function. A refused configuration must
 * come with messages that each name a variable; an accepted one must survive the round
 * trip through its own hp.config text (hp_config_print_effective) unchanged.
 */
#include "fuzz/fuzz.h"

#include "measurement/core/config.h"
#include "util/log.h"

enum { MAX_VARS = 64, ERR_SIZE = 4096 };

/* The environment of the current input; reset for every input. */
static struct {
    char *name[MAX_VARS];
    char *value[MAX_VARS];
    int n;
} env;

static const char *env_lookup(const char *name)
{
    for (int i = env.n; i-- > 0;)
        if (strcmp(env.name[i], name) == 0)
            return env.value[i];
    return NULL;
}

static void env_clear(void)
{
    for (int i = 0; i < env.n; i++)
        free(env.name[i]); /* value points into the same allocation */
    env.n = 0;
}

/* Fills env from "NAME=value" lines; lines without '=' are ignored. */
static void env_fill(fuzz_part rest)
{
    while (rest.p != NULL && env.n < MAX_VARS) {
        char *line = fuzz_string(fuzz_next_part(&rest, "\n"));
        char *eq = line != NULL ? strchr(line, '=') : NULL;
        if (eq == NULL) {
            free(line);
            continue;
        }
        *eq = '\0';
        env.name[env.n] = line;
        env.value[env.n++] = eq + 1;
    }
}

static void check_messages(const char *err)
{
    FUZZ_CHECK(err[0] != '\0');
    size_t n = strlen(err);
    FUZZ_CHECK(err[n - 1] == '\n' || n == ERR_SIZE - 1); /* whole lines unless cut */
    for (const char *line = err; *line != '\0'; line = strchr(line, '\n') + 1) {
        FUZZ_CHECK(strncmp(line, "HP_", 3) == 0 || strlen(line) < 3);
        if (strchr(line, '\n') == NULL)
            break;
    }
}

/* Loads the configuration's own effective text again: it must give the same hp_cfg. */
static void check_round_trip(void)
{
    static hp_config first;
    char *text = NULL, err[ERR_SIZE];
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (out == NULL)
        return;
    hp_config_print_effective(out);
    if (fclose(out) != 0)
        return;
    first = hp_cfg;
    env_clear();
    env_fill((fuzz_part){ (const uint8_t *)text, size });
    FUZZ_CHECK(hp_config_load(env_lookup, err, sizeof(err)) == 0);
    /* The effective text names HP_TRACE_ADAPTIVE always (the run time writes it after
     * resolving "follows sampling"), so only whether it was given may differ. */
    hp_cfg.trace_adaptive_set = first.trace_adaptive_set;
    FUZZ_CHECK(memcmp(&first, &hp_cfg, sizeof(hp_cfg)) == 0);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *err = malloc(ERR_SIZE);
    if (err == NULL)
        return 0;
    env_fill((fuzz_part){ data, size });
    if (hp_config_load(env_lookup, err, ERR_SIZE) == 0) {
        FUZZ_CHECK(err[0] == '\0');
        check_round_trip();
    } else {
        check_messages(err);
    }
    env_clear();
    hp_log_set_verbosity(0);
    free(err);
    return 0;
}
