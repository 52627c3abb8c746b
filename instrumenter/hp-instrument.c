/*
 * hp-instrument: the compiler wrapper. `hp-instrument [options] <compiler> <args...>`
 * checks that <compiler> is a C, C++ or Fortran compiler (or MPI wrapper) we know, looks
 * at the arguments to tell what kind of step this is (preprocess only, compile only,
 * link, shared-library link), adds the flags that step needs (`-g` and the
 * instrumentation flags that instrument_flags.c chooses, and `-I<includedir>
 * -DHP_USER_ENABLE` on compilations, for include/hp/user.h; the core library at the end
 * of a program link), and replaces itself with
 * the real compiler through execvp(), so the compiler's exit status and signals reach
 * the caller unchanged. A step that compiles with instrumentation runs the compiler as
 * a child instead (fallback.c): if it fails, the compilation is run again with less or
 * no instrumentation, so that a build never fails because of us (HP_INSTRUMENT_STRICT=1
 * turns that off). The user's arguments are never rewritten or reordered: we only
 * insert words before and after them. Nothing here parses a response file (`@file`); its
 * contents stay invisible to mode detection.
 *
 * Called through a link named hp-<compiler> (hp-mpicc, hp-g++, ...), it behaves as
 * `hp-instrument <compiler>`: its options then come from HP_WRAPPER_ARGS, and
 * HP_WRAPPER=off makes it the plain compiler.
 */
#if !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* realpath(), readlink() */
#endif

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "install_dirs.h"
#include "internal.h"

/* The build passes the real values; these let the file compile on its own. */
#ifndef HP_VERSION
#ifdef PACKAGE_VERSION /* from configure's DEFS when there is no config header */
#define HP_VERSION PACKAGE_VERSION
#else
#define HP_VERSION "unknown"
#endif
#endif
#ifndef HP_LIBDIR
#define HP_LIBDIR "/usr/local/lib"
#endif
#ifndef HP_INCLUDEDIR
#define HP_INCLUDEDIR "/usr/local/include"
#endif

#define PROG "hp-instrument"
#define CORE_LIBRARY_FILE "libhpmeasure.so"

/* Exit statuses of our own failures; a successful exec returns the compiler's. */
enum {
    EXIT_USAGE = 2,       /* bad hp-option, missing or unknown compiler */
    EXIT_CANNOT_RUN = 126, /* the compiler exists but cannot be executed (as sh does) */
    EXIT_NOT_FOUND = 127   /* the compiler is not on PATH (as sh does) */
};

enum option_flags {
    OPT_VERBOSE = (1U << 0),    /* echo the real command on stderr, then run it */
    OPT_DRY_RUN = (1U << 1),    /* print the real command on stdout, do not run it */
    OPT_NOCOMPILER = (1U << 2), /* no compiler instrumentation (sampling/MPI only) */
    OPT_NO_PLUGIN = (1U << 3),  /* never the GCC plug-in: -finstrument-functions */
    OPT_INLINE = (1U << 4),     /* instrument inline functions too */
    OPT_PLAIN = (1U << 5),      /* HP_WRAPPER=off: run the compiler unchanged */
    OPT_STRICT = (1U << 6)      /* HP_INSTRUMENT_STRICT: no fallback when compiling fails */
};

/* What the compiler will do with these arguments, which decides what we add. */
enum build_mode {
    MODE_PASSTHROUGH,  /* version/info query or nothing to build: add nothing */
    MODE_PREPROCESS,   /* -E, -M, -MM: output is text, add nothing */
    MODE_COMPILE,      /* -c, -S, -fsyntax-only: instrumentation flags, never link flags */
    MODE_LINK_NO_CORE, /* -shared, -r: instrumentation flags, the program links the core */
    MODE_LINK          /* produces a program: instrumentation flags and the core */
};

enum parse_result { PARSE_RUN, PARSE_DONE, PARSE_ERROR };

struct invocation {
    unsigned flags;          /* enum option_flags */
    const char *filter_file; /* --instrument-filter=FILE, or NULL */
    const char *compiler;    /* the compiler word */
    char **args;             /* the compiler's arguments (after the word) */
    int nargs;
    char *env_args;          /* malloc'd copy of HP_WRAPPER_ARGS that options point into */
};

static const char *const known_compilers[] = {
    "gcc", "g++", "cc", "c++", "clang", "clang++", "gfortran",
    "mpicc", "mpicxx", "mpic++", "mpifort", "mpif90", "mpif77",
};
#define N_KNOWN_COMPILERS (sizeof(known_compilers) / sizeof(known_compilers[0]))

static const char accepted_options[] = "--help --version --verbose --dry-run --nocompiler"
                                       " --no-plugin --instrument-filter=FILE"
                                       " --instrument-inline";
#define WRAPPER_ARGS_OPTIONS (accepted_options + strlen("--help --version "))

/* ---- messages ---------------------------------------------------------------------- */

