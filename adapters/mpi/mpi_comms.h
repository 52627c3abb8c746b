/*
 * The communicators a traced MPI program creates (mpi_comms.c): a registry filled by the
 * generated wrappers of every function that returns a new communicator (rule comm_new
 * of mpi-semantics.txt), so that trace events on them can name them and the finalize
 * step can define them in the OTF2 archive.
 *
 * A communicator's job-wide identity (its key) is agreed inside it when it is created:
 * the new communicator's rank 0 proposes (its world rank << 32 | its creation counter)
 * and broadcasts it with PMPI; for an intercommunicator each side's leader proposes one
 * and both sides take the smaller (two PMPI_Allreduce over the intercommunicator). Every
 * member also records the members as MPI_COMM_WORLD ranks, in rank order of the new
 * communicator (intercommunicators: the group of the side with the smaller proposal
 * first), the parent's key and the name given by MPI_Comm_set_name.
 *
 * Local ids: 0 = MPI_COMM_WORLD, 1 = MPI_COMM_SELF, 2 + i = registry entry i. At
 * MPI_Finalize the entries of all ranks are unified by key (binomial tree to rank 0),
 * rank 0 orders them (parents first) and every rank learns the global id of each of its
 * entries (2, 3, ... after WORLD = 0 and SELF = 1).
 *
 * Registry work happens only with HP_ENABLE_TRACING (the same on every rank, so the
 * collective agreement is made by all members or by none). No locks and no heap: a
 * static table claimed with atomics; a full table leaves further communicators
 * untraced (counted).
 */
#ifndef HP_ADAPTERS_MPI_MPI_COMMS_H
#define HP_ADAPTERS_MPI_MPI_COMMS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_adapter.h"
#include "otf2-writer/trace_writer.h"

enum { HP_MPI_COMM_WORLD_ID = 0, HP_MPI_COMM_SELF_ID = 1, HP_MPI_COMM_FIRST_ID = 2 };

/* Rules of mpi-semantics.txt, run after a successful call whether or not the call is
 * measured (they are collective or must keep the registry right). */
void hp_mpi_bytes_comm_new(hp_mpi_frame *f, MPI_Comm parent, const MPI_Comm *newcomm);
void hp_mpi_bytes_comm_name(hp_mpi_frame *f, MPI_Comm comm, const char *name);
/* Before MPI_Comm_free / MPI_Comm_disconnect: the handle may be reused at once. */
void hp_mpi_bytes_comm_free(hp_mpi_frame *f, const MPI_Comm *comm);

/* Local id of comm for trace events: 0 WORLD, 1 SELF, 2 + entry; UINT32_MAX when it is
 * not registered or is an intercommunicator (events on those are not written). */
uint32_t hp_mpi_comm_local_id(MPI_Comm comm);

/* The MPI_COMM_WORLD rank of rank peer of the communicator with local id local_id (for
 * the trace's cut), or -1 when it is not known (an intercommunicator, an unrecorded one). */
int64_t hp_mpi_comm_world_rank(uint32_t local_id, uint32_t peer, int my_world_rank);

/* Collective over comm (the adapter's private duplicate of MPI_COMM_WORLD, the
 * transport's of mpi_transport.h, over which it calls the off-CPU collectives of
 * mpi_offcpu.h): unifies the registries. Rank 0 gets the definitions in *defs / *ndefs
 * (global ids 2 + index; free with hp_mpi_comms_free_defs); every rank gets *map, local
 * id -> global id (malloc'd, with *nmap entries; NULL when out of memory on some rank:
 * then *ndefs is 0 as well). Returns 0, or -1 when some rank ran out of memory (comm
 * events are dropped then). */
int hp_mpi_comms_unify(MPI_Comm comm, int rank, hp_trace_comm **defs, uint32_t *ndefs,
                       uint32_t **map, uint32_t *nmap);
void hp_mpi_comms_free_defs(hp_trace_comm *defs, uint32_t ndefs);

/* For the wait-state replay (mpi_waitstates.c): the registered communicators have local
 * ids HP_MPI_COMM_FIRST_ID .. hp_mpi_comm_end() - 1. hp_mpi_comm_info gives one's key
 * (job-wide identity, KEY 0 = WORLD, 1 = SELF), its members as MPI_COMM_WORLD ranks in
 * its rank order (NULL for WORLD: rank r is world rank r) and their number; it returns
 * -1 for an id that is not a complete intracommunicator entry. */
uint32_t hp_mpi_comm_end(void);
int hp_mpi_comm_info(uint32_t local_id, uint64_t *key, const int32_t **members,
                     uint32_t *nmembers);
/* Whether communicators are registered: with tracing or wait states (the same on every
 * rank, as the registration is collective). */
int hp_mpi_comms_registering(void);

/* Communicators left out because the registry was full (for the notes). */
uint64_t hp_mpi_comms_lost(void);

#endif
