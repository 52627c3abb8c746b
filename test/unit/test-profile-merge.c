/* Unit tests of profile serialization and merging (profile/profile_merge.c). */
#include "profile/profile_merge.h"

#include <stdlib.h>

#include "test.h"

/* Rank r's profile: app -> main -> {work, MPI_Send (rank 0 only) | MPI_Recv (others)},
 * one location, on host "n<r/2>"; visits = 10*cnode + r, time = cnode + r/10. */
typedef struct rank_profile {
    hp_profile p;
    hp_profile_region regions[4];
    hp_profile_cnode cnodes[4];
    hp_profile_node node;
    char host[8];
    hp_profile_process process;
    hp_profile_location location;
    hp_profile_metric metrics[2];
    hp_profile_call_count unmeasured[1];
    uint64_t visits[4];
    double time[4];
} rank_profile;

static void make_rank(rank_profile *rp, int r)
{
    memset(rp, 0, sizeof(*rp));
    rp->regions[0] = (hp_profile_region){ "app", "app", "", -1, -1, "measurement", "artificial", false };
    rp->regions[1] = (hp_profile_region){ "main", "main", "a.c", 3, -1, "compiler", "function", false };
    rp->regions[2] = (hp_profile_region){ "work", "work", "a.c", 9, -1, "compiler", "function", false };
    rp->regions[3] = r == 0 ? (hp_profile_region){ "MPI_Send", "MPI_Send", "", -1, -1, "mpi", "point2point", false }
                            : (hp_profile_region){ "MPI_Recv", "MPI_Recv", "", -1, -1, "mpi", "point2point", false };
    rp->cnodes[0] = (hp_profile_cnode){ HP_PROFILE_NO_PARENT, 0 };
    rp->cnodes[1] = (hp_profile_cnode){ 0, 1 };
    rp->cnodes[2] = (hp_profile_cnode){ 1, 2 };
    rp->cnodes[3] = (hp_profile_cnode){ 1, 3 };
    snprintf(rp->host, sizeof(rp->host), "n%d", r / 2);
    rp->node.name = rp->host;
    rp->process = (hp_profile_process){ r, 0 };
    rp->location = (hp_profile_location){ "Master thread", 0, 0 };
    for (int c = 0; c < 4; c++) {
        rp->visits[c] = 10u * (unsigned)c + (unsigned)r;
        rp->time[c] = c + r / 10.0;
    }
    rp->metrics[0] = (hp_profile_metric){ "visits", "Visits", "occ", "", HP_DTYPE_UINT64,
                                          HP_METRIC_EXCLUSIVE, rp->visits, NULL };
    rp->metrics[1] = (hp_profile_metric){ "time", "Time", "sec", "", HP_DTYPE_DOUBLE,
                                          HP_METRIC_INCLUSIVE, rp->time, NULL };
    rp->unmeasured[0] = (hp_profile_call_count){ "MPI_Comm_rank", 0, 100u + (unsigned)r };
    rp->p = (hp_profile){ "hpmeasure", "Linux", rp->regions, 4, rp->cnodes, 4, &rp->node, 1,
                          &rp->process, 1, &rp->location, 1, rp->metrics, 2,
                          rp->unmeasured, 1, .sampling = { 0 } };
}

static uint64_t visits_at(const hp_profile *p, size_t c, size_t l)
{
    return ((const uint64_t *)p->metrics[0].values)[c * p->nlocations + l];
}

/* Index of the cnode whose region is called name, or -1. */
static int cnode_named(const hp_profile *p, const char *name)
{
    for (size_t c = 0; c < p->ncnodes; c++)
        if (strcmp(p->regions[p->cnodes[c].region].name, name) == 0)
            return (int)c;
    return -1;
}

