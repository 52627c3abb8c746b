/*
 * The transport of a run without MPI: one rank, so the tree never sends or receives,
 * and the trace is written by the serial trace path.
 */
#include "transport.h"

#include <stddef.h>

#include "trace_output.h"

/* Never called: with one rank the tree has no rounds. */
static void send_nothing(const hp_transport *t, const char *data, uint64_t length, int peer)
{
    (void)t, (void)data, (void)length, (void)peer;
}

static char *receive_nothing(const hp_transport *t, int peer, uint64_t *length)
{
    (void)t, (void)peer;
    *length = 0;
    return NULL;
}

static void write_serial_trace(const hp_transport *t, const char *directory,
                               const hp_profile *merged)
{
    (void)t;
    if (directory[0] != '\0' && merged != NULL)
        hp_trace_output_serial(directory, merged);
}

static const hp_transport serial = { 0, 1, send_nothing, receive_nothing,
                                     write_serial_trace, NULL };

const hp_transport *hp_transport_serial(void)
{
    return &serial;
}
