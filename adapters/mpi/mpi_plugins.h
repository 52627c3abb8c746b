/*
 * Plug-ins around MPI calls (mpi_plugins.c, include/hp/plugin.h): the hooks of the MPI
 * adapter's enter/exit and life cycle.
 */
#ifndef HP_ADAPTERS_MPI_MPI_PLUGINS_H
#define HP_ADAPTERS_MPI_MPI_PLUGINS_H

#include "adapters/mpi/mpi_adapter.h"

/* 1 per HP_MPI_FN_* that some plug-in selected; all 0 without plug-ins. */
extern unsigned char hp__mpi_plugin_selected[];

/* Loads HP_PLUGINS (after MPI_Init) / calls their finalize (before MPI_Finalize). Both
 * change hp__mpi_plugin_selected: the caller then updates the calls' modes
 * (hp__mpi_modes_update). */
void hp__mpi_plugins_load(int rank, int size);
void hp__mpi_plugins_finalize(void);

/* Call the selected plug-ins' begin() / end() for the measured call of f. */
void hp__mpi_plugins_begin(const hp_mpi_frame *f);
void hp__mpi_plugins_end(const hp_mpi_frame *f);

#endif
