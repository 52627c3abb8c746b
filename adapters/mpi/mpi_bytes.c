/*
 * Message byte accounting (see mpi_bytes.h and doc/mpi-bytes.md).
 *
 * N = communicator size, or the remote group's size for inter-communicators. Only
 * significant arguments are read (a non-root rank's receive type may be garbage), and
 * MPI_Type_size is called only for a non-zero count, so that no helper can raise an MPI
 * error of its own. The v/w helpers exist once, reading counts through an accessor that
 * knows whether the array holds int or MPI_Count.
 */
#include <string.h>

#include "mpi_bytes.h"

/* ---- small tools ------------------------------------------------------------------- */

static uint64_t tsize(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return 0;
#if MPI_VERSION >= 4
    MPI_Count s = 0;
    if (PMPI_Type_size_c(t, &s) != MPI_SUCCESS || s < 0)
        return 0;
#else
    MPI_Count s = 0;
    if (PMPI_Type_size_x(t, &s) != MPI_SUCCESS || s < 0)
        return 0;
#endif
    return (uint64_t)s;
}

static uint64_t nbytes(int64_t count, MPI_Datatype t)
{
    return count > 0 ? (uint64_t)count * tsize(t) : 0;
}

static int is_inter(MPI_Comm c)
{
    int flag = 0;
    PMPI_Comm_test_inter(c, &flag);
    return flag;
}

static int comm_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

static int remote_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_remote_size(c, &n);
    return n;
}

static int comm_rank(MPI_Comm c)
{
    int r = 0;
    PMPI_Comm_rank(c, &r);
    return r;
}

/* N of MPI-BYTES.md: local size, or remote size for an inter-communicator. */
static int peers(MPI_Comm c, int *inter)
{
    *inter = is_inter(c);
    return *inter ? remote_size(c) : comm_size(c);
}

/* Element i of a count array of int (large = 0) or MPI_Count (large = 1). */
static inline int64_t cnt(const void *a, int large, int i)
{
    return large ? (int64_t)((const MPI_Count *)a)[i] : (int64_t)((const int *)a)[i];
}

static uint64_t sum_counts(const void *a, int large, int n, MPI_Datatype t)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += cnt(a, large, i) > 0 ? cnt(a, large, i) : 0;
    return nbytes(total, t);
}

static void add(hp_mpi_frame *f, uint64_t sent, uint64_t received)
{
    f->bytes_sent += sent;
    f->bytes_received += received;
}

/* ---- point to point ---------------------------------------------------------------- */

void hp_mpi_bytes_send(hp_mpi_frame *f, int64_t count, MPI_Datatype type, int dest,
                       MPI_Comm comm)
{
    (void)comm;
    if (dest == MPI_PROC_NULL)
        return;
    f->bytes_sent += nbytes(count, type);
    f->messages_sent++;
}

void hp_mpi_bytes_recv(hp_mpi_frame *f, const MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE || status == MPI_STATUSES_IGNORE ||
        status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    if (cancelled)
        return;
#if MPI_VERSION >= 4
    MPI_Count n = 0;
    PMPI_Get_count_c(status, MPI_BYTE, &n);
#else
    MPI_Count n = 0;
    PMPI_Get_elements_x(status, MPI_BYTE, &n);
#endif
    if (n == MPI_UNDEFINED || n < 0)
        n = 0;
    f->bytes_received += (uint64_t)n;
    f->messages_received++;
}

/* ---- rooted collectives ------------------------------------------------------------ */

/* All-to-one (Gather, Reduce): the root receives N blocks (N-1 in place) and sends its
 * own block to itself (nothing in place); the others send one block. Inter-communicator:
 * MPI_ROOT receives N remote blocks, the rest of its group (MPI_PROC_NULL) nothing; the
 * remote group sends one block each. */
static void all_to_one(hp_mpi_frame *f, int inplace, int64_t sendcount, MPI_Datatype sendtype,
                       int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (!is_inter(comm)) {
        if (comm_rank(comm) == root) {
            uint64_t block = nbytes(recvcount, recvtype);
            int n = comm_size(comm);
            if (inplace)
                add(f, 0, (uint64_t)(n - 1) * block);
            else
                add(f, block, (uint64_t)n * block);
        } else {
            add(f, nbytes(sendcount, sendtype), 0);
        }
    } else if (root == MPI_ROOT) {
        add(f, 0, (uint64_t)remote_size(comm) * nbytes(recvcount, recvtype));
    } else if (root != MPI_PROC_NULL) {
        add(f, nbytes(sendcount, sendtype), 0);
    }
}

