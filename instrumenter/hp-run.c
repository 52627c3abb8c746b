/*
 * hp-run: measures an uninstrumented, dynamically linked MPI program without
 * rebuilding it. `hp-run [options] <command> [args...]` (usually
 * `hp-run mpiexec -n 4 ./app`) puts the preload flavour of the measurement library in
 * front of LD_PRELOAD and replaces itself with the command; mpiexec passes the
 * environment on to the ranks. In the ranks, our MPI_* definitions come first and reach
 * MPI through the next definition (dlsym(RTLD_NEXT)), not through PMPI_*, so a PMPI
 * tool can still be used at the same time. Processes that never initialize MPI (mpiexec
 * itself, its proxies) write nothing, except the program itself when the command is the
 * program (`hp-run ./app`: not a launcher, not a script): hp-run sets HP_RUN_PROGRAM to
 * its own process id, which the command keeps, and that process is measured from its
 * start whether or not it uses MPI.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "install_dirs.h"

#ifndef HP_VERSION
#define HP_VERSION "unknown"
#endif
#ifndef HP_LIBDIR
#define HP_LIBDIR "/usr/local/lib"
#endif

#define PROG "hp-run"
#define PRELOAD_LIBRARY "libhpmeasure_mpi_preload.so"

enum { OPT_VERBOSE = 1u << 0, OPT_DRY_RUN = 1u << 1 };

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: " PROG " [options] <command> [args...]\n\n"
            "Runs <command> with the MPI measurement preloaded, for programs that were\n"
            "not built with hp-instrument, e.g.\n\n"
            "  " PROG " mpiexec -n 4 ./app     (every MPI process)\n"
            "  " PROG " ./app                  (the program itself, MPI or not)\n\n"
            "MPI calls are measured (time, visits, bytes), the rest is sampled (1000 Hz\n"
            "unless HP_SAMPLING_FREQUENCY is set), and the call-path profile is written to\n"
            "one experiment directory per job, as with hp-instrument; HP_* variables apply\n"
            "as usual.\n\n"
            "options:\n"
            "  --help       this text\n"
            "  --version    the version\n"
            "  --verbose    print the LD_PRELOAD setting and the command on stderr\n"
            "  --dry-run    print them on stdout and do not run the command\n");
}

/* Reads the options before the command; returns the index of the command word, 0 to
 * stop with status 0 (help, version), or -1 on a bad option. */
static int parse_options(int argc, char **argv, unsigned *flags)
{
    int i;
    *flags = 0;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--") == 0)
            return i + 1 < argc ? i + 1 : -1;
        if (strcmp(argv[i], "--help") == 0) {
            print_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf(PROG " (hpmeasure) %s\n", HP_VERSION);
            return 0;
        }
        if (strcmp(argv[i], "--verbose") == 0)
            *flags |= OPT_VERBOSE;
        else if (strcmp(argv[i], "--dry-run") == 0)
            *flags |= OPT_DRY_RUN;
        else {
            fprintf(stderr, PROG ": unknown option '%s'\n" PROG ": accepted options: "
                            "--help --version --verbose --dry-run\n", argv[i]);
            return -1;
        }
    }
    if (i == argc) {
        fprintf(stderr, PROG ": no command given\n");
        print_usage(stderr);
        return -1;
    }
    return i;
}

/* MPI launchers and batch-system starters: the command starts the program elsewhere. */
static bool is_launcher(const char *command)
{
    static const char *const names[] = { "mpiexec", "mpirun", "orterun", "prterun", "srun",
                                         "aprun", "jsrun", "flux", "ibrun", "poe", "lrun",
                                         "charmrun" };
    /* also the suffixed names: mpiexec.hydra, mpirun.openmpi, mpiexec-mpich, mpirun_rsh */
    const char *base = strrchr(command, '/');
    base = base != NULL ? base + 1 : command;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t n = strlen(names[i]);
        if (strncmp(base, names[i], n) == 0 &&
            (base[n] == '\0' || strchr(".-_", base[n]) != NULL))
            return true;
    }
    return false;
}

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The file execvp runs for command (searched in PATH when it has no '/', or in glibc's
 * default "/bin:/usr/bin" when PATH is unset), malloc'd, or NULL when there is none. */
