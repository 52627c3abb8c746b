/*
 * An hpmeasure plug-in (doc/plugins.md) that runs a command while the program is in
 * iterations N..M of a loop, the loop being marked by an MPI call it makes once per
 * iteration (say MPI_Barrier or MPI_Allreduce): the command is started when the N-th
 * marker call returns and stopped (SIGTERM) when the M-th one returns, or at
 * MPI_Finalize. Use it to attach a profiler or a counter tool to a few iterations only.
 *
 *   cc -O2 -shared -fPIC -I<prefix>/include -o libhp_iter.so iteration_cmd.c
 *   HP_PLUGINS=$PWD/libhp_iter.so HP_ITER_CALL=MPI_Allreduce HP_ITER_FROM=100 \
 *   HP_ITER_TO=110 HP_ITER_COMMAND='perf record -p $HP_ITER_PID -o perf.$HP_ITER_RANK' \
 *   mpiexec -n 4 ./app
 *
 * The command runs through /bin/sh on rank HP_ITER_RANK only (default 0; "all" = every
 * rank), with HP_ITER_PID (the MPI process), HP_ITER_RANK and HP_ITERATION (= FROM) in
 * its environment. Counting is per process, on the calls of the marker function made by
 * any thread.
 */
#include <hp/plugin.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static long from, to;
static const char *command;
static _Atomic long calls;
static pid_t child = -1;

static void start_command(int rank)
{
    char pid[32], rank_text[32], iteration[32];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    snprintf(rank_text, sizeof(rank_text), "%d", rank);
    snprintf(iteration, sizeof(iteration), "%ld", from);
    setenv("HP_ITER_PID", pid, 1);
    setenv("HP_ITER_RANK", rank_text, 1);
    setenv("HP_ITERATION", iteration, 1);
    char *argv[] = { "sh", "-c", (char *)command, NULL };
    if (posix_spawn(&child, "/bin/sh", NULL, NULL, argv, environ) != 0) {
        perror("iteration plug-in: /bin/sh");
        child = -1;
    }
}

static void stop_command(void)
{
    if (child <= 0)
        return;
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    child = -1;
}

static int iter_init(const hp_plugin_host *host)
{
    const char *call = getenv("HP_ITER_CALL"), *ranks = getenv("HP_ITER_RANK");
    command = getenv("HP_ITER_COMMAND");
    from = atol(getenv("HP_ITER_FROM") ? getenv("HP_ITER_FROM") : "0");
    to = atol(getenv("HP_ITER_TO") ? getenv("HP_ITER_TO") : "0");
    if (call == NULL || command == NULL || from < 1 || to < from) {
        fprintf(stderr, "iteration plug-in: set HP_ITER_CALL, HP_ITER_COMMAND and "
                        "1 <= HP_ITER_FROM <= HP_ITER_TO\n");
        return -1;
    }
    if (ranks != NULL && strcmp(ranks, "all") != 0 && atoi(ranks) != host->rank)
        return 0; /* not this rank: select nothing */
    if (ranks == NULL && host->rank != 0)
        return 0;
    return host->select(call);
}

static void iter_end(const hp_plugin_call *c)
{
    long n = atomic_fetch_add(&calls, 1) + 1;
    if (n == from)
        start_command(c->rank);
    if (n == to)
        stop_command();
}

HP_PLUGIN_DEFINE("iteration", iter_init, NULL, iter_end, stop_command);
