/*
 * hpmeasure's plug-in API: your own code around selected MPI calls.
 *
 * A plug-in is a shared object named in HP_PLUGINS (comma-separated paths). It defines
 * one symbol, HP_PLUGIN_SYMBOL, a const hp_plugin whose first member is the API version
 * it was built for. hpmeasure loads the plug-ins of a measured MPI program right after
 * MPI_Init, calls init() once per process, and from then on calls begin() and end()
 * around every measured MPI call of a function that init() selected; the other functions
 * pay one byte load per call. finalize() runs at the start of MPI_Finalize. A plug-in
 * that cannot be loaded, lacks the symbol, was built for another API version or whose
 * init() fails is reported by its path and left out; the program runs on.
 *
 * Invariants and contracts:
 * - begin() and end() run on the thread that makes the MPI call, possibly on several
 *   threads at once (MPI_THREAD_MULTIPLE): guard shared state yourself. They run inside
 *   the measured MPI region, so their time counts to the call in the profile.
 * - MPI calls made by a plug-in are neither measured nor passed to plug-ins.
 * - Only calls hpmeasure measures reach plug-ins: MPI functions in HP_MPI_ENABLE_GROUPS
 *   and not in HP_MPI_EXCLUDE, made outside other MPI calls, after MPI_Init.
 * - The pointers in hp_plugin_call are valid during the callback only.
 * - Plug-ins are not loaded into set-user-ID or set-group-ID programs.
 * This header needs no mpi.h: communicators are given as Fortran handles
 * (convert with MPI_Comm_f2c).
 */
#ifndef HP_PLUGIN_H
#define HP_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Changes whenever hp_plugin, hp_plugin_host or hp_plugin_call change. */
#define HP_PLUGIN_API_VERSION 1

/* The name of the symbol every plug-in defines. */
#define HP_PLUGIN_SYMBOL "hp_plugin_entry"

/* One MPI call, as begin() and end() see it. Fields marked "end" are -1 (or 0 for byte
 * counts and end_ns) in begin(), and -1 in end() when the call has no such thing. */
typedef struct hp_plugin_call {
    unsigned function;       /* the function's number in this hpmeasure (see select()) */
    const char *name;        /* "MPI_Send" */
    int rank;                /* in MPI_COMM_WORLD */
    int thread;              /* hpmeasure's thread number in the process, 0 = master */
    uint64_t begin_ns;       /* CLOCK_MONOTONIC at the call's begin, in ns */
    uint64_t end_ns;         /* end: CLOCK_MONOTONIC at its end */
    int comm;                /* end: communicator (Fortran handle), -1 = none known */
    int comm_size;           /* end: its size */
    int peer;                /* end: destination or source rank in comm (p2p) or root */
    int tag;                 /* end: tag of a point-to-point call */
    uint64_t bytes_sent;     /* end: as in the profile (doc/mpi-bytes.md) */
    uint64_t bytes_received; /* end */
} hp_plugin_call;

/* What init() gets from hpmeasure. */
typedef struct hp_plugin_host {
    int api_version; /* HP_PLUGIN_API_VERSION of this hpmeasure */
    int rank;        /* in MPI_COMM_WORLD */
    int size;        /* of MPI_COMM_WORLD */
    /* Selects the MPI function `name` ("MPI_Send") for begin()/end(), or every function
     * with "all". Returns 0, or -1 when hpmeasure wraps no such function. */
    int (*select)(const char *name);
} hp_plugin_host;

typedef struct hp_plugin {
    int api_version;  /* HP_PLUGIN_API_VERSION: set it, hpmeasure checks it first */
    const char *name; /* for messages */
    /* Called once, after MPI_Init; selects functions. Returns 0, or non-zero to be left
     * out (say why on stderr). May be NULL (nothing selected then). */
    int (*init)(const hp_plugin_host *host);
    void (*begin)(const hp_plugin_call *call); /* may be NULL */
    void (*end)(const hp_plugin_call *call);   /* may be NULL */
    void (*finalize)(void);                    /* at MPI_Finalize; may be NULL */
} hp_plugin;

/* Defines the plug-in's entry: HP_PLUGIN_DEFINE(name, init, begin, end, finalize). */
#if defined(__GNUC__)
#define HP_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define HP_PLUGIN_EXPORT
#endif
#define HP_PLUGIN_DEFINE(name, init, begin, end, finalize)                               \
    HP_PLUGIN_EXPORT extern const hp_plugin hp_plugin_entry;                             \
    const hp_plugin hp_plugin_entry = { HP_PLUGIN_API_VERSION, (name), (init), (begin),  \
                                        (end), (finalize) }

#ifdef __cplusplus
}
#endif

#endif
