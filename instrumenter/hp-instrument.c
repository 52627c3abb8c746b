/*
 * hp-instrument: the compiler wrapper. `hp-instrument [options] <compiler> <args...>`
 * checks that <compiler> is a C, C++ or Fortran compiler (or MPI wrapper) we know, looks
 * at the arguments to tell what kind of step this is (preprocess only, compile only,
 * link, shared-library link), adds the flags that step needs (`-g -finstrument-functions`
 * and `-I<includedir>` on compilations; the core library at the end of a program link),
 * and replaces itself with the real compiler through execvp(), so the compiler's exit
 * status and signals reach the caller unchanged. The user's arguments are never rewritten
 * or reordered: we only insert words before and after them. Nothing here parses a
 * response file (`@file`); its contents stay invisible to mode detection.
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
#include <unistd.h>

#include "install_dirs.h"

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
    OPT_NOCOMPILER = (1U << 2)  /* no -finstrument-functions (sampling/MPI only) */
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
    unsigned flags;       /* enum option_flags */
    int compiler_index;   /* argv index of the compiler word */
};

static const char *const known_compilers[] = {
    "gcc", "g++", "cc", "c++", "clang", "clang++", "gfortran",
    "mpicc", "mpicxx", "mpic++", "mpifort", "mpif90", "mpif77",
};
#define N_KNOWN_COMPILERS (sizeof(known_compilers) / sizeof(known_compilers[0]))

static const char accepted_options[] = "--help --version --verbose --dry-run --nocompiler";

/* ---- messages ---------------------------------------------------------------------- */

static void print_usage(FILE *out)
{
    fprintf(out,
            "Usage: " PROG " [options] <compiler> <compiler arguments...>\n"
            "Compile and link a program for measurement with hpmeasure.\n"
            "\n"
            "Options (before the compiler):\n"
            "  --help        print this help and exit\n"
            "  --version     print the version and exit\n"
            "  --verbose     print the real compiler command on stderr, then run it\n"
            "  --dry-run     print the real compiler command on stdout, do not run it\n"
            "  --nocompiler  no compiler instrumentation (-finstrument-functions);\n"
            "                still link the measurement library\n"
            "\n"
            "Examples:\n"
            "  " PROG " gcc -O2 -o app app.c\n"
            "  make CC=\"" PROG " mpicc\"\n"
            "  CC=\"" PROG " gcc\" ./configure\n"
            "\n"
            "Environment: HP_INSTRUMENT_LIBDIR, HP_INSTRUMENT_INCLUDEDIR override where\n"
            "libhpmeasure and the hp/ headers are taken from.\n");
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
static bool links_mpi(int argc, char **argv, int compiler_index)
{
    const char *slash = strrchr(argv[compiler_index], '/');
    const char *base = slash ? slash + 1 : argv[compiler_index];
    if (strncmp(base, "mpi", 3) == 0)
        return true;
    for (int i = compiler_index + 1; i < argc; i++)
        if (strcmp(argv[i], "-lmpi") == 0 || strcmp(argv[i], "-lmpich") == 0)
            return true;
    return false;
}

/* Reads the hp-options in argv up to the compiler word. */
static enum parse_result parse_hp_options(int argc, char **argv, struct invocation *inv)
{
    int i;

    inv->flags = 0;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        } else if (strcmp(arg, "--help") == 0) {
            print_usage(stdout);
            return PARSE_DONE;
        } else if (strcmp(arg, "--version") == 0) {
            printf(PROG " (hpmeasure) %s\n", HP_VERSION);
            return PARSE_DONE;
        } else if (strcmp(arg, "--verbose") == 0) {
            inv->flags |= OPT_VERBOSE;
        } else if (strcmp(arg, "--dry-run") == 0) {
            inv->flags |= OPT_DRY_RUN;
        } else if (strcmp(arg, "--nocompiler") == 0) {
            inv->flags |= OPT_NOCOMPILER;
        } else {
            fprintf(stderr, PROG ": unknown option '%s' (options go before the compiler)\n"
                            PROG ": accepted options: %s\n", arg, accepted_options);
            return PARSE_ERROR;
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
    inv->compiler_index = i;
    return PARSE_RUN;
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
};

static void summarize_args(int argc, char **argv, int first, struct arg_summary *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') /* file name, "@file" or "-" for stdin */
            s->has_input = true;
        else if (strncmp(arg, "-l", 2) == 0)
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
        if (arg[0] == '-' && takes_separate_value(arg) && i + 1 < argc)
            i++;
    }
}

static enum build_mode detect_mode(int argc, char **argv, int first)
{
    struct arg_summary s;

    summarize_args(argc, argv, first, &s);
    /* "gcc -v", "mpicc -show", "cc -qversion": nothing to build, so nothing to add. */
    if (s.info_query || !s.has_input)
        return MODE_PASSTHROUGH;
    if (s.preprocess || (s.deps_only && !s.compile))
        return MODE_PREPROCESS;
    if (s.compile)
        return MODE_COMPILE;
    if (s.no_program)
        return MODE_LINK_NO_CORE;
    return MODE_LINK;
}

