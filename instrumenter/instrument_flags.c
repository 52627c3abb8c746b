/*
 * Which flags instrument a compilation. For a GCC (gcc, g++, gfortran, or an MPI wrapper
 * around one) the hpmeasure GCC plug-in is used when it is installed and was built for
 * that same GCC version: it instruments after inlining, skips inline and system-header
 * functions and applies --instrument-filter at compile time. Otherwise a GCC gets
 * -finstrument-functions with the system headers excluded (this still instruments the
 * user's own inline functions before they are inlined, which is what made C++ programs
 * many times slower), and hp-instrument says once why. clang gets
 * -finstrument-functions-after-inlining, which only instruments functions that remain
 * calls, and hp-instrument says that once too. The compiler is asked what it is
 * (compiler_probe.c) since `mpicc` or `cc` may be either. With the plug-in, the flags of the fallback for a compilation that fails
 * with it (fallback.c) are chosen here too.
 */
#if !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* realpath() */
#endif

#include "internal.h"
#include "install_dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The GCC version the plug-in was built against (configure: $CC -dumpfullversion);
 * "" when unknown, and then a plug-in file that exists is trusted. */
#ifndef HP_PLUGIN_GCC_VERSION
#define HP_PLUGIN_GCC_VERSION ""
#endif

#define PROG "hp-instrument"
#define PLUGIN_IN_LIBDIR "/hpmeasure/hpmeasure_gcc.so"
#define GCC_HOOKS "-finstrument-functions"
#define GCC_EXCLUDE_SYSTEM "-finstrument-functions-exclude-file-list=/usr/include,/usr/lib/gcc"
#define CLANG_HOOKS "-finstrument-functions-after-inlining"

enum { REASON_SIZE = 512 };

/* Marks the word of the fallback's plug-in argument, made once the failure is known. */
const char hp__note_placeholder[] = "";

/* ---- the word list ------------------------------------------------------------------ */

static void add_word(struct hp_instrument_flags *f, const char *word)
{
    size_t n = 0;

    while (f->words[n] != NULL)
        n++;
    f->words[n] = word;
}

/* Adds a malloc'd word, which f then owns; NULL (out of memory) is reported. */
static int add_owned(struct hp_instrument_flags *f, char *word)
{
    size_t n = 0;

    if (word == NULL)
        return HP_FLAGS_NO_MEMORY;
    while (f->owned[n] != NULL)
        n++;
    f->owned[n] = word;
    add_word(f, word);
    return HP_FLAGS_OK;
}

void hp__instrument_flags_release(struct hp_instrument_flags *f)
{
    for (size_t i = 0; i < HP_MAX_INSTRUMENT_WORDS; i++)
        free(f->owned[i]);
    free(f->note_prefix);
    memset(f, 0, sizeof(*f));
}

/* ---- inputs: the filter file and the plug-in ------------------------------------------ */

/* Checks that file is a readable regular file; *abs gets its absolute path (malloc'd). */
static int check_filter_file(const char *file, char **abs)
{
    struct stat st;
    int fd = open(file, O_RDONLY);
    const char *problem = NULL;

    if (fd < 0)
        problem = strerror(errno);
    else if (fstat(fd, &st) != 0)
        problem = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        problem = "not a regular file";
    if (fd >= 0)
        close(fd);
    if (problem == NULL && (*abs = realpath(file, NULL)) == NULL)
        problem = strerror(errno);
    if (problem == NULL)
        return HP_FLAGS_OK;
    fprintf(stderr, PROG ": --instrument-filter=%s: cannot read the filter file: %s\n"
                    PROG ": give a readable file in Score-P's filter syntax\n", file, problem);
    return HP_FLAGS_BAD_INPUT;
}

/*
 * Finds the plug-in: HP_INSTRUMENT_PLUGIN if set (empty means none, as --no-plugin, but
 * said at compile time; a path that cannot be read is an error), else
 * <libdir>/hpmeasure/hpmeasure_gcc.so if it exists. *path gets a malloc'd path, or NULL
 * with the reason in why ("" after --no-plugin, so there is nothing to say).
 */
