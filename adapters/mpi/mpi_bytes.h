/*
 * Message byte accounting of the MPI wrappers (mpi_bytes.c), following
 * doc/formats/MPI-BYTES.md (Score-P's conventions); the implemented table is in
 * doc/mpi-bytes.md. Each helper adds what one call moves on this rank to the frame; the
 * generated wrappers call them after a successful real call (rules in mpi-semantics.txt).
 * Sizes come from PMPI_Type_size_c (PMPI: nothing nests); MPI_PROC_NULL peers and
 * cancelled or MPI_PROC_NULL-sourced receives move nothing. Counts are taken as
 * int64_t so that the large-count (_c) variants share the helpers; array arguments come
 * in an int and an MPI_Count (_c) flavour.
 */
#ifndef HP_ADAPTERS_MPI_MPI_BYTES_H
#define HP_ADAPTERS_MPI_MPI_BYTES_H

#include <mpi.h>
#include <stddef.h> /* mpi_adapter.h uses size_t */
#include <stdint.h>

#include "mpi_adapter.h"

/* Point to point. */
void hp_mpi_bytes_send(hp_mpi_frame *f, int64_t count, MPI_Datatype type, int dest,
                       MPI_Comm comm);
void hp_mpi_bytes_recv(hp_mpi_frame *f, const MPI_Status *status);

/* Collectives (blocking, non-blocking at the call, persistent at each start). */
void hp_mpi_bytes_bcast(hp_mpi_frame *f, int64_t count, MPI_Datatype type, int root,
                        MPI_Comm comm);
void hp_mpi_bytes_reduce(hp_mpi_frame *f, const void *sendbuf, int64_t count,
                         MPI_Datatype type, int root, MPI_Comm comm);
void hp_mpi_bytes_allreduce(hp_mpi_frame *f, const void *sendbuf, int64_t count,
                            MPI_Datatype type, MPI_Comm comm);
void hp_mpi_bytes_gather(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                         MPI_Datatype sendtype, int64_t recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm);
void hp_mpi_bytes_scatter(hp_mpi_frame *f, int64_t sendcount, MPI_Datatype sendtype,
                          const void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                          int root, MPI_Comm comm);
void hp_mpi_bytes_allgather(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                            MPI_Datatype sendtype, int64_t recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm);
void hp_mpi_bytes_alltoall(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                           MPI_Datatype sendtype, int64_t recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm);
void hp_mpi_bytes_reduce_scatter_block(hp_mpi_frame *f, const void *sendbuf,
                                       int64_t recvcount, MPI_Datatype type, MPI_Comm comm);
void hp_mpi_bytes_scan(hp_mpi_frame *f, const void *sendbuf, int64_t count, MPI_Datatype type,
                       MPI_Comm comm);
void hp_mpi_bytes_exscan(hp_mpi_frame *f, const void *sendbuf, int64_t count,
                         MPI_Datatype type, MPI_Comm comm);

void hp_mpi_bytes_gatherv(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                          MPI_Datatype sendtype, const int recvcounts[], MPI_Datatype recvtype,
                          int root, MPI_Comm comm);
void hp_mpi_bytes_gatherv_c(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                            MPI_Datatype sendtype, const MPI_Count recvcounts[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm);
void hp_mpi_bytes_scatterv(hp_mpi_frame *f, const int sendcounts[], MPI_Datatype sendtype,
                           const void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                           int root, MPI_Comm comm);
void hp_mpi_bytes_scatterv_c(hp_mpi_frame *f, const MPI_Count sendcounts[],
                             MPI_Datatype sendtype, const void *recvbuf, int64_t recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm);
void hp_mpi_bytes_allgatherv(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                             MPI_Datatype sendtype, const int recvcounts[],
                             MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_allgatherv_c(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                               MPI_Datatype sendtype, const MPI_Count recvcounts[],
                               MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_alltoallv(hp_mpi_frame *f, const void *sendbuf, const int sendcounts[],
                            MPI_Datatype sendtype, const int recvcounts[],
                            MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_alltoallv_c(hp_mpi_frame *f, const void *sendbuf,
                              const MPI_Count sendcounts[], MPI_Datatype sendtype,
                              const MPI_Count recvcounts[], MPI_Datatype recvtype,
                              MPI_Comm comm);
void hp_mpi_bytes_alltoallw(hp_mpi_frame *f, const void *sendbuf, const int sendcounts[],
                            const MPI_Datatype sendtypes[], const int recvcounts[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm);
void hp_mpi_bytes_alltoallw_c(hp_mpi_frame *f, const void *sendbuf,
                              const MPI_Count sendcounts[], const MPI_Datatype sendtypes[],
                              const MPI_Count recvcounts[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm);
void hp_mpi_bytes_reduce_scatter(hp_mpi_frame *f, const void *sendbuf, const int recvcounts[],
                                 MPI_Datatype type, MPI_Comm comm);
void hp_mpi_bytes_reduce_scatter_c(hp_mpi_frame *f, const void *sendbuf,
                                   const MPI_Count recvcounts[], MPI_Datatype type,
                                   MPI_Comm comm);

/* Neighbourhood collectives (Cartesian, graph and distributed-graph topologies; slots of
 * a Cartesian topology whose neighbour is MPI_PROC_NULL move nothing). */
void hp_mpi_bytes_neighbor_allgather(hp_mpi_frame *f, int64_t sendcount,
                                     MPI_Datatype sendtype, int64_t recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_neighbor_alltoall(hp_mpi_frame *f, int64_t sendcount, MPI_Datatype sendtype,
                                    int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_neighbor_allgatherv(hp_mpi_frame *f, int64_t sendcount,
                                      MPI_Datatype sendtype, const int recvcounts[],
                                      MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_neighbor_allgatherv_c(hp_mpi_frame *f, int64_t sendcount,
                                        MPI_Datatype sendtype, const MPI_Count recvcounts[],
                                        MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_neighbor_alltoallv(hp_mpi_frame *f, const int sendcounts[],
                                     MPI_Datatype sendtype, const int recvcounts[],
                                     MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_neighbor_alltoallv_c(hp_mpi_frame *f, const MPI_Count sendcounts[],
                                       MPI_Datatype sendtype, const MPI_Count recvcounts[],
                                       MPI_Datatype recvtype, MPI_Comm comm);
void hp_mpi_bytes_neighbor_alltoallw(hp_mpi_frame *f, const int sendcounts[],
                                     const MPI_Datatype sendtypes[], const int recvcounts[],
                                     const MPI_Datatype recvtypes[], MPI_Comm comm);
void hp_mpi_bytes_neighbor_alltoallw_c(hp_mpi_frame *f, const MPI_Count sendcounts[],
                                       const MPI_Datatype sendtypes[],
                                       const MPI_Count recvcounts[],
                                       const MPI_Datatype recvtypes[], MPI_Comm comm);

#endif