/* ---- building the real command ----------------------------------------------------- */

/* Words we own (built with malloc) and release after printing; exec never returns here. */
struct added_words {
    char *include_flag;     /* -I<includedir> */
    char *libdir_flag;      /* -L<libdir> */
    char *rpath_flag;       /* -Wl,-rpath,<libdir> */
};

static void added_words_release(struct added_words *w)
{
    free(w->include_flag);
    free(w->libdir_flag);
    free(w->rpath_flag);
}

static int added_words_init(struct added_words *w, enum build_mode mode)
{
    char *incdir = NULL, *libdir = NULL;
    int ret = -1;

    memset(w, 0, sizeof(*w));
    if (mode == MODE_PASSTHROUGH || mode == MODE_PREPROCESS)
        return 0;
    incdir = hp_install_dir("HP_INSTRUMENT_INCLUDEDIR", "../include", "/hp", HP_INCLUDEDIR);
    if (incdir == NULL || (w->include_flag = hp_concat("-I", incdir)) == NULL)
        goto out;
    if (mode == MODE_LINK) {
        libdir = hp_install_dir("HP_INSTRUMENT_LIBDIR", "../lib", "/" CORE_LIBRARY_FILE,
                            HP_LIBDIR);
        if (libdir == NULL || (w->libdir_flag = hp_concat("-L", libdir)) == NULL ||
            (w->rpath_flag = hp_concat("-Wl,-rpath,", libdir)) == NULL)
            goto out;
    }
    ret = 0;
out:
    free(incdir);
    free(libdir);
    if (ret != 0)
        added_words_release(w);
    return ret;
}

/*
 * Lays out: compiler [-g [-finstrument-functions]] <user args> [-I<inc>] [link flags].
 * The debug and hook flags go first so that a user's later -g0 or
 * -fno-instrument-functions still wins; our -I goes after the user's so that their
 * include directories keep priority; the core goes last so that it comes after every
 * object and library that references the hooks. --no-as-needed keeps the core linked
 * even when only shared libraries reference it (or nothing does, with --nocompiler).
 * Returns a NULL-terminated malloc'd array (its strings are borrowed), or NULL when out
 * of memory.
 */
static char **build_command(int argc, char **argv, const struct invocation *inv,
                            enum build_mode mode, const struct added_words *w)
{
    enum { MAX_ADDED = 10 };
    size_t n_user = (size_t)(argc - inv->compiler_index);
    char **cmd = calloc(n_user + MAX_ADDED + 1, sizeof(*cmd));
    size_t n = 0;

    if (cmd == NULL)
        return NULL;
    cmd[n++] = argv[inv->compiler_index];
    if (mode == MODE_COMPILE || mode == MODE_LINK_NO_CORE || mode == MODE_LINK) {
        cmd[n++] = "-g";
        if (!(inv->flags & OPT_NOCOMPILER))
            cmd[n++] = "-finstrument-functions";
    }
    for (int i = inv->compiler_index + 1; i < argc; i++)
        cmd[n++] = argv[i];
    if (w->include_flag != NULL)
        cmd[n++] = w->include_flag;
    if (mode == MODE_LINK) {
        cmd[n++] = w->libdir_flag;
        cmd[n++] = w->rpath_flag;
        if (inv->flags & OPT_NOCOMPILER) { /* the marker that makes sampling the default */
            cmd[n++] = "-Wl,--undefined=hp_nocompiler_build,"
                       "--export-dynamic-symbol=hp_nocompiler_build";
            cmd[n++] = "-lhpmeasure_nocompiler";
        }
        cmd[n++] = "-Wl,--push-state,--no-as-needed";
        cmd[n++] = links_mpi(argc, argv, inv->compiler_index) ? "-lhpmeasure_mpi"
                                                              : "-lhpmeasure";
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

/* Prints the command as one shell-quoted line; returns 0, or -1 if the write failed. */
static int print_command(FILE *out, char *const *cmd)
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

int main(int argc, char **argv)
{
    struct invocation inv;
    struct added_words words;
    enum build_mode mode;
    char **cmd;
    int status;

    switch (parse_hp_options(argc, argv, &inv)) {
    case PARSE_DONE:
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    case PARSE_ERROR:
        return EXIT_USAGE;
    case PARSE_RUN:
        break;
    }
    mode = detect_mode(argc, argv, inv.compiler_index + 1);
    if (added_words_init(&words, mode) != 0) {
        fprintf(stderr, PROG ": out of memory\n");
        return EXIT_FAILURE;
    }
    cmd = build_command(argc, argv, &inv, mode, &words);
    if (cmd == NULL) {
        fprintf(stderr, PROG ": out of memory\n");
        added_words_release(&words);
        return EXIT_FAILURE;
    }
    if (inv.flags & OPT_DRY_RUN) {
        status = print_command(stdout, cmd) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    } else {
        /* A closed or full stderr must not fail the user's build over a log line. */
        if (inv.flags & OPT_VERBOSE)
            (void)print_command(stderr, cmd);
        status = run_command(cmd);
    }
    free(cmd);
    added_words_release(&words);
    return status;
}
