/*
 * Running the compiler so that a build never fails because of us. hp-instrument used to
 * replace itself with the compiler; when instrumentation could make a compilation fail
 * (the GCC plug-in crashes, -finstrument-functions trips a compiler bug), it runs the
 * compiler as a child instead, with stderr (and stdout when the output goes there)
 * captured, and:
 *
 *   - the instrumented command succeeds: its output is written out unchanged, done;
 *   - it fails: the same command runs without instrumentation. If that fails too, the
 *     fault is the user's (a syntax error, -Werror): its diagnostics are written out,
 *     once, and its exit status is ours. Else the fault was ours: the lesser
 *     instrumentations that the plan offers are tried in order (with GCC and the plug-in:
 *     -finstrument-functions, noted in the profile by the plug-in's note-only mode), and
 *     the first that succeeds is kept, or the uninstrumented compilation (run once more,
 *     since a failed attempt deletes the outputs it shares with it). One line on stderr
 *     says what failed and what was used.
 *
 * Failures that no retry can change are not retried: a failed link (the linker ran, so
 * every compilation succeeded) and a compiler stopped by SIGINT, SIGTERM and the like,
 * which are forwarded to the child and then end us the same way. A source read from
 * standard input is saved to an unlinked temporary file, which each attempt reads anew
 * (other files that can be read only once, hp-instrument.c runs without a fallback). A
 * retry that cannot be started leaves the first attempt's failure standing, shown.
 */
#if !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* mkstemp(), strsignal() */
#endif

#include "install_dirs.h" /* hp_concat() */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define PROG "hp-instrument"

enum { WHY_SIZE = 200 };

/* What one run of the compiler gave. */
struct attempt {
    int status;      /* waitpid status; -1 when the compiler could not be started */
    int spawn_error; /* errno of a failed start */
    char *out, *err; /* captured stdout (only with plan->stdout_output) and stderr */
    size_t out_len, err_len;
};

/* Signals that stop a build from outside: forwarded to the compiler, never retried. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t stop_signal;

static void forward_signal(int sig)
{
    stop_signal = sig;
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

/* Catches the stop signals that are not ignored (an ignored one stays ignored, for the
 * compiler too, as with exec). */
static void catch_stop_signals(void)
{
    for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
        struct sigaction old, sa;
        if (sigaction(stop_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = forward_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(stop_signals[i], &sa, NULL);
    }
}

/* Ends this process the way the compiler ended (status from waitpid). */
static int exit_status_of(int status)
{
    if (status < 0)
        return 127;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        raise(sig);
        return 128 + sig;
    }
    return WEXITSTATUS(status);
}

/* ---- running one attempt ----------------------------------------------------------- */

/* Appends n bytes to a growing buffer; returns 0, or -1 when out of memory. */
static int append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n > *cap) {
        size_t want = *cap ? *cap : 4096;
        while (want < *len + n)
            want *= 2;
        char *bigger = realloc(*buf, want);
        if (bigger == NULL)
            return -1;
        *buf = bigger;
        *cap = want;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    return 0;
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* a closed stderr must not fail the build */
        buf += n;
        len -= (size_t)n;
    }
}

/*
 * Reads the pipes until both are closed. Out of memory, what was read so far and the
 * rest go straight to our own stdout/stderr: the output is then shown, not lost.
 */
static void drain(int out_fd, int err_fd, struct attempt *a)
{
    struct pollfd fds[2] = {{err_fd, POLLIN, 0}, {out_fd, POLLIN, 0}};
    char **bufs[2] = {&a->err, &a->out};
    size_t *lens[2] = {&a->err_len, &a->out_len};
    size_t caps[2] = {0, 0};
    bool through[2] = {false, false};
    char chunk[8192];

    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            ssize_t n = read(fds[i].fd, chunk, sizeof(chunk));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                continue;
            }
            int own = i == 0 ? 2 : 1;
            if (!through[i] && append(bufs[i], lens[i], &caps[i], chunk, (size_t)n) == 0)
                continue;
            if (!through[i]) {
                write_all(own, *bufs[i], *lens[i]);
                *lens[i] = 0;
                through[i] = true;
            }
            write_all(own, chunk, (size_t)n);
        }
    }
}