static int find_plugin(const struct hp_instrument_request *req, char **path, char *why)
{
    const char *env = getenv("HP_INSTRUMENT_PLUGIN");
    char *file;

    *path = NULL;
    why[0] = '\0';
    if (req->no_plugin)
        return HP_FLAGS_OK;
    if (env != NULL && env[0] == '\0') {
        snprintf(why, REASON_SIZE, "HP_INSTRUMENT_PLUGIN is set and empty");
        return HP_FLAGS_OK;
    }
    if (env != NULL) {
        file = realpath(env, NULL);
        if (file == NULL || access(file, R_OK) != 0) {
            fprintf(stderr, PROG ": HP_INSTRUMENT_PLUGIN=%s: %s\n"
                            PROG ": set it to the GCC plug-in's file (hpmeasure_gcc.so), or"
                            " to nothing to compile without the plug-in\n", env,
                    strerror(errno));
            free(file);
            return HP_FLAGS_BAD_INPUT;
        }
        *path = file;
        return HP_FLAGS_OK;
    }
    file = hp_concat(req->libdir, PLUGIN_IN_LIBDIR);
    if (file == NULL)
        return HP_FLAGS_NO_MEMORY;
    if (access(file, R_OK) == 0) {
        *path = file;
        return HP_FLAGS_OK;
    }
    snprintf(why, REASON_SIZE, "no plug-in at %s (not built or not installed)", file);
    free(file);
    return HP_FLAGS_OK;
}

/* "-fplugin-arg-<name>-<arg>", where <name> is what GCC calls the plug-in: its file
 * name up to the first dot. Malloc'd, NULL when out of memory. */
static char *plugin_arg(const char *plugin, const char *arg)
{
    const char *slash = strrchr(plugin, '/');
    const char *name = slash != NULL ? slash + 1 : plugin;
    int name_len = (int)strcspn(name, ".");
    size_t size = strlen("-fplugin-arg--") + (size_t)name_len + strlen(arg) + 1;
    char *word = malloc(size);

    if (word != NULL)
        snprintf(word, size, "-fplugin-arg-%.*s-%s", name_len, name, arg);
    return word;
}

/* ---- choosing ------------------------------------------------------------------------ */

static void warn_filter_unused(const char *filter_file)
{
    fprintf(stderr, PROG ": warning: --instrument-filter=%s needs the GCC plug-in: not"
                    " applied at compile time (filter at run time with HP_FILTERING_FILE=%s)\n",
            filter_file, filter_file);
}

static void clang_flags(struct hp_instrument_flags *f, const struct hp_instrument_request *req)
{
    /* Hooks before inlining instrument every inline function: only on request. */
    f->what = req->inline_functions ? GCC_HOOKS : CLANG_HOOKS;
    f->clang_after_inlining = !req->inline_functions;
    add_word(f, f->what);
    if (!req->quiet)
        fprintf(stderr, PROG ": '%s' is clang, which the GCC plug-in cannot instrument;"
                        " instrumenting with %s: %s (--no-plugin silences this)\n",
                req->compiler, f->what,
                req->inline_functions ? "every function, inline ones too (--instrument-inline)"
                                      : "the functions that remain calls after inlining");
    if (req->filter_file != NULL)
        warn_filter_unused(req->filter_file);
}

/* Adds -fplugin-arg-<name>-<key><value>; returns an enum hp_flags_result. */
static int add_plugin_arg(struct hp_instrument_flags *f, const char *plugin, const char *key,
                          const char *value)
{
    char *arg = hp_concat(key, value);
    int ret = add_owned(f, arg != NULL ? plugin_arg(plugin, arg) : NULL);

    free(arg);
    return ret;
}

/*
 * The plug-in, and the fallback if the compilation fails with it: the plug-in in its
 * note-only mode (it records in the program that this unit fell back, and why) with
 * -finstrument-functions. HP_INSTRUMENT_TEST_FAIL (tests only, doc/testing.md) makes
 * the plug-in fail on purpose, to show the fallback.
 */
static int plugin_flags(struct hp_instrument_flags *f, const char *plugin, const char *filter)
{
    const char *test_fail = getenv("HP_INSTRUMENT_TEST_FAIL");
    int ret = add_owned(f, hp_concat("-fplugin=", plugin));

    if (ret == HP_FLAGS_OK && filter != NULL)
        ret = add_plugin_arg(f, plugin, "filter=", filter);
    if (ret == HP_FLAGS_OK && test_fail != NULL && test_fail[0] != '\0')
        ret = add_plugin_arg(f, plugin, "test-fail=", test_fail);
    if (ret != HP_FLAGS_OK)
        return ret;
    f->note_prefix = plugin_arg(plugin, "fallback=");
    if (f->note_prefix == NULL)
        return HP_FLAGS_NO_MEMORY;
    f->what = "the GCC plug-in";
    f->lesser[0] = f->words[0];
    f->lesser[1] = hp__note_placeholder;
    f->lesser[2] = GCC_HOOKS;
    f->lesser[3] = GCC_EXCLUDE_SYSTEM;
    return HP_FLAGS_OK;
}

