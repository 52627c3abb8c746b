/*
 * The consistent cut of an MPI job's trace (mpi_trace_cut.c): when some rank's adaptive
 * buffer stopped holding events, the ranks agree on where every rank's trace ends
 * (measurement/finalize/trace_cut.h), and report what was left out.
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRACE_CUT_H
#define HP_ADAPTERS_MPI_MPI_TRACE_CUT_H

#include <mpi.h>
#include <stdint.h>

#include "measurement/finalize/trace_cut.h"

/* Collective over comm, before the trace is written (mpi_trace_cut.c): when some rank's
 * adaptive buffer stopped holding events, the ranks agree on the consistent cut
 * (trace_cut.h), for the trace output to apply (hp_trace_job.agree_cut); NULL when
 * nothing stopped (or out of memory, said on stderr). comm_map: local -> global
 * communicator ids. */
hp_trace_cut *hp_mpi_trace_cut_agree(MPI_Comm comm, int rank, int size,
                                     const uint32_t *comm_map, uint32_t ncomm_map);

/* Collective, after the trace was written (cut: the one it was written with, NULL for
 * none): rank 0 appends every rank's dropped range and counts to summary.txt, and with
 * more than one rank the job's adaptive-buffer notes, and says them on stderr. */
void hp_mpi_trace_cut_report(const hp_trace_cut *cut, MPI_Comm comm, int rank, int size);

#endif