static void print_usage(FILE *out)
{
    fprintf(out,
            "Usage: " PROG " [options] <compiler> <compiler arguments...>\n"
            "       hp-<compiler> <compiler arguments...>   (hp-gcc, hp-mpicxx, ...)\n"
            "Compile and link a program for measurement with hpmeasure.\n"
            "\n"
            "Options (before the compiler):\n"
            "  --help        print this help and exit\n"
            "  --version     print the version and exit\n"
            "  --verbose     print the real compiler command on stderr, then run it\n"
            "  --dry-run     print the real compiler command on stdout, do not run it\n"
            "  --nocompiler  no compiler instrumentation; still link the measurement\n"
            "                library (MPI measurement and sampling)\n"
            "  --no-plugin   do not use the GCC plug-in: -finstrument-functions instead\n"
            "  --instrument-filter=FILE\n"
            "                leave out the functions that the filter file (Score-P syntax)\n"
            "                excludes, at compile time (needs the GCC plug-in)\n"
            "  --instrument-inline\n"
            "                instrument functions declared inline too\n"
            "\n"
            "What is instrumented: with GCC, the hpmeasure GCC plug-in instruments the\n"
            "functions that remain after inlining, except inline and system-header ones.\n"
            "Without the plug-in (not installed, another GCC version, --no-plugin): all\n"
            "functions outside system headers, inline ones included, which can make C++\n"
            "programs much slower. clang: the functions that remain after inlining.\n"
            "\n"
            "Examples:\n"
            "  " PROG " gcc -O2 -o app app.c\n"
            "  make CC=\"" PROG " mpicc\"         or   make CC=hp-mpicc\n"
            "  CC=hp-gcc ./configure && make\n"
            "\n"
            "Environment:\n"
            "  HP_INSTRUMENT_LIBDIR, HP_INSTRUMENT_INCLUDEDIR  where libhpmeasure and the\n"
            "                hp/ headers are taken from\n"
            "  HP_INSTRUMENT_PLUGIN  the GCC plug-in's file; empty: do not use the plug-in\n"
            "  HP_INSTRUMENT_STRICT=1  a compilation that fails with instrumentation fails;\n"
            "                by default it is run again with less or none, and a note says so\n"
            "  HP_WRAPPER=off       hp-<compiler> runs the plain compiler\n"
            "  HP_WRAPPER_ARGS      options for hp-<compiler>, e.g. \"--verbose --no-plugin\"\n");
}

static void print_accepted_compilers(FILE *out)
{
    fprintf(out, PROG ": accepted compilers:");
    for (size_t i = 0; i < N_KNOWN_COMPILERS; i++)
        fprintf(out, " %s", known_compilers[i]);
    fprintf(out, "\n" PROG ": also as a path (/usr/bin/gcc), with a version suffix (gcc-12)"
                 " or a target prefix (x86_64-linux-gnu-gcc)\n");
}

/* ---- hp-options and the compiler word ----------------------------------------------- */

/* Length of word without a trailing version suffix such as "-12" or "-14.0.6". */
static size_t length_without_version(const char *word)
{
    size_t len = strlen(word);
    size_t i = len;

    while (i > 0 && (word[i - 1] == '.' || (word[i - 1] >= '0' && word[i - 1] <= '9')))
        i--;
    /* A suffix is "-" then digits; "cc" has no suffix, "gcc-" is not a version. */
    if (i < len && i > 0 && word[i - 1] == '-' && word[i] >= '0' && word[i] <= '9')
        return i - 1;
    return len;
}

/* The first len bytes of name are a known compiler, or "<target>-" + a known compiler. */
static bool names_known_compiler(const char *name, size_t len)
{
    for (size_t i = 0; i < N_KNOWN_COMPILERS; i++) {
        size_t klen = strlen(known_compilers[i]);
        if (klen > len || memcmp(name + len - klen, known_compilers[i], klen) != 0)
            continue;
        if (klen == len)
            return true;
        /* A GNU target prefix is "cpu-...-" in front; "xgcc" is not "gcc". */
        if (len > klen + 1 && name[len - klen - 1] == '-')
            return true;
    }
    return false;
}

static bool is_known_compiler(const char *word)
{
    const char *slash = strrchr(word, '/');
    const char *base = slash ? slash + 1 : word;

    return names_known_compiler(base, length_without_version(base));
}

/* MPI programs link the MPI flavour of the core, which adds the MPI wrappers: the
 * compiler is an MPI wrapper (mpicc, mpifort, ...), or the program links MPICH or
 * Open MPI by hand. */
static bool links_mpi(const struct invocation *inv)
{
    const char *slash = strrchr(inv->compiler, '/');
    const char *base = slash ? slash + 1 : inv->compiler;
    if (strncmp(base, "mpi", 3) == 0)
        return true;
    for (int i = 0; i < inv->nargs; i++)
        if (strcmp(inv->args[i], "-lmpi") == 0 || strcmp(inv->args[i], "-lmpich") == 0)
            return true;
    return false;
}

