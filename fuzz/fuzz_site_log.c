/*
 * libFuzzer target for the site-log reader: `hp-report site` (tools/report_site.c) run on
 * the input as its logs. The first input byte picks the options (bit 0: --by user or app,
 * bit 1: --period week or month, bits 2-3: --format text, csv, json or html); the rest is
 * up to four logs separated by FUZZ_SEPARATOR. Each log is an anonymous in-memory file
 * (memfd_create), named to hp-report by its /proc/self/fd path, so nothing is written to
 * disk; the summary goes to /dev/null. hp-report site must end with status 0 (a log's
 * bad lines are skipped) and never crash.
 */
#include "fuzz/fuzz.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tools/report.h"

enum { MAX_LOGS = 4 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
        abort();
    close(null);
    return 0;
}

/* An in-memory file holding part; its descriptor, or -1. */
static int memory_file(fuzz_part part)
{
    int fd = memfd_create("site-log", MFD_CLOEXEC);
    for (size_t done = 0; fd >= 0 && done < part.n;) {
        ssize_t n = write(fd, part.p + done, part.n - done);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = { "text", "csv", "json", "html" };
    if (size < 1)
        return 0;
    char paths[MAX_LOGS][64];
    int fds[MAX_LOGS], nlogs = 0;
    char *argv[8 + MAX_LOGS];
    int argc = 0;
    argv[argc++] = "site";
    argv[argc++] = "--by";
    argv[argc++] = data[0] & 1 ? "app" : "user";
    argv[argc++] = "--period";
    argv[argc++] = data[0] & 2 ? "month" : "week";
    argv[argc++] = "--format";
    argv[argc++] = (char *)formats[(data[0] >> 2) & 3];
    fuzz_part rest = { data + 1, size - 1 };
    while (rest.p != NULL && nlogs < MAX_LOGS) {
        fds[nlogs] = memory_file(fuzz_next_part(&rest, FUZZ_SEPARATOR));
        if (fds[nlogs] < 0)
            break;
        snprintf(paths[nlogs], sizeof(paths[nlogs]), "/proc/self/fd/%d", fds[nlogs]);
        argv[argc++] = paths[nlogs++];
    }
    argv[argc] = NULL;
    if (nlogs > 0)
        FUZZ_CHECK(hp_report_site(argc, argv) == 0);
    for (int i = 0; i < nlogs; i++)
        close(fds[i]);
    return 0;
}
