/*
 * HP_MPI_ENABLE_GROUPS / HP_MPI_EXCLUDE parsing (adapters/mpi/mpi_selection.c) against
 * the generated function table (mpi_functions.c from gen-wrappers.py).
 */
#include <stddef.h>

#include "adapters/mpi/mpi_selection.h"
#include "adapters/mpi/mpi_adapter.h"
#include "mpi_functions.h"
#include "test.h"

static int measured(const char *name)
{
    for (unsigned i = 0; i < hp_mpi_function_count; i++)
        if (strcmp(hp_mpi_functions[i].name, name) == 0)
            return hp_mpi_measured[i];
    return -1; /* not in the table */
}

static unsigned count_measured(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < hp_mpi_function_count; i++)
        n += hp_mpi_measured[i];
    return n;
}

TEST(table_is_complete)
{
    ASSERT_UINT_EQ(hp_mpi_function_count, HP_MPI_FN_COUNT);
    ASSERT(hp_mpi_function_count > 400);
    ASSERT_STR_EQ(hp_mpi_functions[HP_MPI_FN_MPI_Send].name, "MPI_Send");
    ASSERT_STR_EQ(hp_mpi_functions[HP_MPI_FN_MPI_Allreduce].role, "all2all");
    ASSERT_STR_EQ(hp_mpi_functions[HP_MPI_FN_MPI_Barrier].role, "barrier");
    ASSERT_STR_EQ(hp_mpi_functions[HP_MPI_FN_MPI_Send_c].role, "point2point");
    for (unsigned i = 0; i < hp_mpi_function_count; i++)
        ASSERT(hp_mpi_functions[i].groups != 0);
    return 0;
}

TEST(default_groups)
{
    char err[512];
    ASSERT_INT_EQ(hp_mpi_selection_init(NULL, NULL, err, sizeof err), 0);
    ASSERT_INT_EQ(measured("MPI_Send"), 1);
    ASSERT_INT_EQ(measured("MPI_Send_c"), 1);
    ASSERT_INT_EQ(measured("MPI_Allreduce"), 1);
    ASSERT_INT_EQ(measured("MPI_Comm_rank"), 1);
    ASSERT_INT_EQ(measured("MPI_Init"), 1);
    ASSERT_INT_EQ(measured("MPI_File_open"), 1);
    ASSERT_INT_EQ(measured("MPI_Win_fence"), 1);
    ASSERT_INT_EQ(measured("MPI_Cart_create"), 1);
    ASSERT_INT_EQ(measured("MPI_Type_commit"), 0);
    ASSERT_INT_EQ(measured("MPI_Wtime"), 0);
    ASSERT_INT_EQ(measured("MPI_Pcontrol"), 0);
    ASSERT_INT_EQ(measured("MPI_Error_string"), 0);
    ASSERT_INT_EQ(measured("MPI_Comm_spawn"), 0);
    ASSERT_INT_EQ(measured("MPI_T_init_thread"), 0);
    unsigned n = count_measured();
    /* "default" spelled out and a blank list mean the same. */
    ASSERT_INT_EQ(hp_mpi_selection_init("default", "", err, sizeof err), 0);
    ASSERT_UINT_EQ(count_measured(), n);
    ASSERT_INT_EQ(hp_mpi_selection_init("  ", NULL, err, sizeof err), 0);
    ASSERT_UINT_EQ(count_measured(), n);
    ASSERT_INT_EQ(hp_mpi_selection_init("cg,coll,env,io,p2p,rma,topo,xnonblock", NULL, err,
                                        sizeof err),
                  0);
    ASSERT_UINT_EQ(count_measured(), n);
    return 0;
}

TEST(all)
{
    char err[512];
    ASSERT_INT_EQ(hp_mpi_selection_init("all", NULL, err, sizeof err), 0);
    ASSERT_UINT_EQ(count_measured(), hp_mpi_function_count);
    ASSERT_INT_EQ(hp_mpi_selection_init("ALL", NULL, err, sizeof err), 0);
    ASSERT_UINT_EQ(count_measured(), hp_mpi_function_count);
    return 0;
}

