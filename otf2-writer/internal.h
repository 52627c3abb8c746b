/*
 * What the three parts of the OTF2 writer share (trace_archive.c: the archive, its
 * opening and closing; trace_events.c: the events of each location; trace_defs.c: the
 * global definitions): the writer's state and the error reporting that every OTF2 call
 * goes through. Not for callers outside otf2-writer/, which use trace_writer.h.
 */
#ifndef HP_OTF2_WRITER_INTERNAL_H
#define HP_OTF2_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "otf2-writer/trace_writer.h"
#include "util/compiler.h"

enum { OTF2_MESSAGE_SIZE = 512 };

struct hp_trace_writer {
    OTF2_Archive *archive;
    int rank;
    bool collective; /* the run is an MPI run (collectives were given) */
    bool collectives_set; /* the archive may be closed (see discard_writer) */
    char *anchor_path; /* "<dir>/traces.otf2", for messages */

    uint64_t *locations; /* locations written so far: their local definitions at close */
    size_t nlocations, locations_cap;

    const hp_trace_comm *comms; /* communicators the program created (rank 0) */
    uint32_t ncomms;

    const uint32_t *markers; /* marker regions of hybrid traces (hp_trace_marker_context) */
    unsigned nmarkers;

    bool adaptive;        /* HP_TRACE_ADAPTIVE: samples carry their number (attribute 0)
                             and name the generator of their location's halvings */
    unsigned halvings;    /* of the next location hp_trace_writer_location writes */
    OTF2_AttributeList *sample_attributes;

    bool clock_error_set;           /* write ClockOffset definitions (MPI runs) */
    uint64_t clock_time[2];         /* global times of the two offset measurements */
    double clock_error[2];          /* and the uncertainty of the mapping then, ns */

    uint64_t clamped;              /* timestamps raised to keep a location monotonic */
    uint64_t first_time, last_time; /* range of the timestamps written by this process */

    OTF2_ErrorCallback previous_error_callback;
    OTF2_ErrorCode otf2_code;             /* first error OTF2 reported, 0 if none */
    char otf2_message[OTF2_MESSAGE_SIZE]; /* its message, one line */
};

/* The interrupt generator of every thread's sampling timer (put_sampling); in adaptive
 * mode generator k is the timer after k halvings, and attribute 0 the sample's number. */
enum { SAMPLING_INTERRUPT_GENERATOR = 0, SAMPLE_NUMBER_ATTRIBUTE = 0 };

/* The first error wins: a failing collective close still runs its later steps (every
 * process has to take part) but keeps the message of the step that failed first. */
HP_PRINTF(3, 4) void hp__otf2_error(char *err, size_t errlen, const char *fmt, ...);

/* Empties err for a new call's message. */
void hp__otf2_clear(char *err, size_t errlen);

/* 0 when rc is success and OTF2 reported no error so far, else -1 with a message:
 * "<anchor>: <what> failed: <description> (<name>): <OTF2's first message>". */
int hp__otf2_check(hp_trace_writer *w, OTF2_ErrorCode rc, const char *what, char *err,
                   size_t errlen);

#endif
