/*
 * Which MPI functions are measured and which of them unwind (mpi_selection.c), set up
 * at start-up from HP_MPI_ENABLE_GROUPS, HP_MPI_EXCLUDE and HP_MPI_UNWIND_EXCLUDE and
 * read by mpi_event.c.
 */
#ifndef HP_ADAPTERS_MPI_MPI_SELECTION_H
#define HP_ADAPTERS_MPI_MPI_SELECTION_H

#include <stddef.h>

/* Which functions are measured: 1 per HP_MPI_FN_* (set up by hp_mpi_selection_init). */
extern unsigned char hp_mpi_measured[];

/* Parses the group list (comma or space separated Score-P group names, case-insensitive;
 * "default" = cg,coll,env,io,p2p,rma,topo,xnonblock; "all") and the exclude list
 * (function names). Returns 0, or -1 with a message naming the variable, the bad word and
 * the accepted words in err. */
int hp_mpi_selection_init(const char *groups, const char *exclude, char *err, size_t errlen);

/* With sampling: 1 per HP_MPI_FN_* whose calls unwind to learn their call path; the
 * functions listed in exclude (HP_MPI_UNWIND_EXCLUDE) do not. Returns 0, or -1 with a
 * message in err. */
extern unsigned char hp_mpi_unwind[];
int hp_mpi_unwind_init(const char *exclude, char *err, size_t errlen);

#endif
