/*
 * Blocking MPI operations for the measurement's own communication (the start-up
 * exchanges in MPI_Init and everything at finalize) that wait off the CPU (mpi_offcpu.c).
 *
 * MPICH busy-polls in every blocking call. At finalize most ranks wait most of the
 * time (for a child's profile, for rank 0's tables, for the slowest rank to open the
 * archive), and when a job has more ranks than cores, those polling ranks take the
 * CPU from the few that have work: at 64 ranks on 2 cores each collective of the
 * trace step took 0.4 to 2 s. These functions start the nonblocking form and test it
 * for about 50 us, then between short naps that grow from 10 us to 1 ms, so a waiting
 * rank costs a few wake-ups per millisecond, and charge the time to the finalize
 * split's waiting.
 *
 * Each has the signature of the PMPI function it replaces, so that OTF2's own MPI
 * collectives (otf2/OTF2_MPI_Collectives.h, compiled into mpi_trace.c) can be pointed
 * at them. For the measurement's own exchanges in MPI_Init and at finalize: never on a
 * path of the measured program's own calls.
 */
#ifndef HP_ADAPTERS_MPI_MPI_OFFCPU_H
#define HP_ADAPTERS_MPI_MPI_OFFCPU_H

#include <mpi.h>

/* Waits for r (which is then MPI_REQUEST_NULL), napping between tests. */
int hp__mpi_offcpu_wait(MPI_Request *r, MPI_Status *status);

int hp__mpi_offcpu_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                        MPI_Comm comm);
int hp__mpi_offcpu_recv(void *buf, int count, MPI_Datatype type, int source, int tag,
                        MPI_Comm comm, MPI_Status *status);
int hp__mpi_offcpu_barrier(MPI_Comm comm);
int hp__mpi_offcpu_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int hp__mpi_offcpu_allreduce(const void *in, void *out, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm);
int hp__mpi_offcpu_reduce(const void *in, void *out, int count, MPI_Datatype type,
                          MPI_Op op, int root, MPI_Comm comm);
int hp__mpi_offcpu_gather(const void *in, int incount, MPI_Datatype intype, void *out,
                          int outcount, MPI_Datatype outtype, int root, MPI_Comm comm);
int hp__mpi_offcpu_gatherv(const void *in, int incount, MPI_Datatype intype, void *out,
                           const int outcounts[], const int displs[], MPI_Datatype outtype,
                           int root, MPI_Comm comm);
int hp__mpi_offcpu_scatter(const void *in, int incount, MPI_Datatype intype, void *out,
                           int outcount, MPI_Datatype outtype, int root, MPI_Comm comm);
int hp__mpi_offcpu_scatterv(const void *in, const int incounts[], const int displs[],
                            MPI_Datatype intype, void *out, int outcount,
                            MPI_Datatype outtype, int root, MPI_Comm comm);
int hp__mpi_offcpu_alltoall(const void *in, int incount, MPI_Datatype intype, void *out,
                            int outcount, MPI_Datatype outtype, MPI_Comm comm);
int hp__mpi_offcpu_alltoallv(const void *in, const int incounts[], const int indispls[],
                             MPI_Datatype intype, void *out, const int outcounts[],
                             const int outdispls[], MPI_Datatype outtype, MPI_Comm comm);
int hp__mpi_offcpu_scan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm);
int hp__mpi_offcpu_comm_dup(MPI_Comm comm, MPI_Comm *dup);

#endif
