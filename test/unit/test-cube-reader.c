/*
 * Unit tests of the Cube4 reader (tools/cube_reader.c): every value of the Score-P
 * samples against their CSVs (written by cube_dump), the known values of the CubeW
 * golden file, files built here with the features real writers use (non-DFS cnode
 * ids, INCLUSIVE enumeration, several roots, narrow and byte-swapped dtypes, dense
 * index, legacy system tree, metrics without data, derived metrics), and bad input,
 * which must give one line naming the file and never crash.
 *
 * The CSV layout (cube_dump -x excl|incl -c all -z incl|excl -s csv2): a header
 * "Cnode ID, Thread ID,<metric>,..." then one row per (file cnode id, location id).
 */
#include <archive.h>
#include <archive_entry.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cube_reader.h"
#include "profile/summary.h"
#include "test.h"

#ifndef HP_SAMPLES_DIR
#define HP_SAMPLES_DIR "test/data/cube"
#endif

/* ------------------------------------------------------------------ helpers */

static bool close_enough(double got, double want)
{
    /* cube_dump prints 6 to 12 significant digits. */
    return fabs(got - want) <= 1e-5 * fmax(fabs(got), fabs(want)) + 1e-12;
}

static size_t profile_cnode(const hp_cube_profile *cp, long file_id)
{
    for (size_t c = 0; c < cp->profile.ncnodes; c++)
        if (cp->file_cnode_ids[c] == (uint32_t)file_id)
            return c;
    return SIZE_MAX;
}

static bool *only_location(const hp_profile *p, size_t loc)
{
    bool *sel = calloc(p->nlocations, sizeof(bool));
    if (sel != NULL)
        sel[loc] = true;
    return sel;
}

/* Compares every value of one CSV (incl or excl) with the reader's views. */
static int check_csv(const hp_cube_profile *cp, const char *csv, bool inclusive)
{
    FILE *f = fopen(csv, "r");
    ASSERT(f != NULL);
    char line[4096], *names[64];
    size_t ncols = 0, rows = 0;
    ASSERT(fgets(line, sizeof(line), f) != NULL);
    line[strcspn(line, "\r\n")] = '\0';
    for (char *tok = strtok(line, ","); tok != NULL && ncols < 64; tok = strtok(NULL, ","))
        names[ncols++] = strdup(tok);
    while (fgets(line, sizeof(line), f) != NULL) {
        double v[64];
        size_t n = 0;
        for (char *tok = strtok(line, ","); tok != NULL && n < 64; tok = strtok(NULL, ","))
            v[n++] = strtod(tok, NULL);
        ASSERT_UINT_EQ(n, ncols);
        size_t cnode = profile_cnode(cp, (long)v[0]), loc = (size_t)v[1];
        ASSERT(cnode != SIZE_MAX && loc < cp->profile.nlocations);
        for (size_t m = 2; m < ncols; m++) {
            const hp_profile_metric *metric = hp_profile_find_metric(&cp->profile, names[m]);
            if (metric == NULL)
                HP_TEST_FAIL("%s: metric %s not read", csv, names[m]);
            hp_metric_view view;
            bool *sel = only_location(&cp->profile, loc);
            ASSERT(sel != NULL && hp_metric_view_init(&view, &cp->profile, metric, sel) == 0);
            double got = inclusive ? view.incl[cnode] : view.excl[cnode];
            hp_metric_view_release(&view);
            free(sel);
            if (!close_enough(got, v[m]))
                HP_TEST_FAIL("%s: cnode %g location %zu %s: got %.12g, want %.12g", csv, v[0],
                             loc, names[m], got, v[m]);
        }
        rows++;
    }
    fclose(f);
    for (size_t i = 0; i < ncols; i++)
        free(names[i]);
    ASSERT_UINT_EQ(rows, cp->profile.ncnodes * cp->profile.nlocations);
    return 0;
}

static int check_sample_csvs(const char *base)
{
    char path[512], err[512];
    hp_cube_profile cp;
    snprintf(path, sizeof(path), "%s/%s.cubex", HP_SAMPLES_DIR, base);
    if (hp_cube_read(path, &cp, err, sizeof(err)) != 0)
        HP_TEST_FAIL("%s", err);
    snprintf(path, sizeof(path), "%s/%s.excl.csv", HP_SAMPLES_DIR, base);
    int rc = check_csv(&cp, path, false);
    snprintf(path, sizeof(path), "%s/%s.incl.csv", HP_SAMPLES_DIR, base);
    rc = rc ? rc : check_csv(&cp, path, true);
    hp_cube_profile_release(&cp);
    return rc;
}