static char *command_path(const char *command)
{
    if (strchr(command, '/') != NULL)
        return hp_concat(command, "");
    const char *search = getenv("PATH") != NULL ? getenv("PATH") : "/bin:/usr/bin";
    for (const char *d = search; d != NULL;) {
        const char *end = strchr(d, ':');
        size_t len = end != NULL ? (size_t)(end - d) : strlen(d);
        char *dir = len > 0 ? strndup(d, len) : strdup("."); /* empty: the current one */
        char *slash = dir != NULL ? hp_concat(dir, "/") : NULL;
        char *candidate = slash != NULL ? hp_concat(slash, command) : NULL;
        free(dir);
        free(slash);
        if (candidate != NULL && is_executable_file(candidate))
            return candidate;
        free(candidate);
        d = end != NULL ? end + 1 : NULL;
    }
    return NULL;
}

/* True when the file that runs as command starts with "#!": its interpreter, not the
 * command, would take HP_RUN_PROGRAM. */
static bool is_script(const char *command)
{
    char *path = command_path(command);
    char magic[2] = { 0, 0 };
    FILE *f = path != NULL ? fopen(path, "rb") : NULL;
    if (f != NULL) {
        if (fread(magic, 1, 2, f) != 2)
            magic[0] = 0;
        fclose(f);
    }
    free(path);
    return magic[0] == '#' && magic[1] == '!';
}

/* "LD_PRELOAD" value: our library first, then whatever was preloaded already. */
static char *preload_value(const char *library)
{
    const char *old = getenv("LD_PRELOAD");
    if (old == NULL || old[0] == '\0')
        return hp_concat(library, "");
    char *with_colon = hp_concat(library, ":");
    char *value = with_colon != NULL ? hp_concat(with_colon, old) : NULL;
    free(with_colon);
    return value;
}

/* The program was not rebuilt, so only sampling can show its call paths: on by default
 * (an HP_SAMPLING_FREQUENCY the user set, including 0, stays). */
#define DEFAULT_SAMPLING_HZ "1000"

static void print_command(FILE *out, const char *preload, bool program, char **command)
{
    if (getenv("HP_SAMPLING_FREQUENCY") == NULL)
        fprintf(out, "HP_SAMPLING_FREQUENCY=" DEFAULT_SAMPLING_HZ " ");
    if (program) /* execvp keeps the process, so its id */
        fprintf(out, "HP_RUN_PROGRAM=%" PRIdMAX " ", (intmax_t)getpid());
    fprintf(out, "LD_PRELOAD=%s", preload);
    for (char **word = command; *word != NULL; word++)
        fprintf(out, " %s", *word);
    fputc('\n', out);
}

int main(int argc, char **argv)
{
    unsigned flags;
    int first = parse_options(argc, argv, &flags);
    if (first <= 0)
        return first == 0 ? 0 : 2;
    char *libdir = hp_install_dir("HP_RUN_LIBDIR", "../lib", "/" PRELOAD_LIBRARY, HP_LIBDIR);
    char *library = libdir != NULL ? hp_concat(libdir, "/" PRELOAD_LIBRARY) : NULL;
    char *preload = library != NULL ? preload_value(library) : NULL;
    int status = 0;
    if (preload == NULL) {
        fprintf(stderr, PROG ": out of memory\n");
        status = 1;
        goto out;
    }
    if (access(library, R_OK) != 0) {
        fprintf(stderr, PROG ": %s not found: is hpmeasure installed with MPI support?\n",
                library);
        status = 1;
        goto out;
    }
    bool program = !is_launcher(argv[first]) && !is_script(argv[first]);
    char pid_text[32];
    snprintf(pid_text, sizeof(pid_text), "%" PRIdMAX, (intmax_t)getpid());
    if (flags & (OPT_DRY_RUN | OPT_VERBOSE))
        print_command(flags & OPT_DRY_RUN ? stdout : stderr, preload, program, argv + first);
    if (flags & OPT_DRY_RUN)
        goto out;
    if (setenv("LD_PRELOAD", preload, 1) != 0 ||
        setenv("HP_SAMPLING_FREQUENCY", DEFAULT_SAMPLING_HZ, 0) != 0 ||
        (program && setenv("HP_RUN_PROGRAM", pid_text, 1) != 0)) {
        perror(PROG ": setenv");
        status = 1;
        goto out;
    }
    execvp(argv[first], argv + first);
    fprintf(stderr, PROG ": cannot run '%s': %s\n", argv[first], strerror(errno));
    status = 127;
out:
    /* Freed for LeakSanitizer: a leak report ends the process before stdio flushes, and
     * took --dry-run's output with it. */
    free(preload);
    free(library);
    free(libdir);
    return status;
}