/* One-to-all (Bcast, Scatter): all_to_one with the directions exchanged. */
static void one_to_all(hp_mpi_frame *f, int inplace, int64_t sendcount, MPI_Datatype sendtype,
                       int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    hp_mpi_frame t;
    memset(&t, 0, sizeof t);
    all_to_one(&t, inplace, recvcount, recvtype, sendcount, sendtype, root, comm);
    add(f, t.bytes_received, t.bytes_sent);
}

void hp_mpi_bytes_bcast(hp_mpi_frame *f, int64_t count, MPI_Datatype type, int root,
                        MPI_Comm comm)
{
    one_to_all(f, 0, count, type, count, type, root, comm);
}

void hp_mpi_bytes_reduce(hp_mpi_frame *f, const void *sendbuf, int64_t count,
                         MPI_Datatype type, int root, MPI_Comm comm)
{
    all_to_one(f, sendbuf == MPI_IN_PLACE, count, type, count, type, root, comm);
}

void hp_mpi_bytes_gather(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                         MPI_Datatype sendtype, int64_t recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm)
{
    all_to_one(f, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, root,
               comm);
}

void hp_mpi_bytes_scatter(hp_mpi_frame *f, int64_t sendcount, MPI_Datatype sendtype,
                          const void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                          int root, MPI_Comm comm)
{
    one_to_all(f, recvbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, root,
               comm);
}

/* Gatherv: the root receives sum(recvcounts) (without its own block in place) and sends
 * recvcounts[root] to itself; the others send sendcount. */
static void gatherv(hp_mpi_frame *f, int inplace, int64_t sendcount, MPI_Datatype sendtype,
                    const void *recvcounts, int large, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, int swap)
{
    uint64_t s = 0, r = 0;
    if (!is_inter(comm)) {
        int me = comm_rank(comm);
        if (me == root) {
            r = sum_counts(recvcounts, large, comm_size(comm), recvtype);
            uint64_t own = nbytes(cnt(recvcounts, large, me), recvtype);
            if (inplace)
                r -= own;
            else
                s = own;
        } else {
            s = nbytes(sendcount, sendtype);
        }
    } else if (root == MPI_ROOT) {
        r = sum_counts(recvcounts, large, remote_size(comm), recvtype);
    } else if (root != MPI_PROC_NULL) {
        s = nbytes(sendcount, sendtype);
    }
    if (swap)
        add(f, r, s);
    else
        add(f, s, r);
}

void hp_mpi_bytes_gatherv(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                          MPI_Datatype sendtype, const int recvcounts[], MPI_Datatype recvtype,
                          int root, MPI_Comm comm)
{
    gatherv(f, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, 0, recvtype, root,
            comm, 0);
}

