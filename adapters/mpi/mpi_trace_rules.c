/*
 * The trace rules of mpi-semantics.txt (tsend, trecv, tcoll, tcollr): after a blocking
 * point-to-point call or collective returned, they note in the frame what its trace
 * events need (communicator, peer rank in it, tag, root); hp_mpi_exit writes the events
 * when the location records a trace. Peers are ranks in the call's communicator, as OTF2
 * wants. MPI_PROC_NULL peers move nothing and get no event.
 */
#include "adapters/mpi/mpi_adapter.h"

void hp_mpi_bytes_tsend(hp_mpi_frame *f, int dest, int tag, MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL)
        return;
    f->trace |= HP_MPI_TRACE_SEND;
    f->comm = comm;
    f->send_peer = dest;
    f->send_tag = tag;
}

void hp_mpi_bytes_trecv(hp_mpi_frame *f, const MPI_Status *status, MPI_Comm comm)
{
    if (status == MPI_STATUS_IGNORE || status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    f->trace |= HP_MPI_TRACE_RECV;
    f->comm = comm;
    f->recv_peer = status->MPI_SOURCE;
    f->recv_tag = status->MPI_TAG;
}

void hp_mpi_bytes_tcoll(hp_mpi_frame *f, MPI_Comm comm)
{
    f->trace |= HP_MPI_TRACE_COLL;
    f->comm = comm;
    f->root = -1;
}

void hp_mpi_bytes_tcollr(hp_mpi_frame *f, int root, MPI_Comm comm)
{
    f->trace |= HP_MPI_TRACE_COLL;
    f->comm = comm;
    f->root = root;
}
