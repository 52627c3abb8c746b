/*
 * Runs the tests of one unit-test file (linked together with it), each in a child
 * process with a timeout, and prints TAP for automake's tap-driver. A test passes when
 * its function returns 0 and the child exits normally; in a sanitizer build (configure
 * --enable-sanitizers) it must also leave no leaked memory behind.
 *
 * Usage: test-<module> [NAME]   (NAME runs only that test, in this process, for gdb).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

/* The child ends with _exit, which skips LeakSanitizer's check at exit: run it there. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define LEAK_CHECK() 0
#endif

enum { TEST_TIMEOUT_SECONDS = 60 };

static int run_in_child(const struct hp_test *t)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        alarm(TEST_TIMEOUT_SECONDS);
        int rc = t->fn();
        if (rc == 0 && LEAK_CHECK() != 0) {
            fprintf(stderr, "%s: memory leaked (LeakSanitizer's report above)\n", t->name);
            rc = 1;
        }
        _exit(rc == 0 ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: killed by signal %d%s\n", t->name, WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
        return 1;
    }
    return WEXITSTATUS(status) != 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (int i = 0; i < hp_test_count; i++)
            if (strcmp(hp_tests[i].name, argv[1]) == 0)
                return hp_tests[i].fn();
        fprintf(stderr, "no test named '%s'\n", argv[1]);
        return 2;
    }
    printf("1..%d\n", hp_test_count);
    int failed = 0;
    for (int i = 0; i < hp_test_count; i++) {
        int bad = run_in_child(&hp_tests[i]);
        failed += bad;
        printf("%s %d - %s\n", bad ? "not ok" : "ok", i + 1, hp_tests[i].name);
    }
    return failed ? 1 : 0;
}