enum option_result { OPTION_SET, OPTION_EXIT, OPTION_ERROR };

/* Applies one hp-option (from the command line, or from HP_WRAPPER_ARGS when
 * from_env); --help and --version print and ask to exit. Errors are printed. */
static enum option_result apply_option(const char *arg, bool from_env, struct invocation *inv)
{
    static const char filter_opt[] = "--instrument-filter=";

    if (!from_env && strcmp(arg, "--help") == 0) {
        print_usage(stdout);
        return OPTION_EXIT;
    } else if (!from_env && strcmp(arg, "--version") == 0) {
        printf(PROG " (hpmeasure) %s\n", HP_VERSION);
        return OPTION_EXIT;
    } else if (strcmp(arg, "--verbose") == 0) {
        inv->flags |= OPT_VERBOSE;
    } else if (strcmp(arg, "--dry-run") == 0) {
        inv->flags |= OPT_DRY_RUN;
    } else if (strcmp(arg, "--nocompiler") == 0) {
        inv->flags |= OPT_NOCOMPILER;
    } else if (strcmp(arg, "--no-plugin") == 0) {
        inv->flags |= OPT_NO_PLUGIN;
    } else if (strcmp(arg, "--instrument-inline") == 0) {
        inv->flags |= OPT_INLINE;
    } else if (strncmp(arg, filter_opt, strlen(filter_opt)) == 0 &&
               arg[strlen(filter_opt)] != '\0') {
        inv->filter_file = arg + strlen(filter_opt);
    } else if (from_env) {
        fprintf(stderr, PROG ": unknown option '%s' in HP_WRAPPER_ARGS\n"
                        PROG ": accepted in HP_WRAPPER_ARGS: %s\n", arg, WRAPPER_ARGS_OPTIONS);
        return OPTION_ERROR;
    } else {
        fprintf(stderr, PROG ": unknown option '%s' (options go before the compiler)\n"
                        PROG ": accepted options: %s\n", arg, accepted_options);
        return OPTION_ERROR;
    }
    return OPTION_SET;
}

/* Options that instrument cannot be combined with --nocompiler; says so. */
static bool options_consistent(const struct invocation *inv)
{
    if (!(inv->flags & OPT_NOCOMPILER) ||
        (inv->filter_file == NULL && !(inv->flags & OPT_INLINE)))
        return true;
    fprintf(stderr, PROG ": --%s needs compiler instrumentation, which --nocompiler"
                    " turns off\n",
            inv->filter_file != NULL ? "instrument-filter" : "instrument-inline");
    return false;
}

/* Reads the hp-options in argv up to the compiler word. */
static enum parse_result parse_hp_options(int argc, char **argv, struct invocation *inv)
{
    int i;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        switch (apply_option(argv[i], false, inv)) {
        case OPTION_EXIT:
            return PARSE_DONE;
        case OPTION_ERROR:
            return PARSE_ERROR;
        case OPTION_SET:
            break;
        }
    }
    if (i >= argc) {
        fprintf(stderr, PROG ": missing compiler\n"
                        "Usage: " PROG " [options] <compiler> <compiler arguments...>\n");
        print_accepted_compilers(stderr);
        return PARSE_ERROR;
    }
    if (!is_known_compiler(argv[i])) {
        fprintf(stderr, PROG ": unknown compiler '%s'\n", argv[i]);
        print_accepted_compilers(stderr);
        return PARSE_ERROR;
    }
    inv->compiler = argv[i];
    inv->args = argv + i + 1;
    inv->nargs = argc - i - 1;
    return options_consistent(inv) ? PARSE_RUN : PARSE_ERROR;
}

/* Reads the switch variable name: unset or empty gives dflt. Sets *on; returns
 * PARSE_RUN, or PARSE_ERROR after saying what is accepted. */
static enum parse_result read_switch(const char *name, bool dflt, bool *on)
{
    static const char *const yes[] = {"on", "true", "yes", "1"};
    static const char *const no[] = {"off", "false", "no", "0"};
    const char *value = getenv(name);

    *on = dflt;
    if (value == NULL || value[0] == '\0')
        return PARSE_RUN;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(value, yes[i]) == 0 || strcmp(value, no[i]) == 0) {
            *on = strcmp(value, yes[i]) == 0;
            return PARSE_RUN;
        }
    }
    fprintf(stderr, PROG ": %s=%s: unknown value; accepted: on, off"
                    " (or true/false, yes/no, 1/0)\n", name, value);
    return PARSE_ERROR;
}

/* HP_WRAPPER for hp-<compiler>: unset, empty or on: wrap; off: the plain compiler. */
static enum parse_result read_wrapper_switch(struct invocation *inv)
{
    bool on;

    if (read_switch("HP_WRAPPER", true, &on) != PARSE_RUN)
        return PARSE_ERROR;
    if (!on)
        inv->flags |= OPT_PLAIN;
    return PARSE_RUN;
}

/* HP_INSTRUMENT_STRICT: a compilation that fails with instrumentation fails. */
static enum parse_result read_strict_switch(struct invocation *inv)
{
    bool on;

