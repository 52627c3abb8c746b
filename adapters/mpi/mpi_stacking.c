/*
 * Stacking with other PMPI tools (doc/mpi.md, "Other PMPI tools").
 *
 * Our wrappers call the next definition of their MPI function (the generated
 * mpi_wrappers.c looks the definitions up once, when the library is loaded), so
 * a tool whose MPI_* come after ours in the symbol search order still sees every call.
 * A tool whose MPI_* come first calls PMPI_* itself and we never see those calls: rank 0
 * says so, naming the object, after MPI_Init for the functions it shadows
 * (hp__mpi_report_shadowed) or at exit when it shadowed MPI_Init itself
 * (hp__mpi_explain_bypass); at exit each rank whose MPI_Finalize it shadowed says so,
 * instead of claiming the program never called it (hp__mpi_explain_finalize_bypass).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "adapters/mpi/mpi_stacking.h"
#include "adapters/mpi/mpi_adapter.h"
#include "adapters/mpi/mpi_functions.h"
#include "util/log.h"

enum { NAMES_SHOWN = 4 };

static const char *object_name(const Dl_info *info)
{
    return info->dli_fname != NULL && info->dli_fname[0] != '\0' ? info->dli_fname
                                                                  : "the program itself";
}

/* Whether the program's calls to name go to another object first; *who is then set. */
static int shadowed(const char *name, const Dl_info *ours, Dl_info *who)
{
    void *first = dlsym(RTLD_DEFAULT, name);
    return first != NULL && dladdr(first, who) != 0 && who->dli_fbase != ours->dli_fbase;
}

/* The same, cheaper when self (our own object, or NULL) is known: a call goes to us when
 * the first definition is ours, which needs no dladdr (a scan of symbol tables, some
 * 30,000 instructions per name). */
static int shadowed_from(void *self, const char *name, const Dl_info *ours, Dl_info *who)
{
    if (self != NULL && dlsym(RTLD_DEFAULT, name) == dlsym(self, name))
        return 0;
    return shadowed(name, ours, who);
}

void hp__mpi_report_shadowed(int rank)
{
    Dl_info ours, who, first_who;
    if (rank != 0 || dladdr((void *)hp__mpi_report_shadowed, &ours) == 0)
        return;
    void *self = ours.dli_fname != NULL ? dlopen(ours.dli_fname, RTLD_LAZY | RTLD_NOLOAD)
                                        : NULL;
    char names[NAMES_SHOWN * 40] = "";
    unsigned count = 0;
    for (unsigned i = 0; i < HP_MPI_FN_COUNT; i++) {
        if (!shadowed_from(self, hp_mpi_functions[i].name, &ours, &who))
            continue;
        if (count == 0)
            first_who = who;
        if (count < NAMES_SHOWN)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     count > 0 ? ", " : "", hp_mpi_functions[i].name);
        count++;
    }
    if (count > 0)
        fprintf(stderr, "hpmeasure: %u MPI function%s (%s%s) %s defined first by %s, so %s "
                        "calls reach MPI without us and are not measured; link or preload that "
                        "PMPI tool after hpmeasure (see doc/mpi.md, \"Other PMPI tools\")\n",
                count, count == 1 ? "" : "s", names, count > NAMES_SHOWN ? ", ..." : "",
                count == 1 ? "is" : "are", object_name(&first_who), count == 1 ? "its" : "their");
    if (self != NULL)
        dlclose(self); /* only the reference dlopen took */
}

/* A rank whose MPI_Init reached us and whose MPI_Finalize did not may still have called
 * MPI_Finalize: another object's definition came first (a tool compiled into the
 * program that wraps MPI_Finalize but not MPI_Init), or the program called
 * PMPI_Finalize. Only a rank whose MPI is still running ended without it. */
bool hp__mpi_explain_finalize_bypass(int rank)
{
    int finalized = 0;
    if (PMPI_Finalized(&finalized) != MPI_SUCCESS || !finalized)
        return false;
    Dl_info ours, first;
    const char *who = NULL;
    if (dladdr((void *)hp__mpi_explain_finalize_bypass, &ours) != 0 &&
        shadowed("MPI_Finalize", &ours, &first))
        who = object_name(&first);
    if (who != NULL)
        hp_warn("rank %d called MPI_Finalize, but %s defines it before hpmeasure, so the "
                "call reached MPI without us; writing this rank's own profile-rank%d.cubex "
                "(see doc/mpi.md, \"Other PMPI tools\")", rank, who, rank);
    else
        hp_warn("rank %d finalized MPI without our MPI_Finalize wrapper (PMPI_Finalize "
                "called directly?); writing this rank's own profile-rank%d.cubex", rank, rank);
    return true;
}

void hp__mpi_explain_bypass(int rank)
{
    Dl_info first, ours;
    if (rank != 0 || dladdr((void *)hp__mpi_explain_bypass, &ours) == 0 ||
        !shadowed("MPI_Init", &ours, &first))
        return;
    const char *who = object_name(&first);
    fprintf(stderr, "hpmeasure: MPI_Init is defined by %s, which comes before hpmeasure "
                    "in the symbol search order, so MPI calls reach MPI without us; link or "
                    "preload that PMPI tool after hpmeasure (see doc/mpi.md, \"Other PMPI "
                    "tools\")\n", who);
}