TEST(serialize_round_trip)
{
    rank_profile rp;
    make_rank(&rp, 1);
    void *buf;
    size_t len;
    ASSERT_INT_EQ(hp_profile_serialize(&rp.p, &buf, &len), 0);
    hp_owned_profile o;
    ASSERT_INT_EQ(hp_profile_deserialize(buf, len, &o), 0);
    const hp_profile *p = &o.profile;
    ASSERT_UINT_EQ(p->ncnodes, 4);
    ASSERT_UINT_EQ(p->nregions, 4);
    ASSERT_STR_EQ(p->regions[3].name, "MPI_Recv");
    ASSERT_STR_EQ(p->regions[3].role, "point2point");
    ASSERT_INT_EQ(p->regions[2].begin_line, 9);
    ASSERT_STR_EQ(p->nodes[0].name, "n0");
    ASSERT_INT_EQ(p->processes[0].rank, 1);
    ASSERT_UINT_EQ(visits_at(p, 3, 0), 31);
    ASSERT(((const double *)p->metrics[1].values)[2] == 2.1);
    ASSERT_UINT_EQ(p->nunmeasured, 1);
    ASSERT_STR_EQ(p->unmeasured[0].name, "MPI_Comm_rank");
    ASSERT_UINT_EQ(p->unmeasured[0].calls, 101);
    /* a truncated or corrupted buffer is refused, not read past its end */
    hp_owned_profile bad;
    ASSERT_INT_EQ(hp_profile_deserialize(buf, len - 1, &bad), -1);
    ((char *)buf)[0] = 'X';
    ASSERT_INT_EQ(hp_profile_deserialize(buf, len, &bad), -1);
    free(buf);
    hp_owned_profile_release(&o);
    return 0;
}

TEST(merge_unites_paths_regions_and_nodes)
{
    rank_profile r[4];
    for (int i = 0; i < 4; i++)
        make_rank(&r[i], i);
    hp_owned_profile m01, m23, all;
    ASSERT_INT_EQ(hp_profile_merge(&r[0].p, &r[1].p, &m01), 0);
    ASSERT_INT_EQ(hp_profile_merge(&r[2].p, &r[3].p, &m23), 0);
    ASSERT_INT_EQ(hp_profile_merge(&m01.profile, &m23.profile, &all), 0);
    const hp_profile *p = &all.profile;
    ASSERT_UINT_EQ(p->nregions, 5);  /* app main work MPI_Send MPI_Recv */
    ASSERT_UINT_EQ(p->ncnodes, 5);   /* app, main, work, main/MPI_Send, main/MPI_Recv */
    ASSERT_UINT_EQ(p->nnodes, 2);    /* n0, n1 */
    ASSERT_UINT_EQ(p->nprocesses, 4);
    ASSERT_UINT_EQ(p->nlocations, 4);
    for (int i = 0; i < 4; i++) {
        ASSERT_INT_EQ(p->processes[i].rank, i);
        ASSERT_UINT_EQ(p->processes[i].node, (unsigned)i / 2);
        ASSERT_UINT_EQ(p->locations[i].process, (unsigned)i);
    }
    /* depth-first pre-order: every parent before its children */
    ASSERT(p->cnodes[0].parent == HP_PROFILE_NO_PARENT);
    for (size_t c = 1; c < p->ncnodes; c++)
        ASSERT(p->cnodes[c].parent < c);
    int send = cnode_named(p, "MPI_Send"), recv = cnode_named(p, "MPI_Recv");
    int work = cnode_named(p, "work");
    ASSERT(send > 0 && recv > 0 && work > 0);
    ASSERT_UINT_EQ(visits_at(p, (size_t)send, 0), 30);
    for (size_t l = 1; l < 4; l++) {
        ASSERT_UINT_EQ(visits_at(p, (size_t)send, l), 0); /* never took that path */
        ASSERT_UINT_EQ(visits_at(p, (size_t)recv, l), 30 + l);
        ASSERT_UINT_EQ(visits_at(p, (size_t)work, l), 20 + l);
    }
    ASSERT_UINT_EQ(visits_at(p, (size_t)recv, 0), 0);
    ASSERT_UINT_EQ(p->nunmeasured, 4);
    for (size_t i = 0; i < 4; i++) {
        ASSERT_UINT_EQ(p->unmeasured[i].process, i);
        ASSERT_UINT_EQ(p->unmeasured[i].calls, 100 + i);
    }
    hp_owned_profile_release(&m01);
    hp_owned_profile_release(&m23);
    /* the merged profile owns its strings: still valid after the inputs are gone */
    ASSERT_STR_EQ(p->regions[p->cnodes[send].region].name, "MPI_Send");
    hp_owned_profile_release(&all);
    return 0;
}

TEST(different_metric_sets_are_refused)
{
    rank_profile a, b;
    make_rank(&a, 0);
    make_rank(&b, 1);
    b.p.nmetrics = 1;
    hp_owned_profile o;
    ASSERT_INT_EQ(hp_profile_merge(&a.p, &b.p, &o), -1);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(serialize_round_trip), TEST_ENTRY(merge_unites_paths_regions_and_nodes),
             TEST_ENTRY(different_metric_sets_are_refused));