TEST(single_groups)
{
    char err[512];
    ASSERT_INT_EQ(hp_mpi_selection_init("type", NULL, err, sizeof err), 0);
    ASSERT_INT_EQ(measured("MPI_Type_commit"), 1);
    ASSERT_INT_EQ(measured("MPI_Type_create_keyval"), 1); /* type + ext */
    ASSERT_INT_EQ(measured("MPI_Send"), 0);
    ASSERT_INT_EQ(measured("MPI_Init"), 0);
    ASSERT_INT_EQ(hp_mpi_selection_init("ext", NULL, err, sizeof err), 0);
    ASSERT_INT_EQ(measured("MPI_Wtime"), 1);
    ASSERT_INT_EQ(measured("MPI_Type_create_keyval"), 1);
    ASSERT_INT_EQ(measured("MPI_Type_commit"), 0);
    /* separators: comma and blanks, any case */
    ASSERT_INT_EQ(hp_mpi_selection_init(" P2P ,  Coll\tmisc", NULL, err, sizeof err), 0);
    ASSERT_INT_EQ(measured("MPI_Recv"), 1);
    ASSERT_INT_EQ(measured("MPI_Bcast"), 1);
    ASSERT_INT_EQ(measured("MPI_Pcontrol"), 1);
    ASSERT_INT_EQ(measured("MPI_Comm_rank"), 0);
    ASSERT_INT_EQ(hp_mpi_selection_init("xreqtest", NULL, err, sizeof err), 0);
    ASSERT_INT_EQ(measured("MPI_Test"), 1);
    ASSERT_INT_EQ(measured("MPI_Wait"), 0);
    return 0;
}

TEST(exclude_list)
{
    char err[512];
    ASSERT_INT_EQ(hp_mpi_selection_init(NULL, "MPI_Send, MPI_Comm_rank mpi_allreduce", err,
                                        sizeof err),
                  0);
    ASSERT_INT_EQ(measured("MPI_Send"), 0);
    ASSERT_INT_EQ(measured("MPI_Send_c"), 0); /* the large-count variant goes with it */
    ASSERT_INT_EQ(measured("MPI_Comm_rank"), 0);
    ASSERT_INT_EQ(measured("MPI_Allreduce"), 0);
    ASSERT_INT_EQ(measured("MPI_Recv"), 1);
    ASSERT_INT_EQ(measured("MPI_Isend"), 1);
    ASSERT_INT_EQ(measured("MPI_Comm_size"), 1);
    /* excluding only the _c variant keeps the base */
    ASSERT_INT_EQ(hp_mpi_selection_init("all", "MPI_Bcast_c", err, sizeof err), 0);
    ASSERT_INT_EQ(measured("MPI_Bcast"), 1);
    ASSERT_INT_EQ(measured("MPI_Bcast_c"), 0);
    ASSERT_UINT_EQ(count_measured(), hp_mpi_function_count - 1);
    return 0;
}

TEST(bad_group)
{
    char err[512];
    ASSERT_INT_EQ(hp_mpi_selection_init("all", NULL, err, sizeof err), 0);
    ASSERT_INT_EQ(hp_mpi_selection_init("p2p,colll", NULL, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "HP_MPI_ENABLE_GROUPS");
    ASSERT_STR_CONTAINS(err, "'colll'");
    ASSERT_STR_CONTAINS(err, "accepted: all, default, cg, coll");
    ASSERT_STR_CONTAINS(err, "xreqtest");
    /* a failed call leaves the previous selection alone */
    ASSERT_UINT_EQ(count_measured(), hp_mpi_function_count);
    return 0;
}

TEST(bad_function)
{
    char err[512];
    ASSERT_INT_EQ(hp_mpi_selection_init(NULL, "MPI_Send,MPI_Sendd", err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "HP_MPI_EXCLUDE");
    ASSERT_STR_CONTAINS(err, "'MPI_Sendd'");
    ASSERT_STR_CONTAINS(err, "accepted");
    ASSERT_INT_EQ(hp_mpi_selection_init(NULL, "Send", err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "'Send'");
    /* echoed escaped: a terminal escape in the value reaches the terminal as text */
    ASSERT_INT_EQ(hp_mpi_selection_init(NULL, "MPI_\033[1m", err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "'MPI_\\x1b[1m'");
    ASSERT_INT_EQ(hp_mpi_selection_init("p2p,\033[2J", NULL, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "'\\x1b[2J' in 'p2p,\\x1b[2J'");
    /* a short error buffer is not overrun */
    char small[8];
    memset(small, 'x', sizeof small);
    ASSERT_INT_EQ(hp_mpi_selection_init("nope", NULL, small, sizeof small), -1);
    ASSERT(memchr(small, '\0', sizeof small) != NULL);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(table_is_complete), TEST_ENTRY(default_groups), TEST_ENTRY(all),
             TEST_ENTRY(single_groups), TEST_ENTRY(exclude_list), TEST_ENTRY(bad_group),
             TEST_ENTRY(bad_function));
