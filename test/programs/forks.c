/* fork() without exec: the child's work and exit must not write a second experiment,
 * and the parent's profile keeps its own calls. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(void) { sink++; }

int main(void)
{
    work();
    pid_t pid = fork();
    if (pid == 0) {
        work();
        work();
        return 0;
    }
    int status;
    waitpid(pid, &status, 0);
    work();
    printf("child status %d\n", WEXITSTATUS(status));
    return 0;
}