/* Sets up the child's standard files: stdin from the saved source, stdout and stderr
 * into the pipes (stdout only when captured). Returns 0 or an errno value. */
static int child_files(posix_spawn_file_actions_t *fa, int in_fd, const int out[2],
                       const int err[2])
{
    int e = 0;

    if (in_fd >= 0)
        e = posix_spawn_file_actions_adddup2(fa, in_fd, 0);
    if (e == 0 && out[1] >= 0)
        e = posix_spawn_file_actions_adddup2(fa, out[1], 1);
    if (e == 0)
        e = posix_spawn_file_actions_adddup2(fa, err[1], 2);
    for (int i = 0; e == 0 && i < 2; i++) {
        if (out[i] >= 0)
            e = posix_spawn_file_actions_addclose(fa, out[i]);
        if (e == 0)
            e = posix_spawn_file_actions_addclose(fa, err[i]);
    }
    return e;
}

/* Runs cmd with its output captured into a; returns 0, or -1 when it could not start
 * (a->spawn_error says why). */
static int run_attempt(char *const *cmd, const struct hp_fallback_plan *plan, int in_fd,
                       struct attempt *a)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1}, e;
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;

    memset(a, 0, sizeof(*a));
    a->status = -1;
    if (plan->verbose)
        (void)hp__print_command(stderr, cmd);
    if (in_fd >= 0 && lseek(in_fd, 0, SEEK_SET) < 0)
        e = errno;
    else if (pipe(err) != 0 || (plan->stdout_output && pipe(out) != 0))
        e = errno;
    else if ((e = posix_spawn_file_actions_init(&fa)) == 0) {
        e = child_files(&fa, in_fd, out, err);
        if (e == 0)
            e = posix_spawnp(&pid, cmd[0], &fa, NULL, cmd, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    if (out[1] >= 0)
        close(out[1]);
    if (err[1] >= 0)
        close(err[1]);
    if (e != 0 || pid < 0) {
        if (out[0] >= 0)
            close(out[0]);
        if (err[0] >= 0)
            close(err[0]);
        a->spawn_error = e;
        return -1;
    }
    child_pid = pid;
    if (stop_signal != 0) /* arrived before the pid was known */
        kill(pid, stop_signal);
    drain(out[0], err[0], a);
    while (waitpid(pid, &a->status, 0) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    return 0;
}

static bool succeeded(const struct attempt *a)
{
    return a->status >= 0 && WIFEXITED(a->status) && WEXITSTATUS(a->status) == 0;
}

static void attempt_release(struct attempt *a)
{
    free(a->out);
    free(a->err);
    memset(a, 0, sizeof(*a));
}

static void show(const struct attempt *a)
{
    write_all(1, a->out, a->out_len);
    write_all(2, a->err, a->err_len);
}

/* ---- warnings once -------------------------------------------------------------------
 *
 * GCC warns about code, not about source: where its optimizers duplicate a block (jump
 * threading on the hooks' branches, the plug-in's hook-free copy of short bodies), a
 * late warning (-Warray-bounds, -Wmaybe-uninitialized, ...) comes once per copy, word
 * for word, in the same function. An instrumented compilation's stderr is therefore
 * shown with such repeats left out: a warning block (its "warning:" line, the source
 * lines and notes below it) that equals one shown earlier since the last context line
 * ("In function 'f':", "In file included from ...") is dropped. Repeats with another
 * context, such as GCC's "inlined from 'main'" copies, stay, as in a plain build.
 */

static bool line_has(const char *line, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; len >= n && i <= len - n; i++)
        if (memcmp(line + i, needle, n) == 0)
            return true;
    return false;
}

enum line_kind { LINE_WARNING, LINE_MORE, LINE_CONTEXT };

/* A warning's first line; a line that continues the block above (quoted source, a
 * note); or anything else, which starts a new context. Colours do not matter: GCC
 * colours "warning:" and "note:" but keeps the words. */
static enum line_kind kind_of(const char *line, size_t len)
{
    if (len > 0 && line[0] == ' ')
        return LINE_MORE;
    if (line_has(line, len, "warning: "))
        return LINE_WARNING;
    if (line_has(line, len, "note: "))
        return LINE_MORE;
    return LINE_CONTEXT;
}

/* Whether the block [start, start + len) of text equals a kept block since from. */
static bool seen_since(const char *text, size_t from, size_t start, size_t len,
                       const size_t *kept, size_t nkept)
{
    for (size_t i = 0; i < nkept; i += 2)
        if (kept[i] >= from && kept[i + 1] == len && memcmp(text + kept[i], text + start, len) == 0)
            return true;
    return false;
}

/* Writes text to fd with repeated warning blocks left out (see above). Out of memory
 * for the bookkeeping, the text is written whole. */
static void write_warnings_once(int fd, const char *text, size_t size)
{
    size_t cap = 0, nkept = 0, context = 0, pos = 0;
    size_t *kept = NULL; /* start and length of each warning block written */

    while (pos < size) {
        size_t start = pos, end = pos;
        const char *nl = memchr(text + pos, '\n', size - pos);
        end = nl != NULL ? (size_t)(nl - text) + 1 : size;
        enum line_kind kind = kind_of(text + start, end - start);
        if (kind == LINE_WARNING) {
            while (end < size) { /* the block: the lines that continue it */
                nl = memchr(text + end, '\n', size - end);
                size_t next = nl != NULL ? (size_t)(nl - text) + 1 : size;
                if (kind_of(text + end, next - end) != LINE_MORE)
                    break;
                end = next;
            }
            if (seen_since(text, context, start, end - start, kept, nkept)) {
                pos = end;
                continue;
            }
            if (nkept + 2 > cap) {
                size_t *bigger = realloc(kept, (cap ? cap * 2 : 32) * sizeof(*kept));
                if (bigger == NULL) {
                    write_all(fd, text + start, size - start);
                    break;
                }
                kept = bigger;
                cap = cap ? cap * 2 : 32;
            }
            kept[nkept++] = start;
            kept[nkept++] = end - start;
        } else if (kind == LINE_CONTEXT) {
            context = start;
        }
        write_all(fd, text + start, end - start);
        pos = end;
    }
    free(kept);
}

/* An instrumented attempt's output: stdout as it is, stderr with warnings once. */
static void show_instrumented(const struct attempt *a)
{
    write_all(1, a->out, a->out_len);
    write_warnings_once(2, a->err, a->err_len);
}

/* ---- deciding ---------------------------------------------------------------------- */

/* Where the text of a captured stderr holds needle (it is not NUL-terminated). */
static const char *find_in(const struct attempt *a, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; a->err_len >= n && i <= a->err_len - n; i++)
        if (memcmp(a->err + i, needle, n) == 0)
            return a->err + i;
    return NULL;
}

