/*
 * The floor of a measured MPI call for bench/run-mpi-wrapper-bench.sh: a PMPI tool whose
 * MPI_Comm_rank reads the timestamp before and after PMPI_Comm_rank, as any measuring
 * wrapper must, and does nothing else (the difference goes to a sum, so that neither read
 * can be dropped). Linked after the sources of mpi-rank.c like any PMPI tool; the loop's
 * time over plain is what the two reads alone cost there. On x86 the read is `rdtsc`,
 * hpmeasure's timer; elsewhere CLOCK_MONOTONIC.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <time.h>

static uint64_t ticks_in_calls;

static inline uint64_t now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    uint64_t start = now();
    int ret = PMPI_Comm_rank(comm, rank);
    ticks_in_calls += now() - start;
    return ret;
}

uint64_t mpi_floor_ticks(void)
{
    return ticks_in_calls;
}