    if (read_switch("HP_INSTRUMENT_STRICT", false, &on) != PARSE_RUN)
        return PARSE_ERROR;
    if (on)
        inv->flags |= OPT_STRICT;
    return PARSE_RUN;
}

/* The options of hp-<compiler>, from HP_WRAPPER_ARGS (words split on white space). */
static enum parse_result read_wrapper_args(struct invocation *inv)
{
    const char *value = getenv("HP_WRAPPER_ARGS");
    char *save = NULL;

    if (value == NULL)
        return PARSE_RUN;
    inv->env_args = hp_concat(value, "");
    if (inv->env_args == NULL) {
        fprintf(stderr, PROG ": out of memory\n");
        return PARSE_ERROR;
    }
    for (char *word = strtok_r(inv->env_args, " \t\n", &save); word != NULL;
         word = strtok_r(NULL, " \t\n", &save))
        if (apply_option(word, true, inv) != OPTION_SET)
            return PARSE_ERROR;
    return options_consistent(inv) ? PARSE_RUN : PARSE_ERROR;
}

/* The compiler that a hp-<compiler> name stands for (a pointer into argv0), or NULL
 * when argv0 is not such a name (hp-instrument itself). */
static const char *compiler_of_wrapper_name(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    const char *base = slash != NULL ? slash + 1 : argv0;

    if (strncmp(base, "hp-", 3) != 0 || !is_known_compiler(base + 3))
        return NULL;
    return base + 3;
}

/* Fills inv from the command line: `hp-instrument [options] <compiler> ...`, or
 * `hp-<compiler> ...` with the options and switch from the environment. */
static enum parse_result read_invocation(int argc, char **argv, struct invocation *inv)
{
    const char *compiler = argc > 0 ? compiler_of_wrapper_name(argv[0]) : NULL;
    enum parse_result ret;

    memset(inv, 0, sizeof(*inv));
    if (compiler == NULL) {
        ret = parse_hp_options(argc, argv, inv);
    } else {
        inv->compiler = compiler;
        inv->args = argv + 1;
        inv->nargs = argc - 1;
        ret = read_wrapper_switch(inv);
        if (ret == PARSE_RUN && !(inv->flags & OPT_PLAIN))
            ret = read_wrapper_args(inv);
    }
    if (ret == PARSE_RUN && !(inv->flags & OPT_PLAIN))
        ret = read_strict_switch(inv);
    return ret;
}

/* ---- mode detection ---------------------------------------------------------------- */

/*
 * Options whose value may come as the next word. Mode detection must skip that word so
 * that, e.g., the "foo" of "-o foo" or "-MT foo" is not taken for an input file.
 */
static bool takes_separate_value(const char *arg)
{
    static const char *const with_value[] = {
        "-o", "-x", "-I", "-D", "-U", "-L", "-l", "-u", "-T", "-z", "-e", "-B", "-J",
        "-A", "-include", "-imacros", "-isystem", "-idirafter", "-iprefix",
        "-iwithprefix", "-iwithprefixbefore", "-iquote", "-isysroot", "-imultilib",
        "-MF", "-MT", "-MQ", "-MJ", "-Xlinker", "-Xassembler", "-Xpreprocessor",
        "-Xclang", "-mllvm", "-target", "-arch", "-aux-info", "--param", "-dumpbase",
        "-dumpbase-ext", "-dumpdir", "--sysroot", "-include-pch",
    };
    for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
        if (strcmp(arg, with_value[i]) == 0)
            return true;
    return false;
}

/* Queries that print something about the compiler and build nothing. */
static bool is_info_query(const char *arg)
{
    return strcmp(arg, "--version") == 0 || strcmp(arg, "-dumpversion") == 0 ||
           strcmp(arg, "-dumpfullversion") == 0 || strcmp(arg, "-dumpmachine") == 0 ||
           strcmp(arg, "-dumpspecs") == 0 || strncmp(arg, "-print-", 7) == 0 ||
           strncmp(arg, "--print-", 8) == 0;
}

struct arg_summary {
    bool has_input;   /* a source, object, library (-l) or response file */
    bool info_query;  /* --version, -dumpversion, -print-*, ... */
    bool preprocess;  /* -E */
    bool deps_only;   /* -M or -MM (they imply -E) */
    bool compile;     /* -c, -S or -fsyntax-only: nothing is linked */
    bool no_program;  /* -shared or -r: the output is not a program */
    bool compiles;    /* a source, a response file or -flto: instrumentation can matter */
    bool stdin_input; /* "-": a source read from standard input */
    bool unrepeatable; /* a file that a second compilation would not find as the first */
    bool user_color;  /* the user chose whether diagnostics are coloured */
    bool user_urls;   /* ... or link to the manual */
    const char *output; /* the -o file, or NULL */
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t len = strlen(s), slen = strlen(suffix);
    return len >= slen && strcmp(s + len - slen, suffix) == 0;
}