/* A failure that an uninstrumented compilation cannot change: stopped from outside, or
 * the link failed (the driver links only when every compilation succeeded), unless it
 * was the link-time compilation of -flto (lto-wrapper) that failed. */
static bool retry_pointless(const struct attempt *a)
{
    if (stop_signal != 0)
        return true;
    if (a->status >= 0 && WIFSIGNALED(a->status))
        for (size_t i = 0; i < N_STOP_SIGNALS; i++)
            if (WTERMSIG(a->status) == stop_signals[i] || WTERMSIG(a->status) == SIGKILL)
                return true;
    if (find_in(a, "lto-wrapper") != NULL)
        return false;
    return find_in(a, "collect2: error: ld returned") != NULL ||
           find_in(a, "error: linker command failed") != NULL;
}

/* One phrase for what went wrong: the signal, or the compiler's first internal-error or
 * error line (cut short), and the exit status. */
static void describe_failure(const struct attempt *a, char *why, size_t size)
{
    const char *line = find_in(a, "internal compiler error");

    if (a->status < 0) {
        snprintf(why, size, "cannot run the compiler: %s", strerror(a->spawn_error));
        return;
    }
    if (WIFSIGNALED(a->status)) {
        snprintf(why, size, "killed by signal %d, %s", WTERMSIG(a->status),
                 strsignal(WTERMSIG(a->status)));
        return;
    }
    if (line == NULL)
        line = find_in(a, "error: ");
    if (line == NULL) {
        snprintf(why, size, "exit status %d", WEXITSTATUS(a->status));
        return;
    }
    size_t len = 0, left = a->err_len - (size_t)(line - a->err);
    while (len < left && len < 120 && line[len] != '\n')
        len++;
    snprintf(why, size, "%.*s%s, exit status %d", (int)len, line,
             len < left && line[len] != '\n' ? "..." : "", WEXITSTATUS(a->status));
}

