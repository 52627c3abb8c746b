/*
 * Which compiler a compiler word really is. `mpicc`, `cc` or `mpifort` name a GCC or a
 * clang only indirectly, and the GCC plug-in must be loaded by exactly the GCC version it
 * was built against, so hp-instrument asks the compiler itself: it runs
 * `<compiler> -E -dM -x c /dev/null` once and reads the predefined macros (__clang__,
 * __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__). This works through MPI wrappers (they
 * pass -E on to their compiler) and for gfortran (its driver preprocesses C too). The
 * compiler's stderr is discarded; what failed is described to the caller instead.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { MAX_OUTPUT = 1 << 20 }; /* the macro list is ~15 KB; more means something is odd */

/* Reads all of fd into a malloc'd, NUL-terminated buffer; NULL on a read error, out of
 * memory or more than MAX_OUTPUT bytes. */
static char *read_all(int fd)
{
    size_t size = 16384, len = 0;
    char *buf = malloc(size);

    while (buf != NULL) {
        ssize_t n;
        if (len + 1 == size) {
            char *bigger = size < MAX_OUTPUT ? realloc(buf, size * 2) : NULL;
            if (bigger == NULL)
                break;
            buf = bigger;
            size *= 2;
        }
        n = read(fd, buf + len, size - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (n == 0) {
            buf[len] = '\0';
            return buf;
        }
        len += (size_t)n;
    }
    free(buf);
    return NULL;
}

/* The value of "#define <name> <value>" in the macro list, or NULL. */
static const char *macro_value(const char *macros, const char *name)
{
    size_t nlen = strlen(name);
    const char *line = macros;

    while (line != NULL && *line != '\0') {
        if (strncmp(line, "#define ", 8) == 0 && strncmp(line + 8, name, nlen) == 0 &&
            line[8 + nlen] == ' ')
            return line + 8 + nlen + 1;
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return NULL;
}

/* Fills id from the macro list; returns 0, or -1 when the GCC version is unreadable. */
static int identify(const char *macros, struct hp_compiler_id *id)
{
    const char *major = macro_value(macros, "__GNUC__");
    const char *minor = macro_value(macros, "__GNUC_MINOR__");
    const char *patch = macro_value(macros, "__GNUC_PATCHLEVEL__");

    id->version[0] = '\0';
    if (macro_value(macros, "__clang__") != NULL) {
        id->family = HP_COMPILER_CLANG;
        return 0;
    }
    if (major == NULL) {
        id->family = HP_COMPILER_OTHER;
        return 0;
    }
    id->family = HP_COMPILER_GCC;
    if (minor == NULL || patch == NULL)
        return -1;
    snprintf(id->version, sizeof(id->version), "%d.%d.%d", atoi(major), atoi(minor),
             atoi(patch));
    return 0;
}

/* Starts the probe with stdout on a pipe, stdin and stderr on /dev/null. Returns the
 * child's pid (and *out_fd), or -1 with errno set. */
static pid_t start_probe(const char *compiler, int *out_fd)
{
    char *const args[] = {(char *)compiler, "-E", "-dM", "-x", "c", "/dev/null", NULL};
    posix_spawn_file_actions_t actions;
    int fds[2], err;
    pid_t pid = -1;

    if (pipe(fds) != 0)
        return -1;
    err = posix_spawn_file_actions_init(&actions);
    if (err == 0) {
        err = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        if (err == 0)
            err = posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
        if (err == 0)
            err = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        if (err == 0)
            err = posix_spawn_file_actions_addclose(&actions, fds[0]);
        if (err == 0)
            err = posix_spawn_file_actions_addclose(&actions, fds[1]);
        if (err == 0)
            err = posix_spawnp(&pid, compiler, &actions, NULL, args, environ);
        posix_spawn_file_actions_destroy(&actions);
    }
    close(fds[1]);
    if (err != 0) {
        close(fds[0]);
        errno = err;
        return -1;
    }
    *out_fd = fds[0];
    return pid;
}

/* Waits for pid; returns its exit status, or -1 (killed by a signal, wait failed). */
static int wait_probe(pid_t pid)
{
    int status;

    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int hp__compiler_probe(const char *compiler, struct hp_compiler_id *id, char *err,
                       size_t size)
{
    int fd, status, ret = HP_PROBE_FAILED;
    char *macros;
    pid_t pid = start_probe(compiler, &fd);

    if (pid < 0) {
        if (errno == ENOENT)
            return HP_PROBE_NOT_FOUND;
        snprintf(err, size, "cannot run '%s': %s", compiler, strerror(errno));
        return HP_PROBE_FAILED;
    }
    macros = read_all(fd);
    close(fd);
    status = wait_probe(pid);
    if (status < 0)
        snprintf(err, size, "'%s -E -dM -x c /dev/null' was killed by a signal", compiler);
    else if (status != 0)
        snprintf(err, size, "'%s -E -dM -x c /dev/null' failed with exit status %d",
                 compiler, status);
    else if (macros == NULL)
        snprintf(err, size, "cannot read the output of '%s -E -dM -x c /dev/null'", compiler);
    else if (identify(macros, id) != 0)
        snprintf(err, size, "'%s' defines __GNUC__ but not its minor or patch level",
                 compiler);
    else
        ret = HP_PROBE_OK;
    free(macros);
    return ret;
}