/* An input that is compiled (a source, or a response file that may hold sources), not
 * an object or a library that is only linked. */
static bool is_compiled_input(const char *arg)
{
    static const char *const linked[] = {".o", ".a", ".so", ".lo", ".la", ".obj"};
    const char *slash = strrchr(arg, '/');

    for (size_t i = 0; i < sizeof(linked) / sizeof(linked[0]); i++)
        if (ends_with(arg, linked[i]))
            return false;
    return strstr(slash != NULL ? slash : arg, ".so.") == NULL; /* libfoo.so.1 */
}

/*
 * A file that each run of the compiler finds as the first run did, which the fallback
 * (fallback.c) needs: a regular file, a directory, /dev/null, or a name that does not
 * exist (the compiler then says so each time). A pipe, a terminal, a socket, /dev/stdin
 * or bash's <(...) gives its contents once: a second compilation would read an empty
 * source, or write an output twice. "-" is not asked about: fallback.c saves standard
 * input for each run.
 */
static bool is_repeatable_file(const char *path)
{
    struct stat st, null;

    if (strcmp(path, "-") == 0 || stat(path, &st) != 0)
        return true;
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return true;
    return S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev;
}

/* Options whose separate value names a file that the compiler reads or writes. */
static bool names_file(const char *arg)
{
    return strcmp(arg, "-o") == 0 || strcmp(arg, "-MF") == 0 ||
           strcmp(arg, "-include") == 0 || strcmp(arg, "-imacros") == 0;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Options that choose how diagnostics look, GCC's and clang's spellings. */
static bool sets_color(const char *arg)
{
    return starts_with(arg, "-fdiagnostics-color") ||
           starts_with(arg, "-fno-diagnostics-color") ||
           starts_with(arg, "-fcolor-diagnostics") || starts_with(arg, "-fno-color-diagnostics");
}

static bool sets_urls(const char *arg)
{
    return starts_with(arg, "-fdiagnostics-urls") || starts_with(arg, "-fno-diagnostics-urls");
}

static void summarize_args(int nargs, char **args, struct arg_summary *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < nargs; i++) {
        const char *arg = args[i];
        s->user_color |= sets_color(arg);
        s->user_urls |= sets_urls(arg);
        if (arg[0] != '-' || arg[1] == '\0') { /* file name, "@file" or "-" for stdin */
            s->has_input = true;
            s->compiles |= is_compiled_input(arg);
            s->stdin_input |= strcmp(arg, "-") == 0;
            s->unrepeatable |= !is_repeatable_file(arg[0] == '@' ? arg + 1 : arg);
        } else if (strncmp(arg, "-o", 2) == 0 && arg[2] != '\0') {
            s->output = arg + 2;
            s->unrepeatable |= !is_repeatable_file(s->output);
        } else if (strncmp(arg, "-MF", 3) == 0 && arg[3] != '\0') {
            s->unrepeatable |= !is_repeatable_file(arg + 3);
        } else if (strncmp(arg, "-flto", 5) == 0) { /* the link compiles: lto1 */
            s->compiles = true;
        } else if (strncmp(arg, "-l", 2) == 0)
            s->has_input = true;
        else if (is_info_query(arg))
            s->info_query = true;
        else if (strcmp(arg, "-E") == 0)
            s->preprocess = true;
        else if (strcmp(arg, "-M") == 0 || strcmp(arg, "-MM") == 0)
            s->deps_only = true;
        else if (strcmp(arg, "-c") == 0 || strcmp(arg, "-S") == 0 ||
                 strcmp(arg, "-fsyntax-only") == 0)
            s->compile = true;
        else if (strcmp(arg, "-shared") == 0 || strcmp(arg, "-r") == 0)
            s->no_program = true;
        else if (strcmp(arg, "-o") == 0 && i + 1 < nargs)
            s->output = args[i + 1];
        if (names_file(arg) && i + 1 < nargs)
            s->unrepeatable |= !is_repeatable_file(args[i + 1]);
        if (arg[0] == '-' && takes_separate_value(arg) && i + 1 < nargs)
            i++;
    }
}

/* autoconf's test programs are conftest (conftest.exe), CMake's are cmTC_<hex>. */
static bool is_build_system_probe(const char *output)
{
    const char *slash = output != NULL ? strrchr(output, '/') : NULL;
    const char *base = slash != NULL ? slash + 1 : output;

    return base != NULL && (strcmp(base, "conftest") == 0 ||
                            strcmp(base, "conftest.exe") == 0 ||
                            strncmp(base, "cmTC_", 5) == 0);
}

/* The kind of step that s describes. */
static enum build_mode detect_mode(const struct arg_summary *s)
{
    /* "gcc -v", "mpicc -show", "cc -qversion": nothing to build, so nothing to add. */
    if (s->info_query || !s->has_input)
        return MODE_PASSTHROUGH;
    if (s->preprocess || (s->deps_only && !s->compile))
        return MODE_PREPROCESS;
    if (s->compile)
        return MODE_COMPILE;
    if (s->no_program)
        return MODE_LINK_NO_CORE;
    return MODE_LINK;
}

