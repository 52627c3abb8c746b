/*
 * Off-CPU waiting for the end of a run (mpi_offcpu.h): each operation is its
 * nonblocking form plus hp__mpi_offcpu_wait.
 */
#include "mpi_offcpu.h"

#include <stdint.h>
#include <time.h>

#include "measurement/finalize/finalize_timing.h"
#include "util/nap.h"

enum { SPIN_NS = 50000, FIRST_NAP_NS = 10000, LONGEST_NAP_NS = 1000000 };

static uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int hp__mpi_offcpu_wait(MPI_Request *r, MPI_Status *status)
{
    hp_finalize_phase previous = hp_finalize_phase_enter(HP_PHASE_WAIT);
    int done = 0, rc;
    long nap = FIRST_NAP_NS;
    uint64_t spin_until = monotonic_ns() + SPIN_NS;
    /* An operation that is over soon (a small send, a late receiver, the next piece of
     * a large transfer, whose progress needs tests) never naps: napping at once made
     * large finalize transfers 3x slower; a long wait backs off so that many waiting
     * ranks leave the CPU to the others. */
    while ((rc = PMPI_Test(r, &done, status)) == MPI_SUCCESS && !done) {
        if (monotonic_ns() < spin_until)
            continue;
        hp_nap(nap);
        nap = nap < LONGEST_NAP_NS / 2 ? 2 * nap : LONGEST_NAP_NS;
    }
    hp_finalize_phase_leave(previous);
    return rc;
}

/* rc of starting the operation, then of waiting for it. */
static int finish(int rc, MPI_Request *r)
{
    return rc == MPI_SUCCESS ? hp__mpi_offcpu_wait(r, MPI_STATUS_IGNORE) : rc;
}

int hp__mpi_offcpu_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                        MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Isend(buf, count, type, dest, tag, comm, &r), &r);
}

int hp__mpi_offcpu_recv(void *buf, int count, MPI_Datatype type, int source, int tag,
                        MPI_Comm comm, MPI_Status *status)
{
    MPI_Request r;
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &r);
    return rc == MPI_SUCCESS ? hp__mpi_offcpu_wait(&r, status) : rc;
}

int hp__mpi_offcpu_barrier(MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Ibarrier(comm, &r), &r);
}

int hp__mpi_offcpu_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Ibcast(buf, count, type, root, comm, &r), &r);
}

int hp__mpi_offcpu_allreduce(const void *in, void *out, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Iallreduce(in, out, count, type, op, comm, &r), &r);
}

int hp__mpi_offcpu_reduce(const void *in, void *out, int count, MPI_Datatype type,
                          MPI_Op op, int root, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Ireduce(in, out, count, type, op, root, comm, &r), &r);
}

int hp__mpi_offcpu_gather(const void *in, int incount, MPI_Datatype intype, void *out,
                          int outcount, MPI_Datatype outtype, int root, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Igather(in, incount, intype, out, outcount, outtype, root, comm, &r),
                  &r);
}

int hp__mpi_offcpu_gatherv(const void *in, int incount, MPI_Datatype intype, void *out,
                           const int outcounts[], const int displs[], MPI_Datatype outtype,
                           int root, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Igatherv(in, incount, intype, out, outcounts, displs, outtype, root,
                                comm, &r),
                  &r);
}

int hp__mpi_offcpu_scatter(const void *in, int incount, MPI_Datatype intype, void *out,
                           int outcount, MPI_Datatype outtype, int root, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Iscatter(in, incount, intype, out, outcount, outtype, root, comm, &r),
                  &r);
}

int hp__mpi_offcpu_scatterv(const void *in, const int incounts[], const int displs[],
                            MPI_Datatype intype, void *out, int outcount,
                            MPI_Datatype outtype, int root, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Iscatterv(in, incounts, displs, intype, out, outcount, outtype, root,
                                 comm, &r),
                  &r);
}

int hp__mpi_offcpu_alltoall(const void *in, int incount, MPI_Datatype intype, void *out,
                            int outcount, MPI_Datatype outtype, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Ialltoall(in, incount, intype, out, outcount, outtype, comm, &r), &r);
}

int hp__mpi_offcpu_alltoallv(const void *in, const int incounts[], const int indispls[],
                             MPI_Datatype intype, void *out, const int outcounts[],
                             const int outdispls[], MPI_Datatype outtype, MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Ialltoallv(in, incounts, indispls, intype, out, outcounts, outdispls,
                                  outtype, comm, &r),
                  &r);
}

int hp__mpi_offcpu_scan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm)
{
    MPI_Request r;
    return finish(PMPI_Iscan(in, out, count, type, op, comm, &r), &r);
}

int hp__mpi_offcpu_comm_dup(MPI_Comm comm, MPI_Comm *dup)
{
    MPI_Request r;
    return finish(PMPI_Comm_idup(comm, dup, &r), &r);
}
