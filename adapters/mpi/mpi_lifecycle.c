/*
 * MPI_Init, MPI_Finalize and MPI_Abort as the measurement sees them.
 *
 * After MPI_Init, rank 0 names the experiment directory and tells every rank the name,
 * so that all ranks of a job write into one directory (created at the first write,
 * measurement/finalize/experiment.c), and the MPI transport is
 * opened (mpi_transport.c). Before MPI_Finalize the core's finalize driver
 * (measurement/finalize/) merges the ranks' profiles and writes the experiment over
 * that transport. Every rank takes part in these collectives, measuring or not.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "adapters/mpi/mpi_lifecycle.h"
#include "adapters/mpi/mpi_event.h"
#include "adapters/mpi/mpi_plugins.h"
#include "adapters/mpi/mpi_clock.h"
#include "adapters/mpi/mpi_stacking.h"
#include "adapters/mpi/mpi_trace.h"
#include "adapters/mpi/mpi_offcpu.h"
#include "adapters/mpi/mpi_transport.h"
#include "adapters/mpi/mpi_waitstates.h"
#include "measurement/core/config.h"
#include "measurement/core/job.h"
#include "measurement/finalize/experiment.h"
#include "measurement/finalize/finalize.h"
#include "measurement/runtime/runtime.h"
#include "measurement/sampling/sampling.h"
#include "measurement/runtime/signals.h"
#include "util/log.h"

static int world_rank, world_size;

/* The rank of a process whose MPI was initialized without our MPI_Init wrapper seeing
 * it; -1 when MPI was never initialized. */
static int probe_rank(void)
{
    int initialized = 0, finalized = 0, rank = -1;
    if (PMPI_Initialized(&initialized) != MPI_SUCCESS || !initialized)
        return -1;
    PMPI_Finalized(&finalized);
    if (!finalized) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return rank;
    }
    const char *env = secure_getenv("PMI_RANK"); /* MPICH's process manager sets it */
    return env != NULL ? atoi(env) : 0;
}

/* The probe is asked at exit only: MPI that ran without us gets explained (rank 0). */
static int probe_rank_and_explain(void)
{
    int rank = probe_rank();
    if (rank >= 0)
        hp__mpi_explain_bypass(rank);
    return rank;
}

__attribute__((constructor)) static void register_probe(void)
{
    hp_runtime_set_mpi_probe(probe_rank_and_explain);
    hp_runtime_set_mpi_end_explainer(hp__mpi_explain_finalize_bypass);
}

/* Every rank takes part in the collectives below, measuring or not (measurement can be
 * off on one rank only: a failed memory reservation, a different environment), so no
 * rank can wait for another or match a user's collective with ours. */
void hp_mpi_after_init(void)
{
    bool measuring = hp_runtime_ensure_started();
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const hp_transport *t = hp__mpi_transport_open(world_rank, world_size,
                                                    hp_mpi_trace_write, hp__mpi_ws_replay);
    static hp_experiment_job job; /* 4 KB: not on the program's stack */
    if (world_rank == 0 && measuring && hp_cfg.enable_profiling)
        hp_experiment_plan_job(&job);
    if (t != NULL)
        hp__mpi_offcpu_bcast(&job, sizeof(job), MPI_BYTE, 0, hp__mpi_transport_comm());
    if (world_rank != 0)
        hp_experiment_join_job(&job);
    /* Wait states need every rank (the records' replay and the registry of communicators
     * are collective): on only when all ranks have them on. */
    int ws = t != NULL && hp_cfg.wait_states, all_ws = 0;
    if (t != NULL)
        hp__mpi_offcpu_allreduce(&ws, &all_ws, 1, MPI_INT, MPI_MIN, hp__mpi_transport_comm());
    hp_ws_on = all_ws != 0;
    if (t != NULL && hp_cfg.enable_tracing) /* same on every rank */
        hp_mpi_trace_sync_clocks();
    if (measuring) {
        hp_job_set_mpi(world_rank, world_size);
        hp__mpi_plugins_load(world_rank, world_size);
        hp__mpi_modes_update(); /* the plug-ins' selection changes the calls' modes */
        hp_runtime_warn_unknown_names(world_rank); /* said at start unless under hp-run */
        hp__mpi_report_shadowed(world_rank);
        hp_sampling_resume(hp__tls_location);
    }
}

/* The end of the run is the core's (measurement/finalize/); this rank only says
 * whether it has data and gives the transport. */
void hp_mpi_before_finalize(void)
{
    const hp_transport *t = hp__mpi_transport();
    if (t == NULL)
        return;
    hp_signals_hold(); /* a signal now waits until the merged profile is written */
    hp__mpi_plugins_finalize();
    hp__mpi_modes_update();
    bool measured = hp_job_mpi_active() && hp_runtime_stop();
    hp_finalize_job(t, measured);
    hp__mpi_transport_close();
    hp_signals_release();
}

void hp_mpi_before_abort(int errorcode)
{
    if (!hp_job_mpi_active() || !hp_runtime_stop())
        return;
    hp_warn("rank %d calls MPI_Abort(%d); writing its own "
            "profile-rank%d.cubex", world_rank, errorcode, world_rank);
    hp_experiment_write_rank(world_rank);
}