/* ---- building the real command ----------------------------------------------------- */

/* Words we own (built with malloc) and release after printing; exec never returns here. */
struct added_words {
    struct hp_instrument_flags hooks; /* plug-in or -finstrument-functions... */
    char *include_flag;     /* -I<includedir> */
    char *libdir_flag;      /* -L<libdir> */
    char *rpath_flag;       /* -Wl,-rpath,<libdir> */
    const char *terminal[3]; /* diagnostics as on a terminal (add_terminal_words) */
};

static void added_words_release(struct added_words *w)
{
    hp__instrument_flags_release(&w->hooks);
    free(w->include_flag);
    free(w->libdir_flag);
    free(w->rpath_flag);
}

/* Chooses the instrumentation flags (probing the compiler) unless --nocompiler. The
 * choice is said once per command that compiles a source (a link of objects alone
 * instruments nothing). */
static int choose_hooks(struct added_words *w, const struct invocation *inv,
                        const char *libdir, bool compiles)
{
    struct hp_instrument_request req = {
        .compiler = inv->compiler,
        .libdir = libdir,
        .filter_file = inv->filter_file,
        .inline_functions = (inv->flags & OPT_INLINE) != 0,
        .no_plugin = (inv->flags & OPT_NO_PLUGIN) != 0,
        .quiet = !compiles || (inv->flags & OPT_NO_PLUGIN) != 0,
    };
    if (inv->flags & OPT_NOCOMPILER)
        return HP_FLAGS_OK;
    return hp__instrument_flags_init(&w->hooks, &req);
}

/* Returns an enum hp_flags_result; bad input has been reported. */
static int added_words_init(struct added_words *w, const struct invocation *inv,
                            enum build_mode mode, bool compiles)
{
    char *incdir = NULL, *libdir = NULL;
    int ret = HP_FLAGS_NO_MEMORY;

    memset(w, 0, sizeof(*w));
    if (mode == MODE_PASSTHROUGH || mode == MODE_PREPROCESS)
        return HP_FLAGS_OK;
    incdir = hp_install_dir("HP_INSTRUMENT_INCLUDEDIR", "../include", "/hp", HP_INCLUDEDIR);
    if (incdir == NULL || (w->include_flag = hp_concat("-I", incdir)) == NULL)
        goto out;
    libdir = hp_install_dir("HP_INSTRUMENT_LIBDIR", "../lib", "/" CORE_LIBRARY_FILE,
                            HP_LIBDIR);
    if (libdir == NULL)
        goto out;
    if (mode == MODE_LINK && ((w->libdir_flag = hp_concat("-L", libdir)) == NULL ||
                              (w->rpath_flag = hp_concat("-Wl,-rpath,", libdir)) == NULL))
        goto out;
    ret = choose_hooks(w, inv, libdir, compiles);
out:
    free(incdir);
    free(libdir);
    if (ret != HP_FLAGS_OK)
        added_words_release(w);
    return ret;
}

/*
 * Lays out: compiler [-g <hooks>] <user args> [-I<inc> -DHP_USER_ENABLE] [link flags].
 * The debug and hook flags go first so that a user's later -g0 or
 * -fno-instrument-functions still wins; our -I goes after the user's so that their
 * include directories keep priority; the core goes last so that it comes after every
 * object and library that references the hooks. --no-as-needed keeps the core linked
 * even when only shared libraries reference it (or nothing does, with --nocompiler).
 * MPI programs get the MPI flavour first instead, so that its MPI_* come before those
 * of a PMPI tool the user links (our wrappers call the next definition: the tool's);
 * --no-as-needed then spans the user's arguments, because with --as-needed the linker
 * would drop the tool, whose MPI_* we already define (doc/mpi.md, "Other PMPI tools").
 * Returns a NULL-terminated malloc'd array (its strings are borrowed), or NULL when out
 * of memory.
 */
