/*
 * The Fortran 2008 binding (`use mpi_f08`) in MPICH calls PMPI_* directly for most
 * functions, so the C wrappers never see them. This file intercepts the life-cycle
 * entry points of that binding (init, init_thread, finalize, abort), which need the
 * same special handling as their C counterparts; gen-f08-wrappers.py generates plain
 * wrappers for all other mpi_*_f08_ entry points. The binding's buffer-carrying calls
 * (mpi_send_f08ts_, mpi_allreduce_f08ts_, ...) go through the C MPI_* functions and are
 * measured by the C wrappers.
 *
 * Each interposer reaches MPICH's own definition with dlsym(RTLD_NEXT): the program
 * links libhpmeasure_mpi before libmpichfort. A definition that is missing is said once
 * (util/next_symbol.h) and its call left out. Optional Fortran arguments (ierror) arrive
 * as NULL when absent, so success is asked from MPI itself.
 */
#include <stddef.h>

#include "adapters/mpi/mpi_event.h"
#include "adapters/mpi/mpi_lifecycle.h"
#include "mpi_functions.h"
#include "measurement/core/runtime_calls.h"
#include "util/compiler.h"
#include "util/next_symbol.h"

typedef void (*f08_ierror_fn)(int *ierror);
typedef void (*f08_init_thread_fn)(int *required, int *provided, int *ierror);
typedef void (*f08_abort_fn)(int *comm, int *errorcode, int *ierror);

static void after_init(void)
{
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (initialized)
        hp_mpi_after_init();
}

HP_API void mpi_init_f08_(int *ierror)
{
    HP_NEXT_SYMBOL(f08_ierror_fn, real, mpi_init_f08_);
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
    HP_NEXT_SYMBOL(f08_init_thread_fn, real, mpi_init_thread_f08_);
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
    HP_NEXT_SYMBOL(f08_ierror_fn, real, mpi_finalize_f08_);
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
    HP_NEXT_SYMBOL(f08_abort_fn, real, mpi_abort_f08_);
    hp_mpi_before_abort(errorcode != NULL ? *errorcode : 1);
    if (real != NULL)
        real(comm, errorcode, ierror);
}
