/* Prints which signals wait while the sampler's handler (SIGRTMIN+6) runs, as the
 * kernel has it: "blocked: TERM INT USR1 USR2 XCPU" for those that are, then
 * "unblocked: SEGV BUS FPE ILL" for the faults that are not. Run it sampled. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
    static const struct {
        int sig;
        const char *name;
    } sigs[] = { { SIGTERM, "TERM" }, { SIGINT, "INT" },   { SIGUSR1, "USR1" },
                 { SIGUSR2, "USR2" }, { SIGXCPU, "XCPU" }, { SIGSEGV, "SEGV" },
                 { SIGBUS, "BUS" },   { SIGFPE, "FPE" },   { SIGILL, "ILL" } };
    struct sigaction sa;
    if (sigaction(SIGRTMIN + 6, NULL, &sa) < 0 || sa.sa_handler == SIG_DFL) {
        puts("no sampling handler");
        return 1;
    }
    const char *what[2] = { "unblocked:", "blocked:" };
    for (int b = 1; b >= 0; b--) {
        fputs(what[b], stdout);
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
            if (sigismember(&sa.sa_mask, sigs[i].sig) == b)
                printf(" %s", sigs[i].name);
        putchar('\n');
    }
    return 0;
}
