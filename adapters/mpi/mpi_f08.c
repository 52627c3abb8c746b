/*
 * The Fortran 2008 binding (`use mpi_f08`) in MPICH calls PMPI_* directly for most
 * functions, so the C wrappers never see them. This file intercepts the life-cycle
 * entry points of that binding (init, init_thread, finalize, abort), which need the
 * same special handling as their C counterparts; gen-f08.py generates plain wrappers
 * for all other mpi_*_f08_ entry points. The binding's buffer-carrying calls
 * (mpi_send_f08ts_, mpi_allreduce_f08ts_, ...) go through the C MPI_* functions and are
 * measured by the C wrappers.
 *
 * Each interposer reaches MPICH's own definition with dlsym(RTLD_NEXT): the program
 * links libhpmeasure_mpi before libmpichfort. Optional Fortran arguments (ierror) arrive
 * as NULL when absent, so success is asked from MPI itself.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "adapters/mpi/mpi_adapter.h"
#include "mpi_functions.h"
#include "measurement/runtime_calls.h"
#include "util/compiler.h"

typedef void (*f08_ierror_fn)(int *ierror);
typedef void (*f08_init_thread_fn)(int *required, int *provided, int *ierror);
typedef void (*f08_abort_fn)(int *comm, int *errorcode, int *ierror);

/* MPICH's definition of name, or NULL (then the call cannot be made at all). */
static void *next_definition(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static void after_init(void)
{
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (initialized)
        hp_mpi_after_init();
}

HP_API void mpi_init_f08_(int *ierror)
{
    f08_ierror_fn real = (f08_ierror_fn)next_definition("mpi_init_f08_");
    hp_mpi_frame f;
    int measured = hp_mpi_enter(&f, HP_MPI_FN_MPI_Init);
    hp_runtime_call_begin(); /* threads MPI creates are its own */
    if (real != NULL)
        real(ierror);
    hp_runtime_call_end();
    after_init();
    if (measured)
        hp_mpi_exit(&f);
}

HP_API void mpi_init_thread_f08_(int *required, int *provided, int *ierror)
{
    f08_init_thread_fn real = (f08_init_thread_fn)next_definition("mpi_init_thread_f08_");
    hp_mpi_frame f;
    int measured = hp_mpi_enter(&f, HP_MPI_FN_MPI_Init_thread);
    hp_runtime_call_begin(); /* threads MPI creates are its own */
    if (real != NULL)
        real(required, provided, ierror);
    hp_runtime_call_end();
    after_init();
    if (measured)
        hp_mpi_exit(&f);
}

HP_API void mpi_finalize_f08_(int *ierror)
{
    f08_ierror_fn real = (f08_ierror_fn)next_definition("mpi_finalize_f08_");
    hp_mpi_frame f;
    int measured = hp_mpi_enter(&f, HP_MPI_FN_MPI_Finalize);
    hp_mpi_before_finalize();
    hp_runtime_call_begin(); /* threads MPI creates are its own */
    if (real != NULL)
        real(ierror);
    hp_runtime_call_end();
    if (measured)
        hp_mpi_exit(&f);
}

HP_API void mpi_abort_f08_(int *comm, int *errorcode, int *ierror)
{
    f08_abort_fn real = (f08_abort_fn)next_definition("mpi_abort_f08_");
    hp_mpi_before_abort(errorcode != NULL ? *errorcode : 1);
    if (real != NULL)
        real(comm, errorcode, ierror);
}
