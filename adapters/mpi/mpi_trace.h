/*
 * The MPI side of the OTF2 trace of a job, at MPI_Finalize: the trace step
 * (mpi_trace.c), which hands the trace output (measurement/finalize/trace_output.h) what
 * it needs of MPI, the consistent cut (mpi_trace_cut.c), and the clocks measured at
 * MPI_Init and MPI_Finalize (mpi_clock.c).
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRACE_H
#define HP_ADAPTERS_MPI_MPI_TRACE_H

#include <mpi.h>
#include <stdint.h>

#include "measurement/finalize/trace_cut.h"
#include "measurement/finalize/transport.h"
#include "profile/profile.h"

/* Collective over the MPI transport (mpi_transport.h), after MPI_Init when the
 * configuration asks for a trace (the same on every rank): groups the ranks by host,
 * takes the host leader's timer reference and measures the host's clock offset against
 * rank 0's host (mpi_clock.c). */
void hp_mpi_trace_sync_clocks(void);

/* Collective, at finalize before the trace is written: the host leader's tick rate and
 * the second offset measurement; installs the host's clock for the trace output.
 * Nothing without an earlier hp_mpi_trace_sync_clocks. */
void hp_mpi_trace_finish_clocks(void);

/* The key of this rank's host (rank: its rank in MPI_COMM_WORLD), the same on every rank
 * of one host (MPICH's MPIR_CVAR_ODD_EVEN_CLIQUES=1 makes odd and even ranks two). */
uint64_t hp_mpi_host_key(int rank);

/* The MPI transport's trace step (hp_transport.write_trace), collective: every rank
 * writes its locations into directory/traces.otf2; merged is the job's unified profile
 * on rank 0 (NULL elsewhere). Problems are reported on stderr; the program goes on. */
void hp_mpi_trace_write(const hp_transport *t, const char *directory, const hp_profile *merged);

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
