/*
 * How the ranks of a job talk to each other at the end of a run: the small interface
 * the finalize driver (finalize.c) and the binomial tree (tree.c) work on. The core
 * provides a serial stub (one rank, transport_serial.c); the MPI adapter provides the
 * real one over a private duplicate of MPI_COMM_WORLD (adapters/mpi/mpi_transport.c),
 * so the core never calls MPI and the adapter never drives the end of a run.
 *
 * Every operation is collective in the MPI sense only where its comment says so; a
 * rank that has nothing to give still takes part (sends length 0), so that no rank can
 * wait for another. None of them is async-signal-safe.
 */
#ifndef HP_MEASUREMENT_FINALIZE_TRANSPORT_H
#define HP_MEASUREMENT_FINALIZE_TRANSPORT_H

#include <stdint.h>

#include "profile/profile.h"

typedef struct hp_transport hp_transport;

struct hp_transport {
    int rank; /* 0 .. size-1; rank 0 ends with the job's data and writes it */
    int size;
    /* Sends length bytes (any size; 0 = nothing) to peer, which must receive them. */
    void (*send)(const hp_transport *t, const char *data, uint64_t length, int peer);
    /* Receives what peer sent: a malloc'd buffer, or NULL when the peer sent nothing or
     * memory ran out (the bytes are received and dropped then, so both sides stay in
     * step; *length tells the two apart). */
    char *(*receive)(const hp_transport *t, int peer, uint64_t *length);
    /* Collective: writes the job's OTF2 trace into directory; merged is the unified
     * profile on rank 0 (NULL elsewhere, or when no profile could be made). The trace's
     * own collectives (OTF2 opens and closes the archive collectively) belong to the
     * transport, which is why this is here and not in the driver: the transport unifies
     * the trace's definitions and hands its collectives to the trace output
     * (hp_trace_output_write, trace_output.h), which opens, writes and closes the
     * archive. */
    void (*write_trace)(const hp_transport *t, const char *directory,
                        const hp_profile *merged);
    /* Collective, before the profiles are built: computes the wait states of the job
     * (measurement/waitstates/); NULL when the transport has none (one process). */
    void (*wait_states)(const hp_transport *t);
};

/* The transport of a process that is the whole job: rank 0 of 1; nothing is ever sent;
 * the trace is the serial one (trace_output.c). */
const hp_transport *hp_transport_serial(void);

#endif