static char **build_command(const struct invocation *inv, enum build_mode mode,
                            bool probe, const struct added_words *w, const char *const *hooks)
{
    enum { MAX_ADDED = 15 + HP_MAX_INSTRUMENT_WORDS };
    char **cmd = calloc((size_t)inv->nargs + MAX_ADDED + 1, sizeof(*cmd));
    size_t n = 0;

    if (cmd == NULL)
        return NULL;
    cmd[n++] = (char *)inv->compiler;
    if (mode == MODE_COMPILE || mode == MODE_LINK_NO_CORE || mode == MODE_LINK) {
        cmd[n++] = "-g";
        for (size_t i = 0; hooks[i] != NULL; i++)
            cmd[n++] = (char *)hooks[i];
        for (size_t i = 0; w->terminal[i] != NULL; i++)
            cmd[n++] = (char *)w->terminal[i];
    }
    bool mpi_first = mode == MODE_LINK && links_mpi(inv);
    if (mpi_first) {
        cmd[n++] = w->libdir_flag;
        cmd[n++] = w->rpath_flag;
        cmd[n++] = "-Wl,--push-state,--no-as-needed";
        cmd[n++] = "-lhpmeasure_mpi";
    }
    for (int i = 0; i < inv->nargs; i++)
        cmd[n++] = inv->args[i];
    if (w->include_flag != NULL) {
        cmd[n++] = w->include_flag;
        cmd[n++] = "-DHP_USER_ENABLE"; /* turns on include/hp/user.h's macros */
    }
    if (mode == MODE_LINK) {
        if (!mpi_first) {
            cmd[n++] = w->libdir_flag;
            cmd[n++] = w->rpath_flag;
        }
        if (inv->flags & OPT_NOCOMPILER) /* the marker that makes sampling the default */
            cmd[n++] = "-Wl,--undefined=hp_nocompiler_build,"
                       "--export-dynamic-symbol=hp_nocompiler_build";
        if (probe) /* the marker that turns measurement off: no experiment directory */
            cmd[n++] = "-Wl,--undefined=hp_configure_probe,"
                       "--export-dynamic-symbol=hp_configure_probe";
        bool clang_marker = w->hooks.clang_after_inlining && hooks[0] != NULL;
        if (clang_marker) /* the marker that names clang's hooks in the profile's note */
            cmd[n++] = "-Wl,--undefined=hp_clang_after_inlining_build,"
                       "--export-dynamic-symbol=hp_clang_after_inlining_build";
        if ((inv->flags & OPT_NOCOMPILER) || probe || clang_marker)
            cmd[n++] = "-lhpmeasure_nocompiler";
        if (!mpi_first) {
            cmd[n++] = "-Wl,--push-state,--no-as-needed";
            cmd[n++] = "-lhpmeasure";
        }
        cmd[n++] = "-Wl,--pop-state";
    }
    cmd[n] = NULL;
    return cmd;
}

/* ---- printing and running ---------------------------------------------------------- */

static bool needs_quoting(const char *word)
{
    if (word[0] == '\0')
        return true;
    for (const char *p = word; *p != '\0'; p++)
        if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                   "_@%+=:,./-", *p) == NULL)
            return true;
    return false;
}

/* Prints one word so that sh reads it back as the same word. */
static void print_quoted(FILE *out, const char *word)
{
    if (!needs_quoting(word)) {
        fputs(word, out);
        return;
    }
    fputc('\'', out);
    for (const char *p = word; *p != '\0'; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    }
    fputc('\'', out);
}