/* ------------------------------------------------------------------ building files */

typedef struct blob {
    const char *name;
    const void *data;
    size_t size;
} blob;

/* Writes a ustar archive of the members into buf; returns its size (0 on error). */
static size_t make_tar(unsigned char *buf, size_t cap, const blob *m, size_t n)
{
    struct archive *a = archive_write_new();
    size_t used = 0;
    archive_write_set_format_ustar(a);
    archive_write_set_bytes_in_last_block(a, 1);
    if (archive_write_open_memory(a, buf, cap, &used) != ARCHIVE_OK)
        return 0;
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, m[i].name);
        archive_entry_set_size(e, (la_int64_t)m[i].size);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0600);
        archive_write_header(a, e);
        archive_write_data(a, m[i].data, m[i].size);
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    return used;
}

typedef struct bytes {
    unsigned char b[4096];
    size_t n;
} bytes;

static void put(bytes *o, const void *p, size_t n)
{
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

/* An unsigned number of size bytes, little-endian or (swapped) big-endian. */
static void put_uint(bytes *o, uint64_t v, unsigned size, bool big)
{
    for (unsigned i = 0; i < size; i++)
        o->b[o->n + (big ? size - 1 - i : i)] = (unsigned char)(v >> (8 * i));
    o->n += size;
}

static void sparse_index(bytes *o, const uint32_t *pos, uint32_t n, bool big)
{
    o->n = 0;
    put(o, "CUBEX.INDEX", 11);
    put_uint(o, 1, 4, big);
    put_uint(o, 0, 2, big);
    put_uint(o, 1, 1, big);
    put_uint(o, n, 4, big);
    for (uint32_t i = 0; i < n; i++)
        put_uint(o, pos[i], 4, big);
}

static void dense_index(bytes *o)
{
    o->n = 0;
    put(o, "CUBEX.INDEX", 11);
    put_uint(o, 1, 4, false);
    put_uint(o, 0, 2, false);
    put_uint(o, 3, 1, false);
}

/* Five cnodes under two roots; ids not in document order; legacy system tree with
 * two processes (ranks 0 and 1) and three threads. */
static const char synthetic_anchor[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n"
    "<attr key=\"Cube Version\" value=\"4.8.2\"/>\n"
    "<metrics>\n"
    "<metric id=\"5\" type=\"EXCLUSIVE\"><uniq_name>visits</uniq_name><dtype>UINT16</dtype>"
    "<uom>occ</uom>\n"
    "  <metric id=\"7\"><uniq_name>child</uniq_name><dtype>INT8</dtype></metric>\n"
    "</metric>\n"
    "<metric id=\"1\" type=\"INCLUSIVE\"><dtype>DOUBLE</dtype><uniq_name>time</uniq_name>"
    "<uom>sec</uom></metric>\n"
    "<metric id=\"2\" type=\"POSTDERIVED\"><uniq_name>derived</uniq_name>"
    "<cubepl>${time}[${calculation::callpath::id}]</cubepl></metric>\n"
    "<metric id=\"3\"><uniq_name>nodata</uniq_name><dtype>UINT64</dtype></metric>\n"
    "</metrics>\n<program>\n"
    "<region id=\"0\" mod=\"m.c\" begin=\"1\" end=\"9\"><name>main</name>"
    "<paradigm>compiler</paradigm></region>\n"
    "<region id=\"1\"><name>foo</name></region><region id=\"2\"><name>bar</name></region>\n"
    "<region id=\"3\"><name>baz &amp; co</name></region>"
    "<region id=\"4\"><name><![CDATA[other<1>]]></name></region>\n"
    "<cnode id=\"4\" calleeId=\"0\">\n"
    "  <cnode id=\"2\" calleeId=\"1\"><parameter partype=\"numeric\" parkey=\"k\" parvalue=\"1\"/>"
    "<cnode id=\"0\" calleeId=\"3\"></cnode></cnode>\n"
    "  <cnode id=\"1\" calleeId=\"2\"><cnode id=\"3\" calleeId=\"3\"></cnode></cnode>\n"
    "</cnode>\n<cnode id=\"5\" calleeId=\"4\"></cnode>\n"
    "</program>\n<system>\n"
    "<machine Id=\"0\"><name>M</name><node Id=\"0\"><name>n0</name>\n"
    "<process Id=\"0\"><name>p0</name><rank>0</rank>"
    "<thread Id=\"0\"><name>t0</name><rank>0</rank></thread>"
    "<thread Id=\"1\"><name>t1</name><rank>1</rank></thread></process>\n"
    "<process Id=\"1\"><name>p1</name><rank>1</rank>"
    "<thread Id=\"2\"><name>t0</name><rank>0</rank></thread></process>\n"
    "</node></machine>\n</system>\n</cube>\n";

enum { NLOC = 3 };

/* The members of the synthetic file; which ones go in is up to the caller. */
typedef struct synthetic {
    bytes visits_index, visits_data, child_index, child_data, time_index, time_data;
} synthetic;

static void build_synthetic(synthetic *s)
{
    /* visits: byte-swapped UINT16, rows at positions 0 2 3 5 (document order). */
    static const uint32_t vpos[] = { 0, 2, 3, 5 };
    sparse_index(&s->visits_index, vpos, 4, true);
    s->visits_data.n = 0;
    put(&s->visits_data, "CUBEX.DATA", 10);
    for (unsigned row = 0; row < 4; row++)
        for (unsigned l = 0; l < NLOC; l++)
            put_uint(&s->visits_data, 10 * row + l + 1, 2, true);
    /* child: dense INT8 with a negative value. */
    dense_index(&s->child_index);
    s->child_data.n = 0;
    put(&s->child_data, "CUBEX.DATA", 10);
    for (unsigned row = 0; row < 6; row++)
        for (unsigned l = 0; l < NLOC; l++)
            put_uint(&s->child_data, (uint8_t)(row == 1 && l == 0 ? -3 : (int)row), 1, false);
    /* time: INCLUSIVE, position p holds 100 + p + l / 10. */
    static const uint32_t tpos[] = { 0, 1, 2, 3, 4, 5 };
    sparse_index(&s->time_index, tpos, 6, false);
    s->time_data.n = 0;
    put(&s->time_data, "CUBEX.DATA", 10);
    for (unsigned p = 0; p < 6; p++)
        for (unsigned l = 0; l < NLOC; l++) {
            double d = 100 + p + l / 10.0;
            put(&s->time_data, &d, sizeof(d));
        }
}

static unsigned char tarbuf[1 << 16];

static size_t synthetic_tar(const synthetic *s, const char *anchor, bool drop_time_data)
{
    blob m[] = {
        { "anchor.xml", anchor, strlen(anchor) },
        { "5.index", s->visits_index.b, s->visits_index.n },
        { "5.data", s->visits_data.b, s->visits_data.n },
        { "7.index", s->child_index.b, s->child_index.n },
        { "7.data", s->child_data.b, s->child_data.n },
        { "1.index", s->time_index.b, s->time_index.n },
        { "1.data", s->time_data.b, s->time_data.n },
    };
    return make_tar(tarbuf, sizeof(tarbuf), m, drop_time_data ? 6 : 7);
}

static double value(const hp_profile_metric *m, size_t cnode, size_t loc)
{
    return m->dtype == HP_DTYPE_UINT64 ? (double)((const uint64_t *)m->values)[cnode * NLOC + loc]
                                       : ((const double *)m->values)[cnode * NLOC + loc];
}

/* ------------------------------------------------------------------ tests */

TEST(scorep_call_tree_test_csv)
{
    return check_sample_csvs("scorep84_call_tree_test");
}

TEST(scorep_time_p4_csv_non_dfs_ids)
{
    return check_sample_csvs("time_p4_profile");
}

/* CubeW golden file: visits[c][l] = 100c + l, exclusive time[c][l] = c + l/10 for c < 4,
 * cnode 4 not stored (sparse) for time. */
TEST(cubew_reference_values)
{
    hp_cube_profile cp;
    char err[512];
    ASSERT_INT_EQ(hp_cube_read(HP_SAMPLES_DIR "/reference_cubew482.cubex", &cp, err,
                               sizeof(err)), 0);
    const hp_profile *p = &cp.profile;
    ASSERT_UINT_EQ(p->nlocations, 4);
    ASSERT_UINT_EQ(p->nprocesses, 2);
    const hp_profile_metric *visits = hp_profile_find_metric(p, "visits");
    const hp_profile_metric *time = hp_profile_find_metric(p, "time");
    ASSERT(visits != NULL && time != NULL);
    for (size_t c = 0; c < p->ncnodes; c++)
        for (size_t l = 0; l < 4; l++) {
            bool *sel = only_location(p, l);
            hp_metric_view v;
            ASSERT(hp_metric_view_init(&v, p, time, sel) == 0);
            uint32_t id = cp.file_cnode_ids[c];
            ASSERT_UINT_EQ(((const uint64_t *)visits->values)[c * 4 + l], 100 * id + l);
            double want = id < 4 ? id + l / 10.0 : 0;
            if (!close_enough(v.excl[c], want))
                HP_TEST_FAIL("cnode %u loc %zu: excl time %g, want %g", id, l, v.excl[c], want);
            hp_metric_view_release(&v);
            free(sel);
        }
    hp_cube_profile_release(&cp);
    return 0;
}

/* Every sample that cubecheck passes reads, and so do the dense-index file (8 roots) and
 * the two files whose padding breaks one of the other readers. */
TEST(every_sample_reads)
{
    static const char *const files[] = {
        "cube_values_example_alldtypes", "cubelib_proxy_dense_index_8roots",
        "kripke_p8_profile", "minimal", "quirk_cubew48_checksum_bug", "recommended",
        "reference_cubew482", "scorep84_call_tree_test", "time_p4_profile",
        "quirk_aligned_member_cubewpad", "quirk_aligned_member_stdpad",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[512], err[512];
        hp_cube_profile cp;
        snprintf(path, sizeof(path), "%s/%s.cubex", HP_SAMPLES_DIR, files[i]);
        if (hp_cube_read(path, &cp, err, sizeof(err)) != 0)
            HP_TEST_FAIL("%s", err);
        ASSERT(cp.profile.ncnodes > 0 && cp.profile.cnodes[0].parent == HP_PROFILE_NO_PARENT);
        for (size_t c = 1; c < cp.profile.ncnodes; c++)
            ASSERT(cp.profile.cnodes[c].parent < c);
        hp_cube_profile_release(&cp);
    }
    return 0;
}

TEST(dense_index_and_eight_roots)
{
    hp_cube_profile cp;
    char err[512];
    ASSERT_INT_EQ(hp_cube_read(HP_SAMPLES_DIR "/cubelib_proxy_dense_index_8roots.cubex", &cp,
                               err, sizeof(err)), 0);
    const hp_profile *p = &cp.profile;
    size_t roots = 0;
    for (size_t c = 0; c < p->ncnodes; c++)
        roots += p->cnodes[c].parent == 0;
    ASSERT_UINT_EQ(roots, 8);
    ASSERT_STR_EQ(p->regions[p->cnodes[0].region].name, "cubelib_proxy_dense_index_8roots.cubex");
    ASSERT_STR_EQ(p->regions[p->cnodes[0].region].role, "artificial");
    ASSERT_UINT_EQ(cp.file_cnode_ids[0], UINT32_MAX);
    hp_cube_profile_release(&cp);
    return 0;
}

TEST(alldtypes_narrow_integers)
{
    hp_cube_profile cp;
    char err[512];
    ASSERT_INT_EQ(hp_cube_read(HP_SAMPLES_DIR "/cube_values_example_alldtypes.cubex", &cp, err,
                               sizeof(err)), 0);
    static const char *const ints[] = { "INT8", "UINT8", "INT16", "UINT16",
                                        "INT32", "UINT32", "INT64", "UINT64" };
    const hp_profile_metric *ref = hp_profile_find_metric(&cp.profile, "UINT64");
    ASSERT(ref != NULL);
    for (size_t i = 0; i < 8; i++) {
        const hp_profile_metric *m = hp_profile_find_metric(&cp.profile, ints[i]);
        ASSERT(m != NULL);
        ASSERT_INT_EQ(m->dtype, HP_DTYPE_UINT64);
        for (size_t k = 0; k < cp.profile.ncnodes * cp.profile.nlocations; k++)
            ASSERT_UINT_EQ(((const uint64_t *)m->values)[k], ((const uint64_t *)ref->values)[k]);
    }
    ASSERT(hp_profile_find_metric(&cp.profile, "RATE") == NULL);        /* not one number */
    ASSERT(hp_profile_find_metric(&cp.profile, "HISTOGRAM5") == NULL);
    ASSERT_INT_EQ(hp_profile_find_metric(&cp.profile, "MINDOUBLE")->dtype, HP_DTYPE_MINDOUBLE);
    hp_cube_profile_release(&cp);
    return 0;
}

TEST(synthetic_orders_roots_dtypes)
{
    static synthetic s;
    build_synthetic(&s);
    size_t n = synthetic_tar(&s, synthetic_anchor, false);
    hp_cube_profile cp;
    char err[512];
    if (hp_cube_read_memory("syn.cubex", tarbuf, n, &cp, err, sizeof(err)) != 0)
        HP_TEST_FAIL("%s", err);
    const hp_profile *p = &cp.profile;
    /* artificial root + 6 cnodes in document order */
    ASSERT_UINT_EQ(p->ncnodes, 7);
    static const uint32_t ids[] = { UINT32_MAX, 4, 2, 0, 1, 3, 5 };
    static const uint32_t parents[] = { HP_PROFILE_NO_PARENT, 0, 1, 2, 1, 4, 0 };
    for (size_t c = 0; c < 7; c++) {
        ASSERT_UINT_EQ(cp.file_cnode_ids[c], ids[c]);
        ASSERT_UINT_EQ(p->cnodes[c].parent, parents[c]);
    }
    ASSERT_STR_EQ(p->regions[p->cnodes[3].region].name, "baz & co");
    ASSERT_STR_EQ(p->regions[p->cnodes[6].region].name, "other<1>");
    ASSERT_STR_EQ(p->regions[p->cnodes[1].region].paradigm, "compiler");
    ASSERT_STR_EQ(p->regions[p->cnodes[2].region].paradigm, "unknown");
    /* legacy system tree */
    ASSERT_UINT_EQ(p->nprocesses, 2);
    ASSERT_UINT_EQ(p->nlocations, 3);
    ASSERT_INT_EQ(p->processes[1].rank, 1);
    ASSERT_UINT_EQ(p->locations[2].process, 1);
    ASSERT_INT_EQ(p->locations[1].thread, 1);
    ASSERT_STR_EQ(p->nodes[0].name, "n0");
    ASSERT_STR_EQ(p->machine_name, "M");
    /* metrics: derived left out, nodata zeros, child in the metric tree */
    ASSERT_UINT_EQ(p->nmetrics, 4);
    ASSERT(hp_profile_find_metric(p, "derived") == NULL);
    const hp_profile_metric *visits = hp_profile_find_metric(p, "visits");
    const hp_profile_metric *child = hp_profile_find_metric(p, "child");
    const hp_profile_metric *time = hp_profile_find_metric(p, "time");
    const hp_profile_metric *nodata = hp_profile_find_metric(p, "nodata");
    ASSERT(visits && child && time && nodata);
    ASSERT_STR_EQ(cp.metric_info[child - p->metrics].parent_name, "visits");
    ASSERT(!cp.metric_info[nodata - p->metrics].has_data);
    ASSERT(cp.metric_info[time - p->metrics].has_data);
    for (size_t c = 0; c < 7; c++)
        for (size_t l = 0; l < NLOC; l++)
            ASSERT(value(nodata, c, l) == 0);
    /* visits: swapped UINT16 at document positions 0 2 3 5 -> profile cnodes 1 3 4 6 */
    ASSERT_INT_EQ(visits->dtype, HP_DTYPE_UINT64);
    static const size_t vcnode[] = { 1, 3, 4, 6 };
    for (unsigned row = 0; row < 4; row++)
        for (unsigned l = 0; l < NLOC; l++)
            ASSERT(value(visits, vcnode[row], l) == 10 * row + l + 1);
    ASSERT(value(visits, 2, 0) == 0 && value(visits, 5, 0) == 0 && value(visits, 0, 0) == 0);
    /* child: signed with a negative value -> DOUBLE; dense rows in document order */
    ASSERT_INT_EQ(child->dtype, HP_DTYPE_DOUBLE);
    ASSERT(value(child, 2, 0) == -3 && value(child, 2, 1) == 1 && value(child, 6, 2) == 5);
    /* time: INCLUSIVE wide order = documents 0 1 3 2 4 5 */
    static const size_t tdoc[] = { 0, 1, 3, 2, 4, 5 };
    for (unsigned pos = 0; pos < 6; pos++)
        for (unsigned l = 0; l < NLOC; l++)
            if (!close_enough(value(time, tdoc[pos] + 1, l), 100 + pos + l / 10.0))
                HP_TEST_FAIL("time at position %u loc %u: %g", pos, l,
                             value(time, tdoc[pos] + 1, l));
    /* the artificial root sums the two roots' inclusive time */
    ASSERT(close_enough(value(time, 0, 0), 100 + 105));
    hp_cube_profile_release(&cp);
    return 0;
}

/* Reads data that must fail; the message must name the file and contain want. */
static int expect_error(const void *data, size_t n, const char *want)
{
    hp_cube_profile cp;
    char err[512] = "";
    if (hp_cube_read_memory("bad.cubex", data, n, &cp, err, sizeof(err)) == 0) {
        hp_cube_profile_release(&cp);
        HP_TEST_FAIL("bad input read without error (want \"%s\")", want);
    }
    ASSERT(strncmp(err, "bad.cubex: ", 11) == 0);
    ASSERT(strchr(err, '\n') == NULL);
    ASSERT_STR_CONTAINS(err, want);
    return 0;
}

static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    char *r = malloc(strlen(s) + strlen(to) + 1);
    sprintf(r, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
    return r;
}

TEST(bad_input_messages)
{
    static synthetic s;
    build_synthetic(&s);
    int rc = expect_error("hello, world\n", 13, "not a Cube4 file");
    rc = rc ? rc : expect_error("", 0, "empty");
    size_t n = synthetic_tar(&s, synthetic_anchor, true);
    rc = rc ? rc : expect_error(tarbuf, n, "1.index without 1.data");
    n = synthetic_tar(&s, synthetic_anchor, false);
    rc = rc ? rc : expect_error(tarbuf, n / 2, "truncated");
    struct {
        const char *from, *to, *want;
    } edits[] = {
        { "version=\"4.4\"", "version=\"5.0\"", "unsupported Cube version \"5.0\"" },
        { "calleeId=\"4\"", "calleeId=\"9\"", "undefined region 9" },
        { "<thread Id=\"2\">", "<thread Id=\"7\">", "location id 7" },
        { "</program>", "</programm>", "mismatched tag" },
        { "<cnode id=\"5\" calleeId=\"4\">", "<cnode calleeId=\"4\">", "valid id" },
        { "<rank>1</rank><thread", "<rank>one</rank><thread", "not an integer" },
    };
    for (size_t i = 0; rc == 0 && i < sizeof(edits) / sizeof(edits[0]); i++) {
        char *anchor = replace(synthetic_anchor, edits[i].from, edits[i].to);
        n = synthetic_tar(&s, anchor, false);
        rc = expect_error(tarbuf, n, edits[i].want);
        free(anchor);
    }
    /* truncated data member and unsorted sparse index */
    s.time_data.n -= 5;
    n = synthetic_tar(&s, synthetic_anchor, false);
    rc = rc ? rc : expect_error(tarbuf, n, "1.data: truncated");
    static const uint32_t unsorted[] = { 0, 2, 1, 3, 4, 5 };
    build_synthetic(&s);
    sparse_index(&s.time_index, unsorted, 6, false);
    n = synthetic_tar(&s, synthetic_anchor, false);
    rc = rc ? rc : expect_error(tarbuf, n, "out of order");
    blob only_data[] = { { "0.data", "CUBEX.DATA", 10 } };
    n = make_tar(tarbuf, sizeof(tarbuf), only_data, 1);
    rc = rc ? rc : expect_error(tarbuf, n, "no anchor.xml");
    return rc;
}

TEST(zlib_compressed_is_refused)
{
    hp_cube_profile cp;
    char err[512];
    ASSERT_INT_EQ(hp_cube_read(HP_SAMPLES_DIR "/quirk_cubew482_zlib_broken.cubex", &cp, err,
                               sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "quirk_cubew482_zlib_broken.cubex: ");
    ASSERT_STR_CONTAINS(err, "compressed");
    ASSERT_INT_EQ(hp_cube_read("/nonexistent/x.cubex", &cp, err, sizeof(err)), -1);
    ASSERT_STR_CONTAINS(err, "/nonexistent/x.cubex: cannot open");
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(scorep_call_tree_test_csv), TEST_ENTRY(scorep_time_p4_csv_non_dfs_ids),
             TEST_ENTRY(cubew_reference_values), TEST_ENTRY(every_sample_reads),
             TEST_ENTRY(dense_index_and_eight_roots), TEST_ENTRY(alldtypes_narrow_integers),
             TEST_ENTRY(synthetic_orders_roots_dtypes), TEST_ENTRY(bad_input_messages),
             TEST_ENTRY(zlib_compressed_is_refused));
