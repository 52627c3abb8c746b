/*
 * Entering and leaving a measured MPI call (mpi_event.c): what every generated wrapper
 * calls around the real call (doc/mpi-wrappers.md), and the Fortran 2008 ones
 * (mpi_f08.c).
 */
#ifndef HP_ADAPTERS_MPI_MPI_EVENT_H
#define HP_ADAPTERS_MPI_MPI_EVENT_H

#include "adapters/mpi/mpi_adapter.h"

/* Returns 1 when the call is measured: its region was entered and the wrapper must call
 * hp_mpi_exit after the real call. Returns 0 when the function is not selected (the call
 * is counted), when the call is nested inside another MPI call (not counted), or when
 * measurement is not running. */
int hp_mpi_enter(hp_mpi_frame *f, unsigned fn);
void hp_mpi_exit(hp_mpi_frame *f);
/* hp_mpi_exit for the wrappers of functions without byte, request or trace helpers
 * (MPI_Comm_rank): their frames never count messages, so none are added to the node. */
void hp_mpi_exit_no_bytes(hp_mpi_frame *f);
/* Recomputes how each function's calls enter after hp_mpi_measured, hp_mpi_unwind
 * (mpi_selection.h) or hp__mpi_plugin_selected changed. */
void hp__mpi_modes_update(void);

/* OTF2's collective operation of function fn plus one (0 = not a collective we trace;
 * non-blocking variants map to the operation of the blocking one). */
unsigned hp_mpi_collective_op(unsigned fn);

#endif
