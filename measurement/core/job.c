/*
 * The job identity of this process (see job.h). Written once (at start-up, at
 * MPI_Init) before any reader can need it, so plain variables do.
 */
#include "job.h"

static time_t start_wall_time;
static bool mpi_active;
static int mpi_rank, mpi_size;

void hp_job_set_mpi(int rank, int size)
{
    mpi_size = size;
    mpi_rank = rank;
    mpi_active = true;
}

bool hp_job_mpi_active(void)
{
    return mpi_active;
}

int hp_job_rank(void)
{
    return mpi_rank;
}

int hp_job_size(void)
{
    return mpi_size;
}

void hp_job_set_start_time(time_t start)
{
    start_wall_time = start;
}

time_t hp_job_start_time(void)
{
    return start_wall_time;
}