static void fallback_flags(struct hp_instrument_flags *f, const struct hp_instrument_request *req,
                           const char *why)
{
    f->what = GCC_HOOKS;
    add_word(f, GCC_HOOKS);
    add_word(f, GCC_EXCLUDE_SYSTEM);
    if (why[0] != '\0' && !req->quiet)
        fprintf(stderr, PROG ": not using the GCC plug-in: %s; instrumenting with"
                        " -finstrument-functions, which also instruments inline functions and"
                        " can slow C++ programs down many times (--no-plugin silences this)\n",
                why);
    if (req->filter_file != NULL)
        warn_filter_unused(req->filter_file);
}

/* A GCC, or a compiler that we could not identify (why says so): the plug-in if it fits,
 * else the fallback. */
static int gcc_flags(struct hp_instrument_flags *f, const struct hp_instrument_request *req,
                     const struct hp_compiler_id *id, const char *abs_filter, char *why)
{
    char *plugin = NULL;
    int ret = HP_FLAGS_OK;

    if (why[0] == '\0') {
        ret = find_plugin(req, &plugin, why);
        if (ret != HP_FLAGS_OK)
            return ret;
    }
    if (plugin != NULL && HP_PLUGIN_GCC_VERSION[0] != '\0' &&
        strcmp(id->version, HP_PLUGIN_GCC_VERSION) != 0) {
        snprintf(why, REASON_SIZE, "'%s' is GCC %s, the plug-in was built for GCC %s",
                 req->compiler, id->version, HP_PLUGIN_GCC_VERSION);
        free(plugin);
        plugin = NULL;
    }
    if (plugin != NULL) {
        ret = plugin_flags(f, plugin, abs_filter);
        if (ret == HP_FLAGS_OK && req->inline_functions)
            ret = add_owned(f, plugin_arg(plugin, "inline"));
    } else {
        fallback_flags(f, req, why);
    }
    free(plugin);
    return ret;
}

int hp__instrument_flags_init(struct hp_instrument_flags *f,
                              const struct hp_instrument_request *req)
{
    struct hp_compiler_id id = {HP_COMPILER_OTHER, ""};
    char why[REASON_SIZE] = "", probe_err[REASON_SIZE / 2];
    char *abs_filter = NULL;
    int probe, ret;

    memset(f, 0, sizeof(*f));
    f->family = HP_COMPILER_OTHER;
    if (req->filter_file != NULL) {
        ret = check_filter_file(req->filter_file, &abs_filter);
        if (ret != HP_FLAGS_OK)
            return ret;
    }
    probe = hp__compiler_probe(req->compiler, &id, probe_err, sizeof(probe_err));
    if (probe != HP_PROBE_OK) /* a missing compiler is reported when it is run */
        id.family = strstr(req->compiler, "clang") != NULL ? HP_COMPILER_CLANG
                                                            : HP_COMPILER_OTHER;
    if (probe == HP_PROBE_FAILED)
        snprintf(why, sizeof(why), "cannot tell which compiler '%s' is: %s", req->compiler,
                 probe_err);
    else if (probe == HP_PROBE_OK && id.family == HP_COMPILER_OTHER)
        snprintf(why, sizeof(why), "'%s' is neither GCC nor clang", req->compiler);
    if (id.family == HP_COMPILER_CLANG) {
        if (why[0] != '\0' && !req->quiet)
            fprintf(stderr, PROG ": %s; taking it for clang by its name\n", why);
        clang_flags(f, req);
        ret = HP_FLAGS_OK;
    } else if (probe == HP_PROBE_NOT_FOUND) {
        f->what = GCC_HOOKS;
        add_word(f, GCC_HOOKS);
        ret = HP_FLAGS_OK;
    } else {
        ret = gcc_flags(f, req, &id, abs_filter, why);
    }
    free(abs_filter);
    if (probe == HP_PROBE_OK) {
        f->family = id.family;
        f->gcc_major = id.family == HP_COMPILER_GCC ? atoi(id.version) : 0;
    }
    return ret;
}