int hp__print_command(FILE *out, char *const *cmd)
{
    for (size_t i = 0; cmd[i] != NULL; i++) {
        if (i > 0)
            fputc(' ', out);
        print_quoted(out, cmd[i]);
    }
    fputc('\n', out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* Replaces this process with the compiler; returns only on failure, with an exit status. */
static int run_command(char *const *cmd)
{
    execvp(cmd[0], cmd);
    fprintf(stderr, PROG ": cannot run '%s': %s\n", cmd[0], strerror(errno));
    return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

/* The compiled inputs of the command, for messages, joined by spaces and cut short
 * after a few (or its output when none); malloc'd, NULL when out of memory. */
static char *source_names(const struct invocation *inv, const char *output)
{
    enum { SHOWN = 160 };
    char *names = malloc(SHOWN + 8);
    size_t len = 0;

    if (names == NULL)
        return NULL;
    names[0] = '\0';
    for (int i = 0; i < inv->nargs && len <= SHOWN; i++) {
        const char *arg = inv->args[i];
        if (arg[0] == '-' && arg[1] != '\0') {
            if (takes_separate_value(arg))
                i++;
            continue;
        }
        if (!is_compiled_input(arg))
            continue;
        len += (size_t)snprintf(names + len, SHOWN + 1 - len, "%s%s", len > 0 ? " " : "",
                                strcmp(arg, "-") == 0 ? "<stdin>" : arg);
    }
    if (len > SHOWN)
        strcpy(names + SHOWN, "...");
    else if (len == 0) /* a link with -flto of objects alone: its output names it */
        snprintf(names, SHOWN + 1, "%s", output != NULL ? output : "a.out");
    return names;
}

/* A step whose instrumentation could make the compiler fail, and may fall back: run
 * again, it finds the files it names as the first run did (is_repeatable_file). */
static bool may_fall_back(const struct invocation *inv, enum build_mode mode,
                          const struct arg_summary *s, const struct added_words *w)
{
    return !(inv->flags & (OPT_STRICT | OPT_DRY_RUN)) && w->hooks.words[0] != NULL &&
           mode != MODE_PASSTHROUGH && mode != MODE_PREPROCESS && s->compiles &&
           !s->unrepeatable;
}

/* The TERMs that clang 14 (through terminfo) finds colours in; a guess for the rest. */
static bool clang_colors(const char *term)
{
    static const char *const prefixes[] = {"xterm", "screen", "tmux", "rxvt", "linux", "ansi",
                                           "cygwin"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (starts_with(term, prefixes[i]))
            return true;
    return strstr(term, "color") != NULL;
}

/*
 * On a terminal the compiler colours its diagnostics (GCC when TERM is set and not
 * "dumb", clang for TERMs with colours) and GCC links option names to its manual when
 * GCC_URLS or TERM_URLS is set. The fallback captures stderr through a pipe, where it
 * would do neither: these words ask for what it does on the terminal, unless the user
 * chose. GCC_COLORS and GCC_URLS still apply, as without us.
 */
static void add_terminal_words(struct added_words *w, const struct arg_summary *s)
{
    const char *term = getenv("TERM");
    const struct hp_instrument_flags *f = &w->hooks;
    size_t n = 0;

    if (!isatty(2) || term == NULL || strcmp(term, "dumb") == 0)
        return;
    if (!s->user_color && (f->gcc_major >= 5 || (f->family == HP_COMPILER_CLANG &&
                                                 clang_colors(term))))
        w->terminal[n++] = "-fdiagnostics-color=always";
    if (!s->user_urls && f->gcc_major >= 10 &&
        (getenv("GCC_URLS") != NULL || getenv("TERM_URLS") != NULL))
        w->terminal[n++] = "-fdiagnostics-urls=always";
}

/* Runs the primary command with the fallback of fallback.c; returns the exit status. */
static int run_with_fallback(const struct invocation *inv, enum build_mode mode,
                             const struct arg_summary *s, const struct added_words *w,
                             char **primary)
{
    static const char *const no_hooks[] = {NULL};
    bool probe = is_build_system_probe(s->output);
    struct hp_fallback_plan plan = {
        .primary = primary,
        .plain = build_command(inv, mode, probe, w, no_hooks),
        .what = w->hooks.what,
        .files = source_names(inv, s->output),
        .verbose = (inv->flags & OPT_VERBOSE) != 0,
        .stdin_source = s->stdin_input,
        .stdout_output = s->output != NULL && strcmp(s->output, "-") == 0,
    };
    bool complete = plan.plain != NULL && plan.files != NULL;
    int status = EXIT_FAILURE;

    if (w->hooks.lesser[0] != NULL) { /* the plug-in's note-only mode, then hooks alone */
        plan.lesser[0] = build_command(inv, mode, probe, w, w->hooks.lesser);
        plan.lesser[1] = build_command(inv, mode, probe, w, w->hooks.lesser + 2);
        plan.note_prefix = w->hooks.note_prefix;
        complete = complete && plan.lesser[0] != NULL && plan.lesser[1] != NULL;
        for (size_t i = 0; complete && plan.lesser[0][i] != NULL; i++)
            if (plan.lesser[0][i] == hp__note_placeholder)
                plan.note_slot = i;
    }
    if (complete)
        status = hp__run_with_fallback(&plan);
    else
        fprintf(stderr, PROG ": out of memory\n");
    free(plan.plain);
    free(plan.lesser[0]);
    free(plan.lesser[1]);
    free((char *)plan.files);
    return status;
}

/* Builds the real command and prints or runs it; returns the exit status. */
static int run_invocation(const struct invocation *inv)
{
    struct added_words words;
    struct arg_summary s;
    enum build_mode mode = MODE_PASSTHROUGH;
    char **cmd = NULL;
    int status;

    summarize_args(inv->nargs, inv->args, &s);
    if (!(inv->flags & OPT_PLAIN))
        mode = detect_mode(&s);
    switch (added_words_init(&words, inv, mode, s.compiles)) {
    case HP_FLAGS_OK:
        break;
    case HP_FLAGS_BAD_INPUT:
        return EXIT_USAGE;
    default:
        fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    bool fall_back = may_fall_back(inv, mode, &s, &words);
    if (fall_back)
        add_terminal_words(&words, &s);
    cmd = build_command(inv, mode, is_build_system_probe(s.output), &words, words.hooks.words);
    if (cmd == NULL) {
        fprintf(stderr, PROG ": out of memory\n");
        status = EXIT_FAILURE;
    } else if (inv->flags & OPT_DRY_RUN) {
        status = hp__print_command(stdout, cmd) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    } else if (fall_back) {
        status = run_with_fallback(inv, mode, &s, &words, cmd);
    } else {
        /* A closed or full stderr must not fail the user's build over a log line. */
        if (inv->flags & OPT_VERBOSE)
            (void)hp__print_command(stderr, cmd);
        status = run_command(cmd);
    }
    free(cmd);
    added_words_release(&words);
    return status;
}

int main(int argc, char **argv)
{
    struct invocation inv;
    int status = EXIT_USAGE;

    switch (read_invocation(argc, argv, &inv)) {
    case PARSE_DONE:
        status = fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
        break;
    case PARSE_ERROR:
        break;
    case PARSE_RUN:
        status = run_invocation(&inv);
        break;
    }
    free(inv.env_args);
    return status;
}
