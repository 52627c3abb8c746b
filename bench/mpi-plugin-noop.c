/* The plug-in of run-mpi-bench.sh: selects the MPI function named in HP_BENCH_PLUGIN_CALL
 * and does nothing in begin() and end(), so a run measures the dispatch alone. */
#include <hp/plugin.h>
#include <stdlib.h>

static int noop_init(const hp_plugin_host *host)
{
    const char *call = getenv("HP_BENCH_PLUGIN_CALL");
    return host->select(call != NULL ? call : "MPI_Send");
}

static void noop_call(const hp_plugin_call *call)
{
    (void)call;
}

HP_PLUGIN_DEFINE("bench-noop", noop_init, noop_call, noop_call, NULL);
