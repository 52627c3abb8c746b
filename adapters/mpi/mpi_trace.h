/*
 * The OTF2 trace of an MPI job (mpi_trace.c), written at MPI_Finalize.
 */
#ifndef HP_ADAPTERS_MPI_MPI_TRACE_H
#define HP_ADAPTERS_MPI_MPI_TRACE_H

#include <mpi.h>
#include <stdint.h>

#include "measurement/profile.h"

/* Collective over comm: every rank writes its locations into directory/traces.otf2;
 * merged is the job's unified profile on rank 0 (NULL elsewhere). Problems are reported
 * on stderr; the program goes on. */
void hp_mpi_trace_write(const char *directory, const hp_profile *merged, MPI_Comm comm,
                        int rank, int size);

/* Point-to-point transfer of a byte buffer of any size over the adapter's private
 * communicator (mpi_lifecycle.c), for the binomial-tree reductions at finalize.
 * hp__mpi_recv_bytes returns a malloc'd buffer, or NULL when the peer sent nothing or
 * memory ran out (the data is received and dropped then, so both sides stay in step). */
void hp__mpi_send_bytes(const char *data, uint64_t length, int peer);
char *hp__mpi_recv_bytes(int peer, uint64_t *length);

#endif
