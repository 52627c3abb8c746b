/* Unit tests of the wait-state record and results (measurement/waitstates/): the record
 * keeps a prefix of the run when its half of the budget is full, and a call path's values
 * nest as Cube expects (a parent metric holds its children). */
#include "measurement/core/cct.h"
#include "measurement/waitstates/waitstates.h"

#include <math.h>

#include "test.h"

TEST(record_keeps_a_prefix_when_full)
{
    /* 256K budget: the records get half of it, 4 pages of 1024 records. */
    ASSERT_INT_EQ(hp_memory_init(256 * 1024), 0);
    for (uint64_t i = 0; i < 5000; i++) {
        hp_ws_record r = { .enter = i, .kind = HP_WS_SEND };
        hp_ws_set_exit(&r, i + 300); /* rounded up to whole units of 256 ticks */
        ASSERT_UINT_EQ(hp_ws_exit(&r), i + 512);
        ASSERT_INT_EQ(hp_ws_append(&r) != NULL, i < 4096);
    }
    ASSERT_UINT_EQ(hp_ws_count(), 4096);
    ASSERT_UINT_EQ(hp_ws_dropped(), 904);
    for (size_t i = 0; i < hp_ws_count(); i++)
        ASSERT_UINT_EQ(hp_ws_at(i)->enter, i);
    return 0;
}

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-12;
}

TEST(node_values_nest_like_scalasca)
{
    static hp_region root = { .id = 0, .name = "main", .paradigm = HP_PARADIGM_COMPILER,
                              .role = "function" };
    static hp_region recv = { .id = 1, .name = "MPI_Recv", .paradigm = HP_PARADIGM_MPI,
                              .role = "point2point" };
    static hp_region status = { .id = 2, .name = "MPI_Request_get_status",
                                .paradigm = HP_PARADIGM_MPI, .role = "function" };
    hp_arena arena = { 0 };
    hp_cct t;
    ASSERT_INT_EQ(hp_memory_init(1 << 20), 0);
    ASSERT_INT_EQ(hp_cct_init(&t, &arena, &root, 0), 0);
    hp_cct_node *r = hp_cct_child(&t, t.root, &recv), *s = hp_cct_child(&t, t.root, &status);
    r->incl_ticks = 1000; /* 1 s at 1000 ticks per second */
    s->incl_ticks = 100;
    hp_ws_record at_r = { .node = hp_memory_index(r) }, at_s = { .node = hp_memory_index(s) };
    hp_ws_charge(&at_r, HP_WSM_LATE_SENDER, 0.5);
    hp_ws_charge(&at_r, HP_WSM_LS_WRONG_ORDER, 0.2);
    hp_ws_charge(&at_r, HP_WSM_LSWO_SAME, 0.2);
    hp_ws_charge(&at_s, HP_WSM_LATE_SENDER, 0.3); /* a role that is not point2point */
    double v[HP_WSM_COUNT];
    hp_ws_node_values(r, 1000, v);
    ASSERT(near(v[HP_WSM_MPI], 1) && near(v[HP_WSM_COMM], 1) && near(v[HP_WSM_P2P], 1));
    ASSERT(near(v[HP_WSM_LATE_SENDER], 0.5) && near(v[HP_WSM_LS_WRONG_ORDER], 0.2));
    ASSERT(near(v[HP_WSM_LSWO_SAME], 0.2) && near(v[HP_WSM_COLL], 0));
    ASSERT(near(v[HP_WSM_SYNC], 0));
    hp_ws_node_values(s, 1000, v); /* the parents hold the child charged there */
    ASSERT(near(v[HP_WSM_P2P], 0.3) && near(v[HP_WSM_COMM], 0.3) && near(v[HP_WSM_MPI], 0.3));
    hp_ws_node_values(t.root, 1000, v); /* not MPI, nothing charged */
    for (unsigned k = 0; k < HP_WSM_COUNT; k++)
        ASSERT(v[k] == 0);
    /* Every metric's parent comes before it, the root being time. */
    ASSERT_STR_EQ(hp_ws_metric(HP_WSM_MPI)->parent, "time");
    for (unsigned k = 1; k < HP_WSM_COUNT; k++) {
        bool found = false;
        for (unsigned p = 0; p < k; p++)
            found |= strcmp(hp_ws_metric(p)->uniq_name, hp_ws_metric(k)->parent) == 0;
        ASSERT(found);
    }
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(record_keeps_a_prefix_when_full),
             TEST_ENTRY(node_values_nest_like_scalasca));