/* The plug-in argument's value must stay one word through GCC's driver, which splits
 * option values at blanks for some languages (gfortran), and GCC 12 drops the last
 * character of a value that holds a '=': every byte but letters, digits and ".,:_()/+-"
 * becomes %XX, which the plug-in decodes. Returns a malloc'd string, or NULL when out of
 * memory. */
static char *to_argument(const char *prefix, const char *text)
{
    static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789.,:_()/+-";
    size_t len = strlen(prefix);
    char *arg = malloc(len + 3 * strlen(text) + 1);

    if (arg == NULL)
        return NULL;
    memcpy(arg, prefix, len);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (strchr(plain, *p) != NULL)
            arg[len++] = (char)*p;
        else
            len += (size_t)sprintf(arg + len, "%%%02X", *p);
    }
    arg[len] = '\0';
    return arg;
}

/* Fills the note slot of the plan's first lesser command with the plug-in argument
 * that carries what failed (*note, malloc'd); returns 0, or -1 when out of memory, and
 * then that command is not run. */
static int fill_note(const struct hp_fallback_plan *plan, const char *why, char **note)
{
    *note = to_argument(plan->note_prefix, why);
    if (*note == NULL)
        return -1;
    plan->lesser[0][plan->note_slot] = *note;
    return 0;
}

/* Copies standard input into an unlinked temporary file; returns its descriptor, -1
 * when the copy failed, or -2 when no temporary file could be made (nothing was read). */