void hp_mpi_bytes_gatherv_c(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                            MPI_Datatype sendtype, const MPI_Count recvcounts[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    gatherv(f, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, 1, recvtype, root,
            comm, 0);
}

void hp_mpi_bytes_scatterv(hp_mpi_frame *f, const int sendcounts[], MPI_Datatype sendtype,
                           const void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                           int root, MPI_Comm comm)
{
    gatherv(f, recvbuf == MPI_IN_PLACE, recvcount, recvtype, sendcounts, 0, sendtype, root,
            comm, 1);
}

void hp_mpi_bytes_scatterv_c(hp_mpi_frame *f, const MPI_Count sendcounts[],
                             MPI_Datatype sendtype, const void *recvbuf, int64_t recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    gatherv(f, recvbuf == MPI_IN_PLACE, recvcount, recvtype, sendcounts, 1, sendtype, root,
            comm, 1);
}

/* ---- all-to-all patterns ----------------------------------------------------------- */

void hp_mpi_bytes_allreduce(hp_mpi_frame *f, const void *sendbuf, int64_t count,
                            MPI_Datatype type, MPI_Comm comm)
{
    int inter, n = peers(comm, &inter);
    uint64_t b = (uint64_t)(n - (!inter && sendbuf == MPI_IN_PLACE)) * nbytes(count, type);
    add(f, b, b);
}

void hp_mpi_bytes_allgather(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                            MPI_Datatype sendtype, int64_t recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    int inter, n = peers(comm, &inter);
    if (!inter && sendbuf == MPI_IN_PLACE) {
        uint64_t b = (uint64_t)(n - 1) * nbytes(recvcount, recvtype);
        add(f, b, b);
    } else {
        add(f, (uint64_t)n * nbytes(sendcount, sendtype),
            (uint64_t)n * nbytes(recvcount, recvtype));
    }
}

void hp_mpi_bytes_alltoall(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                           MPI_Datatype sendtype, int64_t recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    int inter, n = peers(comm, &inter);
    if (!inter) {
        /* MPI-BYTES.md: N·recvcount·sz(recv) both ways (N-1 in place). */
        uint64_t b = (uint64_t)(n - (sendbuf == MPI_IN_PLACE)) * nbytes(recvcount, recvtype);
        add(f, b, b);
    } else {
        add(f, (uint64_t)n * nbytes(sendcount, sendtype),
            (uint64_t)n * nbytes(recvcount, recvtype));
    }
}

static void allgatherv(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                       MPI_Datatype sendtype, const void *recvcounts, int large,
                       MPI_Datatype recvtype, MPI_Comm comm)
{
    int inter, n = peers(comm, &inter);
    uint64_t r = sum_counts(recvcounts, large, n, recvtype);
    if (!inter && sendbuf == MPI_IN_PLACE) {
        uint64_t own = nbytes(cnt(recvcounts, large, comm_rank(comm)), recvtype);
        add(f, (uint64_t)(n - 1) * own, r - own);
    } else {
        add(f, (uint64_t)n * nbytes(sendcount, sendtype), r);
    }
}

void hp_mpi_bytes_allgatherv(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                             MPI_Datatype sendtype, const int recvcounts[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    allgatherv(f, sendbuf, sendcount, sendtype, recvcounts, 0, recvtype, comm);
}

void hp_mpi_bytes_allgatherv_c(hp_mpi_frame *f, const void *sendbuf, int64_t sendcount,
                               MPI_Datatype sendtype, const MPI_Count recvcounts[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    allgatherv(f, sendbuf, sendcount, sendtype, recvcounts, 1, recvtype, comm);
}

/* Alltoallv/w: sum of the counts moved; in place, both directions are the receive counts
 * without this rank's own block. types == NULL: one type for all blocks. */
static void alltoallvw(hp_mpi_frame *f, const void *sendbuf, const void *sendcounts,
                       MPI_Datatype sendtype, const MPI_Datatype *sendtypes,
                       const void *recvcounts, MPI_Datatype recvtype,
                       const MPI_Datatype *recvtypes, int large, MPI_Comm comm)
{
    int inter, n = peers(comm, &inter);
    int inplace = !inter && sendbuf == MPI_IN_PLACE;
    int me = inplace ? comm_rank(comm) : -1;
    uint64_t s = 0, r = 0;
    for (int i = 0; i < n; i++) {
        uint64_t rb = nbytes(cnt(recvcounts, large, i), recvtypes ? recvtypes[i] : recvtype);
        if (inplace) {
            if (i != me) {
                s += rb;
                r += rb;
            }
        } else {
            r += rb;
            s += nbytes(cnt(sendcounts, large, i), sendtypes ? sendtypes[i] : sendtype);
        }
    }
    add(f, s, r);
}

void hp_mpi_bytes_alltoallv(hp_mpi_frame *f, const void *sendbuf, const int sendcounts[],
                            MPI_Datatype sendtype, const int recvcounts[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    alltoallvw(f, sendbuf, sendcounts, sendtype, NULL, recvcounts, recvtype, NULL, 0, comm);
}

void hp_mpi_bytes_alltoallv_c(hp_mpi_frame *f, const void *sendbuf,
                              const MPI_Count sendcounts[], MPI_Datatype sendtype,
                              const MPI_Count recvcounts[], MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    alltoallvw(f, sendbuf, sendcounts, sendtype, NULL, recvcounts, recvtype, NULL, 1, comm);
}

void hp_mpi_bytes_alltoallw(hp_mpi_frame *f, const void *sendbuf, const int sendcounts[],
                            const MPI_Datatype sendtypes[], const int recvcounts[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    alltoallvw(f, sendbuf, sendcounts, MPI_DATATYPE_NULL, sendtypes, recvcounts,
               MPI_DATATYPE_NULL, recvtypes, 0, comm);
}

void hp_mpi_bytes_alltoallw_c(hp_mpi_frame *f, const void *sendbuf,
                              const MPI_Count sendcounts[], const MPI_Datatype sendtypes[],
                              const MPI_Count recvcounts[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm)
{
    alltoallvw(f, sendbuf, sendcounts, MPI_DATATYPE_NULL, sendtypes, recvcounts,
               MPI_DATATYPE_NULL, recvtypes, 1, comm);
}

/* Reduce_scatter: each rank sends its whole vector (sum of recvcounts; without its own
 * block in place) and receives its block from N ranks (N-1 in place). */
static void reduce_scatter(hp_mpi_frame *f, const void *sendbuf, const void *recvcounts,
                           int large, MPI_Datatype type, MPI_Comm comm)
{
    int inter, n = peers(comm, &inter);
    int local = inter ? comm_size(comm) : n;
    int me = comm_rank(comm);
    uint64_t total = sum_counts(recvcounts, large, local, type);
    uint64_t own = nbytes(cnt(recvcounts, large, me), type);
    if (!inter && sendbuf == MPI_IN_PLACE)
        add(f, total - own, (uint64_t)(n - 1) * own);
    else
        add(f, total, (uint64_t)n * own);
}

void hp_mpi_bytes_reduce_scatter(hp_mpi_frame *f, const void *sendbuf, const int recvcounts[],
                                 MPI_Datatype type, MPI_Comm comm)
{
    reduce_scatter(f, sendbuf, recvcounts, 0, type, comm);
}

void hp_mpi_bytes_reduce_scatter_c(hp_mpi_frame *f, const void *sendbuf,
                                   const MPI_Count recvcounts[], MPI_Datatype type,
                                   MPI_Comm comm)
{
    reduce_scatter(f, sendbuf, recvcounts, 1, type, comm);
}

void hp_mpi_bytes_reduce_scatter_block(hp_mpi_frame *f, const void *sendbuf,
                                       int64_t recvcount, MPI_Datatype type, MPI_Comm comm)
{
    int inter, n = peers(comm, &inter);
    uint64_t b = (uint64_t)(n - (!inter && sendbuf == MPI_IN_PLACE)) * nbytes(recvcount, type);
    add(f, b, b);
}

/* Scan: rank r's data goes to ranks r..N-1, rank r receives from 0..r (self excluded in
 * place). Exscan: to r+1..N-1, from 0..r-1. Intra-communicators only (MPI). */
void hp_mpi_bytes_scan(hp_mpi_frame *f, const void *sendbuf, int64_t count, MPI_Datatype type,
                       MPI_Comm comm)
{
    int n = comm_size(comm), me = comm_rank(comm), self = sendbuf != MPI_IN_PLACE;
    uint64_t b = nbytes(count, type);
    add(f, (uint64_t)(n - me - 1 + self) * b, (uint64_t)(me + self) * b);
}

void hp_mpi_bytes_exscan(hp_mpi_frame *f, const void *sendbuf, int64_t count,
                         MPI_Datatype type, MPI_Comm comm)
{
    (void)sendbuf;
    int n = comm_size(comm), me = comm_rank(comm);
    uint64_t b = nbytes(count, type);
    add(f, (uint64_t)(n - me - 1) * b, (uint64_t)me * b);
}

/* ---- neighbourhood collectives ----------------------------------------------------- */

enum { MAX_CART_SLOTS = 64 };

/* In- and out-degree of the topology; for a Cartesian topology also which of the 2*ndims
 * slots (order: dim 0 -, dim 0 +, dim 1 -, ...) have a real neighbour. */
typedef struct nbrs {
    int indeg, outdeg, cart;
    unsigned char real[MAX_CART_SLOTS];
} nbrs;

static void neighbours(MPI_Comm comm, nbrs *nb)
{
    int topo = MPI_UNDEFINED;
    nb->indeg = nb->outdeg = nb->cart = 0;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        if (nd > MAX_CART_SLOTS / 2)
            nd = MAX_CART_SLOTS / 2;
        nb->cart = 1;
        nb->indeg = nb->outdeg = 2 * nd;
        for (int d = 0; d < nd; d++) {
            int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
            PMPI_Cart_shift(comm, d, 1, &lo, &hi);
            nb->real[2 * d] = lo != MPI_PROC_NULL;
            nb->real[2 * d + 1] = hi != MPI_PROC_NULL;
        }
    } else if (topo == MPI_GRAPH) {
        int n = 0;
        PMPI_Graph_neighbors_count(comm, comm_rank(comm), &n);
        nb->indeg = nb->outdeg = n;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &nb->indeg, &nb->outdeg, &weighted);
    }
}

static inline int slot_real(const nbrs *nb, int i)
{
    return !nb->cart || nb->real[i];
}

static uint64_t nbr_sum(const nbrs *nb, int deg, const void *counts, int large,
                        int64_t count, MPI_Datatype type, const MPI_Datatype *types)
{
    uint64_t b = 0;
    for (int i = 0; i < deg; i++)
        if (slot_real(nb, i))
            b += nbytes(counts ? cnt(counts, large, i) : count, types ? types[i] : type);
    return b;
}

void hp_mpi_bytes_neighbor_allgather(hp_mpi_frame *f, int64_t sendcount,
                                     MPI_Datatype sendtype, int64_t recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm)
{
    nbrs nb;
    neighbours(comm, &nb);
    add(f, nbr_sum(&nb, nb.outdeg, NULL, 0, sendcount, sendtype, NULL),
        nbr_sum(&nb, nb.indeg, NULL, 0, recvcount, recvtype, NULL));
}

void hp_mpi_bytes_neighbor_alltoall(hp_mpi_frame *f, int64_t sendcount, MPI_Datatype sendtype,
                                    int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    hp_mpi_bytes_neighbor_allgather(f, sendcount, sendtype, recvcount, recvtype, comm);
}

static void nbr_v(hp_mpi_frame *f, const void *sendcounts, int64_t sendcount,
                  MPI_Datatype sendtype, const MPI_Datatype *sendtypes, const void *recvcounts,
                  MPI_Datatype recvtype, const MPI_Datatype *recvtypes, int large,
                  MPI_Comm comm)
{
    nbrs nb;
    neighbours(comm, &nb);
    add(f, nbr_sum(&nb, nb.outdeg, sendcounts, large, sendcount, sendtype, sendtypes),
        nbr_sum(&nb, nb.indeg, recvcounts, large, 0, recvtype, recvtypes));
}

void hp_mpi_bytes_neighbor_allgatherv(hp_mpi_frame *f, int64_t sendcount,
                                      MPI_Datatype sendtype, const int recvcounts[],
                                      MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_v(f, NULL, sendcount, sendtype, NULL, recvcounts, recvtype, NULL, 0, comm);
}

void hp_mpi_bytes_neighbor_allgatherv_c(hp_mpi_frame *f, int64_t sendcount,
                                        MPI_Datatype sendtype, const MPI_Count recvcounts[],
                                        MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_v(f, NULL, sendcount, sendtype, NULL, recvcounts, recvtype, NULL, 1, comm);
}

void hp_mpi_bytes_neighbor_alltoallv(hp_mpi_frame *f, const int sendcounts[],
                                     MPI_Datatype sendtype, const int recvcounts[],
                                     MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_v(f, sendcounts, 0, sendtype, NULL, recvcounts, recvtype, NULL, 0, comm);
}

void hp_mpi_bytes_neighbor_alltoallv_c(hp_mpi_frame *f, const MPI_Count sendcounts[],
                                       MPI_Datatype sendtype, const MPI_Count recvcounts[],
                                       MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_v(f, sendcounts, 0, sendtype, NULL, recvcounts, recvtype, NULL, 1, comm);
}

void hp_mpi_bytes_neighbor_alltoallw(hp_mpi_frame *f, const int sendcounts[],
                                     const MPI_Datatype sendtypes[], const int recvcounts[],
                                     const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nbr_v(f, sendcounts, 0, MPI_DATATYPE_NULL, sendtypes, recvcounts, MPI_DATATYPE_NULL,
          recvtypes, 0, comm);
}

void hp_mpi_bytes_neighbor_alltoallw_c(hp_mpi_frame *f, const MPI_Count sendcounts[],
                                       const MPI_Datatype sendtypes[],
                                       const MPI_Count recvcounts[],
                                       const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nbr_v(f, sendcounts, 0, MPI_DATATYPE_NULL, sendtypes, recvcounts, MPI_DATATYPE_NULL,
          recvtypes, 1, comm);
}
