/*
 * Stacking with other PMPI tools (doc/mpi.md, "Other PMPI tools").
 *
 * Our wrappers call the next definition of their MPI function (hp_mpi_resolve_next,
 * generated with the wrappers, fills the pointers once when the library is loaded), so
 * a tool whose MPI_* come after ours in the symbol search order still sees every call.
 * A tool whose MPI_* come first calls PMPI_* itself and we see nothing; when MPI ran
 * without our MPI_Init, hp__mpi_explain_bypass names the object that got the call.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "adapters/mpi/mpi_adapter.h"

__attribute__((constructor)) static void find_next_definitions(void)
{
    hp_mpi_resolve_next();
}

void hp__mpi_explain_bypass(int rank)
{
    Dl_info first, ours;
    void *init = dlsym(RTLD_DEFAULT, "MPI_Init");
    if (rank != 0 || init == NULL || dladdr(init, &first) == 0 ||
        dladdr((void *)hp__mpi_explain_bypass, &ours) == 0 ||
        first.dli_fbase == ours.dli_fbase)
        return;
    const char *who = first.dli_fname != NULL && first.dli_fname[0] != '\0'
                          ? first.dli_fname : "the program itself";
    fprintf(stderr, "hpmeasure: MPI_Init is defined by %s, which comes before hpmeasure "
                    "in the symbol search order, so MPI calls reach MPI without us; link or "
                    "preload that PMPI tool after hpmeasure (see doc/mpi.md, \"Other PMPI "
                    "tools\")\n", who);
}