static int save_stdin(void)
{
    const char *tmp = getenv("TMPDIR");
    char *path = hp_concat(tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp", "/hp-stdin-XXXXXX");
    char chunk[8192];
    int fd = path != NULL ? mkstemp(path) : -1;

    if (fd < 0) {
        free(path);
        return -2;
    }
    unlink(path);
    free(path);
    for (;;) {
        ssize_t n = read(0, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return fd;
        if (n < 0 || write(fd, chunk, (size_t)n) != n) {
            close(fd);
            return -1;
        }
    }
}

/* The one line that says what happened. */
static void print_note(const struct hp_fallback_plan *plan, const char *why,
                       const char *lesser_why, const char *used)
{
    fprintf(stderr, PROG ": %s: compiling with %s failed (%s)", plan->files, plan->what, why);
    if (lesser_why[0] != '\0')
        fprintf(stderr, "; with -finstrument-functions too (%s)", lesser_why);
    fprintf(stderr, "; compiled %s instead (HP_INSTRUMENT_STRICT=1 makes this an error)\n",
            used);
    fflush(stderr);
}

/* A retry that could not be started (fork or exec failed: EAGAIN under make -j, ...):
 * the first attempt's failure stands, with its diagnostics, and a line says why it was
 * not compiled again. Returns the first attempt's exit status. */
static int retry_not_started(const struct hp_fallback_plan *plan, const struct attempt *first,
                             const struct attempt *retry)
{
    show_instrumented(first);
    fprintf(stderr, PROG ": %s: compiling with %s failed, and '%s' could not be run again"
                    " without instrumentation: %s\n",
            plan->files, plan->what, plan->plain[0], strerror(retry->spawn_error));
    fflush(stderr);
    return exit_status_of(first->status);
}

/* After the instrumented and the plain command: the lesser instrumentations, then the
 * plain command again when none succeeds. Returns the exit status. */
static int fall_back(const struct hp_fallback_plan *plan, int in_fd, const struct attempt *first,
                     struct attempt *plain, const char *why)
{
    char lesser_why[WHY_SIZE] = "", *note = NULL;
    struct attempt a;
    bool ran = false;

    for (int i = 0; i < HP_FALLBACK_LESSER && plan->lesser[i] != NULL; i++) {
        if (i == 0 && plan->note_prefix != NULL && fill_note(plan, why, &note) != 0)
            continue;
        ran = true;
        if (run_attempt(plan->lesser[i], plan, in_fd, &a) == 0 && succeeded(&a)) {
            show_instrumented(&a);
            print_note(plan, why, "", "with -finstrument-functions");
            attempt_release(&a);
            free(note);
            return EXIT_SUCCESS;
        }
        if (lesser_why[0] == '\0')
            describe_failure(&a, lesser_why, sizeof(lesser_why));
        attempt_release(&a);
        if (stop_signal != 0)
            break;
    }
    free(note);
    if (ran && stop_signal == 0) { /* the failed attempts removed the plain outputs */
        attempt_release(plain);
        if (run_attempt(plan->plain, plan, in_fd, plain) != 0)
            return retry_not_started(plan, first, plain);
    }
    show(plain);
    if (stop_signal != 0 || !succeeded(plain))
        return exit_status_of(plain->status);
    print_note(plan, why, lesser_why, "without instrumentation");
    return EXIT_SUCCESS;
}

int hp__run_with_fallback(const struct hp_fallback_plan *plan)
{
    struct attempt first, plain;
    char why[WHY_SIZE];
    int in_fd = -1, status;

    if (plan->stdin_source && (in_fd = save_stdin()) == -2) {
        /* No fallback then: the compiler reads standard input as without us. */
        execvp(plan->primary[0], plan->primary);
        fprintf(stderr, PROG ": cannot run '%s': %s\n", plan->primary[0], strerror(errno));
        return errno == ENOENT ? 127 : 126;
    }
    if (plan->stdin_source && in_fd < 0) {
        fprintf(stderr, PROG ": cannot save the source read from standard input: %s\n",
                strerror(errno));
        return EXIT_FAILURE;
    }
    catch_stop_signals();
    if (run_attempt(plan->primary, plan, in_fd, &first) != 0) {
        fprintf(stderr, PROG ": cannot run '%s': %s\n", plan->primary[0],
                strerror(first.spawn_error));
        status = first.spawn_error == ENOENT ? 127 : 126;
    } else if (succeeded(&first) || retry_pointless(&first)) {
        show_instrumented(&first);
        status = exit_status_of(first.status);
    } else {
        describe_failure(&first, why, sizeof(why));
        if (run_attempt(plan->plain, plan, in_fd, &plain) != 0) {
            status = retry_not_started(plan, &first, &plain);
        } else if (!succeeded(&plain)) {
            show(&plain); /* the user's own error: as a plain build reports it */
            status = exit_status_of(plain.status);
        } else {
            status = fall_back(plan, in_fd, &first, &plain, why);
        }
        attempt_release(&plain);
    }
    attempt_release(&first);
    if (in_fd >= 0)
        close(in_fd);
    if (stop_signal != 0) {
        signal(stop_signal, SIG_DFL);
        raise(stop_signal);
    }
    return status;
}
