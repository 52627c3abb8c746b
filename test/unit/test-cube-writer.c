/*
 * Tests of the Cube4 writer (profile/cube_writer.c). Profiles are built by hand,
 * written into a temporary directory, and then checked from outside: the
 * structural checker (test/tools/cubecheck.py) must pass without errors or warnings,
 * and the independent reader test/tools/cubedump.py must print exactly the values the
 * test put in. The sparse index bytes are also checked here against the format doc, and
 * cubedump.py itself is checked against files written by CubeW/Score-P with known values,
 * so that a bug shared by writer and reader cannot hide.
 *
 * Paths: HP_SRCDIR (top source dir, default "."), so that it runs by hand from the top
 * of the tree; the checker and the sample files are in test/tools and test/data there.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/cube_writer.h"
#include "test.h"

#define PY "/usr/bin/python3"

/* ------------------------------------------------------------------ helpers */

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? v : dflt;
}

static const char *srcdir(void)
{
    return env_or("HP_SRCDIR", ".");
}

/* Sample files written by other tools (test/data/SOURCES.md). */
static const char *datadir(void)
{
    static char dir[4096];
    if (!dir[0])
        snprintf(dir, sizeof dir, "%s/test/data", srcdir());
    return dir;
}

/* A fresh directory for one test's files; removed by remove_tmpdir on success (kept for
 * inspection when a test fails). */
static char *make_tmpdir(char *buf, size_t len)
{
    snprintf(buf, len, "%s/hp-cube-test-XXXXXX", env_or("TMPDIR", "/tmp"));
    return mkdtemp(buf);
}

static void remove_tmpdir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* Runs a shell command, returns its output (stdout and stderr, malloc'd) and exit
 * status (-1 if it did not exit normally). */
static char *run(const char *cmd, int *status)
{
    FILE *f = popen(cmd, "r");
    if (!f) {
        *status = -1;
        return NULL;
    }
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    size_t n;
    while (out && (n = fread(out + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *bigger = realloc(out, cap *= 2);
            if (!bigger)
                free(out);
            out = bigger;
        }
    }
    if (out)
        out[len] = '\0';
    int st = pclose(f);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

/* cubedump.py [option] file, stdout and stderr; NULL when it failed. */
static char *cubedump(const char *option, const char *file)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, PY " '%s/test/tools/cubedump.py' %s '%s' 2>&1", srcdir(),
             option, file);
    int status;
    char *out = run(cmd, &status);
    if (status != 0) {
        fprintf(stderr, "%s -> exit %d:\n%s\n", cmd, status, out ? out : "");
        free(out);
        return NULL;
    }
    return out;
}

/* 0 when cubecheck.py exits 0 and prints neither ERROR nor WARN lines. */
static int cubecheck(const char *file)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, PY " '%s/test/tools/cubecheck.py' '%s' 2>&1", srcdir(), file);
    int status;
    char *out = run(cmd, &status);
    int bad = status != 0 || !out || strstr(out, "ERROR") || strstr(out, "WARN");
    if (bad)
        fprintf(stderr, "%s -> exit %d:\n%s\n", cmd, status, out ? out : "");
    free(out);
    return bad ? -1 : 0;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
        rewind(f);
        if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
            buf[n] = '\0';
            *len = (size_t)n;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

/* Finds member name in a ustar archive held in memory (512-byte headers, octal size,
 * data padded to 512); returns a pointer to its bytes and its size, or NULL. */
static const char *tar_member(const char *tar, size_t len, const char *name, size_t *size)
{
    size_t pos = 0;
    while (pos + 512 <= len && tar[pos] != '\0') {
        char field[13];
        memcpy(field, tar + pos + 124, 12);
        field[12] = '\0';
        size_t sz = (size_t)strtoull(field, NULL, 8);
        if (strncmp(tar + pos, name, 100) == 0) {
            *size = sz;
            return tar + pos + 512;
        }
        pos += 512 + (sz + 511) / 512 * 512;
    }
    return NULL;
}

/* The positions of a SPARSE index member as "a,b,c" (native byte order, as written). */
static int index_positions(const char *tar, size_t len, const char *name, char *out,
                           size_t outlen)
{
    size_t sz;
    const char *ix = tar_member(tar, len, name, &sz);
    if (!ix || sz < 22 || memcmp(ix, "CUBEX.INDEX", 11) != 0 || ix[17] != 1)
        return -1;
    uint32_t n;
    memcpy(&n, ix + 18, 4);
    if (sz != 22 + 4 * (size_t)n)
        return -1;
    out[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, ix + 22 + 4 * i, 4);
        snprintf(out + strlen(out), outlen - strlen(out), "%s%u", i ? "," : "", v);
    }
    return 0;
}

/* The number after "\tkey=" in line, NAN when absent. */
static double field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\t%s=", key);
    const char *p = strstr(line, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

static int close_enough(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want) + 1e-9;
}

/* ------------------------------------------------------------------ fixtures */

enum { TREE_CNODES = 5, TREE_LOCS = 4, TREE_METRICS = 6 };

/* main -> {foo -> baz, bar -> baz}; ranks 0 and 1 on nodes n01 and n02, two threads
 * each; Score-P's four metrics plus an EXCLUSIVE and an INCLUSIVE extra. bar/baz was
 * never visited (all zero): only the min/max metrics' indexes list it
 * (doc/formats/cube-reader-rules.md, R1). */
typedef struct tree_fixture {
    hp_profile_region regions[4];
    hp_profile_cnode cnodes[TREE_CNODES];
    hp_profile_node nodes[2];
    hp_profile_process processes[2];
    hp_profile_location locations[TREE_LOCS];
    uint64_t visits[TREE_CNODES * TREE_LOCS];
    double time[TREE_CNODES * TREE_LOCS];
    double min_time[TREE_CNODES * TREE_LOCS];
    double max_time[TREE_CNODES * TREE_LOCS];
    uint64_t bytes_sent[TREE_CNODES * TREE_LOCS];
    uint64_t alloc_bytes[TREE_CNODES * TREE_LOCS];
    hp_profile_metric metrics[TREE_METRICS];
    hp_profile profile;
} tree_fixture;

static void tree_regions(tree_fixture *f)
{
    static const hp_profile_region r[4] = {
        { "main", "main", "app.c", 10, 19, "compiler", "function", false },
        { "foo", "foo", "app.c", 20, 29, "compiler", "function", false },
        { "bar", "bar", "app.c", 30, 39, "compiler", "function", false },
        { "baz", "_Z3bazv", "lib.c", 40, -1, "compiler", "function", false },
    };
    static const hp_profile_cnode c[TREE_CNODES] = {
        { HP_PROFILE_NO_PARENT, 0 }, { 0, 1 }, { 1, 3 }, { 0, 2 }, { 3, 3 },
    };
    memcpy(f->regions, r, sizeof r);
    memcpy(f->cnodes, c, sizeof c);
}

static void tree_system(tree_fixture *f)
{
    f->nodes[0].name = "n01";
    f->nodes[1].name = "n02";
    for (int q = 0; q < 2; q++)
        f->processes[q] = (hp_profile_process){ .rank = q, .node = (uint32_t)q };
    for (int l = 0; l < TREE_LOCS; l++)
        f->locations[l] = (hp_profile_location){ l % 2 ? "Pthread 1" : "Master thread",
                                                 l % 2, (uint32_t)(l / 2) };
}

/* Exclusive time (c+1) + l/4 except bar/baz; binary fractions keep the sums exact. */
static double tree_excl_time(int c, int l)
{
    return c == 4 ? 0.0 : (c + 1) + 0.25 * l;
}

static void tree_values(tree_fixture *f)
{
    for (int c = TREE_CNODES - 1; c >= 0; c--) {
        for (int l = 0; l < TREE_LOCS; l++) {
            int i = c * TREE_LOCS + l;
            int seen = c != 4;
            f->visits[i] = seen ? (uint64_t)(10 * (c + 1) + l) : 0;
            f->min_time[i] = seen ? 0.5 * (c + 1) + 0.125 * l : 0.0;
            f->max_time[i] = seen ? 2.0 * (c + 1) + 0.5 * l : 0.0;
            f->bytes_sent[i] = c == 3 && l == 2 ? 4096 : 0;
            /* inclusive: own part plus the children's inclusive values (later rows) */
            f->time[i] = tree_excl_time(c, l);
            f->alloc_bytes[i] = l == 0 && c == 1 ? 60 : l == 0 && c == 2 ? 40 : 0;
            for (int k = c + 1; k < TREE_CNODES; k++)
                if (f->cnodes[k].parent == (uint32_t)c) {
                    f->time[i] += f->time[k * TREE_LOCS + l];
                    f->alloc_bytes[i] += f->alloc_bytes[k * TREE_LOCS + l];
                }
        }
    }
}

static void tree_metrics(tree_fixture *f)
{
    hp_profile_metric m[TREE_METRICS] = {
        { "visits", "Visits", "occ", "Number of visits", HP_DTYPE_UINT64,
          HP_METRIC_EXCLUSIVE, f->visits, NULL },
        { "time", "Time", "sec", "Total CPU allocation time", HP_DTYPE_DOUBLE,
          HP_METRIC_INCLUSIVE, f->time, NULL },
        { "min_time", "Minimum Inclusive Time", "sec", "Minimum inclusive CPU allocation time",
          HP_DTYPE_MINDOUBLE, HP_METRIC_EXCLUSIVE, f->min_time, NULL },
        { "max_time", "Maximum Inclusive Time", "sec", "Maximum inclusive CPU allocation time",
          HP_DTYPE_MAXDOUBLE, HP_METRIC_EXCLUSIVE, f->max_time, NULL },
        { "bytes_sent", "bytes_sent", "bytes", "Bytes sent", HP_DTYPE_UINT64,
          HP_METRIC_EXCLUSIVE, f->bytes_sent, NULL },
        { "alloc_bytes", "Allocated bytes", "bytes", "Bytes allocated", HP_DTYPE_UINT64,
          HP_METRIC_INCLUSIVE, f->alloc_bytes, NULL },
    };
    memcpy(f->metrics, m, sizeof m);
}

static void tree_fixture_init(tree_fixture *f)
{
    memset(f, 0, sizeof *f);
    tree_regions(f);
    tree_system(f);
    tree_values(f);
    tree_metrics(f);
    f->profile = (hp_profile){
        .creator = "hpmeasure test", .machine_name = "Linux",
        .regions = f->regions, .nregions = 4, .cnodes = f->cnodes, .ncnodes = TREE_CNODES,
        .nodes = f->nodes, .nnodes = 2, .processes = f->processes, .nprocesses = 2,
        .locations = f->locations, .nlocations = TREE_LOCS,
        .metrics = f->metrics, .nmetrics = TREE_METRICS,
    };
}

/* One region, one cnode, one thread; visits = 1, time = 0 everywhere (an all-zero metric
 * still gets its row: pycubexr asserts a non-empty index). */
typedef struct single_fixture {
    hp_profile_region region;
    hp_profile_cnode cnode;
    hp_profile_node node;
    hp_profile_process process;
    hp_profile_location location;
    uint64_t visits;
    double time;
    hp_profile_metric metrics[2];
    hp_profile profile;
} single_fixture;

static void single_fixture_init(single_fixture *f, const char *name)
{
    memset(f, 0, sizeof *f);
    f->region = (hp_profile_region){ name, "x", "", -1, -1, "user", "function", false };
    f->cnode = (hp_profile_cnode){ HP_PROFILE_NO_PARENT, 0 };
    f->node.name = "localhost";
    f->location = (hp_profile_location){ "Master thread", 0, 0 };
    f->visits = 1;
    f->metrics[0] = (hp_profile_metric){ "visits", "Visits", "occ", "Number of visits",
                                         HP_DTYPE_UINT64, HP_METRIC_EXCLUSIVE, &f->visits, NULL };
    f->metrics[1] = (hp_profile_metric){ "time", "Time", "sec", "Total CPU allocation time",
                                         HP_DTYPE_DOUBLE, HP_METRIC_INCLUSIVE, &f->time, NULL };
    f->profile = (hp_profile){
        .creator = "hpmeasure test", .machine_name = "Linux",
        .regions = &f->region, .nregions = 1, .cnodes = &f->cnode, .ncnodes = 1,
        .nodes = &f->node, .nnodes = 1, .processes = &f->process, .nprocesses = 1,
        .locations = &f->location, .nlocations = 1, .metrics = f->metrics, .nmetrics = 2,
    };
}

/* Writes p to dir/name, failing the test on error. */
#define WRITE_OK(p, file)                                                              \
    do {                                                                               \
        char err_[512];                                                                \
        int rc_ = hp_cube_write((p), (file), err_, sizeof err_);                       \
        if (rc_ != 0)                                                                  \
            HP_TEST_FAIL("hp_cube_write(%s) = %d: %s", (file), rc_, err_);             \
    } while (0)

/* ------------------------------------------------------------------ tests */

static const char tree_expected_values[] =
    "main\t0\tvisits=10\ttime_incl=10.000000000\ttime_excl=1.000000000\tmin_time=0.500000000\tmax_time=2.000000000\tbytes_sent=0\talloc_bytes_incl=100\talloc_bytes_excl=0\n"
    "main\t1\tvisits=11\ttime_incl=11.000000000\ttime_excl=1.250000000\tmin_time=0.625000000\tmax_time=2.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main\t2\tvisits=12\ttime_incl=12.000000000\ttime_excl=1.500000000\tmin_time=0.750000000\tmax_time=3.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main\t3\tvisits=13\ttime_incl=13.000000000\ttime_excl=1.750000000\tmin_time=0.875000000\tmax_time=3.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/foo\t0\tvisits=20\ttime_incl=5.000000000\ttime_excl=2.000000000\tmin_time=1.000000000\tmax_time=4.000000000\tbytes_sent=0\talloc_bytes_incl=100\talloc_bytes_excl=60\n"
    "main/foo\t1\tvisits=21\ttime_incl=5.500000000\ttime_excl=2.250000000\tmin_time=1.125000000\tmax_time=4.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/foo\t2\tvisits=22\ttime_incl=6.000000000\ttime_excl=2.500000000\tmin_time=1.250000000\tmax_time=5.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/foo\t3\tvisits=23\ttime_incl=6.500000000\ttime_excl=2.750000000\tmin_time=1.375000000\tmax_time=5.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/foo/baz\t0\tvisits=30\ttime_incl=3.000000000\ttime_excl=3.000000000\tmin_time=1.500000000\tmax_time=6.000000000\tbytes_sent=0\talloc_bytes_incl=40\talloc_bytes_excl=40\n"
    "main/foo/baz\t1\tvisits=31\ttime_incl=3.250000000\ttime_excl=3.250000000\tmin_time=1.625000000\tmax_time=6.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/foo/baz\t2\tvisits=32\ttime_incl=3.500000000\ttime_excl=3.500000000\tmin_time=1.750000000\tmax_time=7.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/foo/baz\t3\tvisits=33\ttime_incl=3.750000000\ttime_excl=3.750000000\tmin_time=1.875000000\tmax_time=7.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar\t0\tvisits=40\ttime_incl=4.000000000\ttime_excl=4.000000000\tmin_time=2.000000000\tmax_time=8.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar\t1\tvisits=41\ttime_incl=4.250000000\ttime_excl=4.250000000\tmin_time=2.125000000\tmax_time=8.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar\t2\tvisits=42\ttime_incl=4.500000000\ttime_excl=4.500000000\tmin_time=2.250000000\tmax_time=9.000000000\tbytes_sent=4096\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar\t3\tvisits=43\ttime_incl=4.750000000\ttime_excl=4.750000000\tmin_time=2.375000000\tmax_time=9.500000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar/baz\t0\tvisits=0\ttime_incl=0.000000000\ttime_excl=0.000000000\tmin_time=0.000000000\tmax_time=0.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar/baz\t1\tvisits=0\ttime_incl=0.000000000\ttime_excl=0.000000000\tmin_time=0.000000000\tmax_time=0.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar/baz\t2\tvisits=0\ttime_incl=0.000000000\ttime_excl=0.000000000\tmin_time=0.000000000\tmax_time=0.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n"
    "main/bar/baz\t3\tvisits=0\ttime_incl=0.000000000\ttime_excl=0.000000000\tmin_time=0.000000000\tmax_time=0.000000000\tbytes_sent=0\talloc_bytes_incl=0\talloc_bytes_excl=0\n";

static const char tree_expected_paths[] =
    "main\nmain/foo\nmain/foo/baz\nmain/bar\nmain/bar/baz\n";

static const char tree_expected_regions[] =
    "0\tmain\tmain\tapp.c\t10\tcompiler\tfunction\n"
    "1\tfoo\tfoo\tapp.c\t20\tcompiler\tfunction\n"
    "2\tbar\tbar\tapp.c\t30\tcompiler\tfunction\n"
    "3\tbaz\t_Z3bazv\tlib.c\t40\tcompiler\tfunction\n";

static const char tree_expected_locations[] =
    "0\tmachine Linux/node n01\tMPI Rank 0\t0\tMaster thread\t0\n"
    "1\tmachine Linux/node n01\tMPI Rank 0\t0\tPthread 1\t1\n"
    "2\tmachine Linux/node n02\tMPI Rank 1\t1\tMaster thread\t0\n"
    "3\tmachine Linux/node n02\tMPI Rank 1\t1\tPthread 1\t1\n";

#define ASSERT_DUMP(option, file, expected)                                            \
    do {                                                                               \
        char *out_ = cubedump(option, file);                                           \
        ASSERT(out_ != NULL);                                                          \
        int same_ = strcmp(out_, expected) == 0;                                       \
        if (!same_)                                                                    \
            fprintf(stderr, "cubedump %s: got\n%s\nexpected\n%s\n", option, out_,      \
                    expected);                                                         \
        free(out_);                                                                    \
        ASSERT(same_);                                                                 \
    } while (0)

TEST(tree_profile_reads_back)
{
    char dir[4096], file[4200];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/profile.cubex", dir);
    tree_fixture f;
    tree_fixture_init(&f);
    WRITE_OK(&f.profile, file);
    ASSERT_INT_EQ(cubecheck(file), 0);
    ASSERT_DUMP("", file, tree_expected_values);
    ASSERT_DUMP("--paths", file, tree_expected_paths);
    ASSERT_DUMP("--regions", file, tree_expected_regions);
    ASSERT_DUMP("--locations", file, tree_expected_locations);
    remove_tmpdir(dir);
    return 0;
}

/* The index rows are enumeration positions (format doc §3): DFS pre-order for EXCLUSIVE
 * metrics, CubeLib's wide order main, foo, bar, foo/baz, bar/baz for INCLUSIVE ones.
 * Sum metrics list only their non-zero rows; min_time and max_time list every call
 * path, zero rows included, because pycubexr cannot build a missing min/max row
 * (cube-reader-rules.md, R1). */
TEST(tree_index_rows_by_metric_kind)
{
    char dir[4096], file[4200], pos[256];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/profile.cubex", dir);
    tree_fixture f;
    tree_fixture_init(&f);
    WRITE_OK(&f.profile, file);
    size_t len;
    char *tar = read_file(file, &len);
    ASSERT(tar != NULL);
    static const char *const want[TREE_METRICS] = {
        "0,1,2,3",   /* visits: bar/baz (4) never visited */
        "0,1,2,3",   /* time: wide positions of cnodes 0,1,3,2 */
        "0,1,2,3,4", /* min_time: every call path */
        "0,1,2,3,4", /* max_time: every call path */
        "3",         /* bytes_sent: only bar */
        "0,1,3",     /* alloc_bytes: main, foo, foo/baz (bar is position 2) */
    };
    for (int m = 0; m < TREE_METRICS; m++) {
        char name[32];
        snprintf(name, sizeof name, "%d.index", m);
        ASSERT_INT_EQ(index_positions(tar, len, name, pos, sizeof pos), 0);
        ASSERT_STR_EQ(pos, want[m]);
    }
    size_t sz;
    const char *data = tar_member(tar, len, "5.data", &sz);
    ASSERT(data != NULL);
    ASSERT_UINT_EQ(sz, 10 + 3 * TREE_LOCS * 8);
    ASSERT(memcmp(data, "CUBEX.DATA", 10) == 0);
    data = tar_member(tar, len, "3.data", &sz);
    ASSERT(data != NULL);
    ASSERT_UINT_EQ(sz, 10 + TREE_CNODES * TREE_LOCS * 8);
    free(tar);
    remove_tmpdir(dir);
    return 0;
}

TEST(names_are_xml_escaped)
{
    char dir[4096], file[4200];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/esc.cubex", dir);
    tree_fixture f;
    tree_fixture_init(&f);
    f.regions[1] = (hp_profile_region){ "operator<<(std::ostream&, char const*)",
                                        "_ZlsRSoPKc", "src/<gen>/\"x\".c", 7, -1, "compiler",
                                        "function", false };
    f.regions[2] = (hp_profile_region){ "a&b", "it's", "", -1, -1, "user", "function", false };
    f.profile.creator = "hp <&> 'test'";
    f.profile.machine_name = "M<1>";
    f.nodes[0].name = "n\"1\"&";
    f.locations[0].name = "T<0>";
    WRITE_OK(&f.profile, file);
    ASSERT_INT_EQ(cubecheck(file), 0);
    ASSERT_DUMP("--regions", file,
                "0\tmain\tmain\tapp.c\t10\tcompiler\tfunction\n"
                "1\toperator<<(std::ostream&, char const*)\t_ZlsRSoPKc\tsrc/<gen>/\"x\".c\t7"
                "\tcompiler\tfunction\n"
                "2\ta&b\tit's\t\t-1\tuser\tfunction\n"
                "3\tbaz\t_Z3bazv\tlib.c\t40\tcompiler\tfunction\n");
    ASSERT_DUMP("--paths", file,
                "main\nmain/operator<<(std::ostream&, char const*)\n"
                "main/operator<<(std::ostream&, char const*)/baz\nmain/a&b\nmain/a&b/baz\n");
    ASSERT_DUMP("--locations", file,
                "0\tmachine M<1>/node n\"1\"&\tMPI Rank 0\t0\tT<0>\t0\n"
                "1\tmachine M<1>/node n\"1\"&\tMPI Rank 0\t0\tPthread 1\t1\n"
                "2\tmachine M<1>/node n02\tMPI Rank 1\t1\tMaster thread\t0\n"
                "3\tmachine M<1>/node n02\tMPI Rank 1\t1\tPthread 1\t1\n");
    size_t len, sz;
    char *tar = read_file(file, &len);
    ASSERT(tar != NULL);
    const char *anchor = tar_member(tar, len, "anchor.xml", &sz);
    ASSERT(anchor != NULL);
    char *xml = strndup(anchor, sz);
    ASSERT_STR_CONTAINS(xml, "<name>operator&lt;&lt;(std::ostream&amp;, char const*)</name>");
    ASSERT_STR_CONTAINS(xml, "<mangled_name>it&apos;s</mangled_name>");
    ASSERT_STR_CONTAINS(xml, "value=\"hp &lt;&amp;&gt; &apos;test&apos;\"");
    ASSERT_STR_CONTAINS(xml, "mod=\"src/&lt;gen&gt;/&quot;x&quot;.c\"");
    ASSERT(strstr(xml, "<!--") == NULL);
    free(xml);
    free(tar);
    remove_tmpdir(dir);
    return 0;
}

/* Bytes XML cannot carry (control characters, invalid UTF-8) become '?'; valid UTF-8
 * passes through. */
TEST(unencodable_bytes_are_replaced)
{
    char dir[4096], file[4200];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/bytes.cubex", dir);
    single_fixture f;
    single_fixture_init(&f, "f\x01g\xff\xc3\xa9\xe2\x82\xac");
    WRITE_OK(&f.profile, file);
    ASSERT_INT_EQ(cubecheck(file), 0);
    ASSERT_DUMP("--paths", file, "f?g?\xc3\xa9\xe2\x82\xac\n");
    remove_tmpdir(dir);
    return 0;
}

TEST(single_node_profile)
{
    char dir[4096], file[4200];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/single.cubex", dir);
    single_fixture f;
    single_fixture_init(&f, "main");
    WRITE_OK(&f.profile, file);
    ASSERT_INT_EQ(cubecheck(file), 0);
    ASSERT_DUMP("", file, "main\t0\tvisits=1\ttime_incl=0.000000000\ttime_excl=0.000000000\n");
    ASSERT_DUMP("--locations", file,
                "0\tmachine Linux/node localhost\tProcess\t0\tMaster thread\t0\n");
    ASSERT_DUMP("--regions", file, "0\tmain\tx\t\t-1\tuser\tfunction\n");
    size_t len;
    char pos[64];
    char *tar = read_file(file, &len);
    ASSERT(tar != NULL);
    ASSERT_INT_EQ(index_positions(tar, len, "1.index", pos, sizeof pos), 0);
    ASSERT_STR_EQ(pos, "0"); /* all-zero metric: still one row */
    free(tar);
    remove_tmpdir(dir);
    return 0;
}

static long anchor_size(const char *file)
{
    size_t len, sz;
    char *tar = read_file(file, &len);
    const char *a = tar ? tar_member(tar, len, "anchor.xml", &sz) : NULL;
    free(tar);
    return a ? (long)sz : -1;
}

/* Grows a region name until anchor.xml would be a multiple of 512 bytes: the writer must
 * add a newline (format doc §1), and the result must still pass the checker. */
TEST(anchor_never_a_multiple_of_512)
{
    char dir[4096], file[4200], name[700];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/pad.cubex", dir);
    single_fixture f;
    long prev = -1;
    for (size_t k = 1; k < 2 * 512 + 2; k++) {
        memset(name, 'n', k);
        name[k] = '\0';
        single_fixture_init(&f, name);
        WRITE_OK(&f.profile, file);
        long size = anchor_size(file);
        ASSERT(size > 0);
        ASSERT(size % 512 != 0);
        if (size == prev) { /* no growth: the previous name was the padded one */
            ASSERT_INT_EQ(size % 512, 1);
            memset(name, 'n', k - 1);
            name[k - 1] = '\0';
            single_fixture_init(&f, name);
            WRITE_OK(&f.profile, file);
            ASSERT_INT_EQ(anchor_size(file) % 512, 1);
            ASSERT_INT_EQ(cubecheck(file), 0);
            char *out = cubedump("", file);
            ASSERT(out != NULL);
            ASSERT(strncmp(out, name, k - 1) == 0);
            free(out);
            remove_tmpdir(dir);
            return 0;
        }
        prev = size;
    }
    HP_TEST_FAIL("never hit an anchor size that is a multiple of 512");
}

TEST(unwritable_directory_fails_cleanly)
{
    char dir[4096], file[4200], err[512];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/no/such/dir/profile.cubex", dir);
    tree_fixture f;
    tree_fixture_init(&f);
    ASSERT_INT_EQ(hp_cube_write(&f.profile, file, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, file);
    ASSERT_STR_CONTAINS(err, strerror(ENOENT));
    ASSERT(strchr(err, '\n') == NULL);
    remove_tmpdir(dir);
    return 0;
}

/* The rename fails (the target is a directory): -1, and no temporary file is left. */
TEST(failed_rename_leaves_no_temporary)
{
    char dir[4096], file[4200], tmp[4300], err[512];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/target", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    ASSERT_INT_EQ(mkdir(file, 0700), 0);
    tree_fixture f;
    tree_fixture_init(&f);
    ASSERT_INT_EQ(hp_cube_write(&f.profile, file, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, file);
    ASSERT(access(tmp, F_OK) != 0);
    remove_tmpdir(dir);
    return 0;
}

TEST(invalid_profile_is_refused)
{
    char dir[4096], file[4200], err[512];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/bad.cubex", dir);
    tree_fixture f;
    tree_fixture_init(&f);
    f.cnodes[4].parent = 1; /* bar/baz under foo after bar: not DFS pre-order */
    ASSERT_INT_EQ(hp_cube_write(&f.profile, file, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "pre-order");
    ASSERT(access(file, F_OK) != 0);
    tree_fixture_init(&f);
    f.metrics[1].dtype = HP_DTYPE_MINDOUBLE; /* INCLUSIVE min: cubew refuses it */
    ASSERT_INT_EQ(hp_cube_write(&f.profile, file, err, sizeof err), -1);
    tree_fixture_init(&f);
    f.locations[3].process = 7;
    ASSERT_INT_EQ(hp_cube_write(&f.profile, file, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "location 3");
    ASSERT_INT_EQ(hp_cube_write(&f.profile, file, NULL, 0), -1);
    ASSERT(access(file, F_OK) != 0);
    remove_tmpdir(dir);
    return 0;
}

/* cubedump.py against the golden file written by CubeW 4.8.2 (test/data/SOURCES.md):
 * visits[c][l] = 100c + l, exclusive time c + l/10 for c < 4, cnode 4 not stored (0);
 * cnodes are in DFS order there, locations 0..3. */
TEST(cubedump_reads_cubew_reference)
{
    char file[4200];
    snprintf(file, sizeof file, "%s/cube/reference_cubew482.cubex", datadir());
    char *out = cubedump("", file);
    ASSERT(out != NULL);
    int k = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), k++) {
        int c = k / 4, l = k % 4;
        if (field(line, "visits") != 100 * c + l ||
            !close_enough(field(line, "time_excl"), c < 4 ? c + l / 10.0 : 0.0, 1e-12))
            HP_TEST_FAIL("line %d (cnode %d, location %d): %s", k, c, l, line);
    }
    free(out);
    ASSERT_INT_EQ(k, 20);
    ASSERT_DUMP("--paths", file, "main\nmain/foo\nmain/foo/baz\nmain/bar\nmain/bar/baz\n");
    return 0;
}

/* Compares cubedump.py's line for each cnode with a cube_dump CSV (one location; cnode
 * ids in DFS order, so line i is cnode i). */
static int compare_csv(const char *csv_path, char **lines, int nlines, const char *const *keys)
{
    size_t len;
    char *csv = read_file(csv_path, &len);
    if (!csv)
        HP_TEST_FAIL("cannot read %s", csv_path);
    int rows = 0;
    char *save;
    strtok_r(csv, "\n", &save); /* header: Cnode ID, Thread ID, visits, time, min, max */
    for (char *row = strtok_r(NULL, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
        int cid, loc;
        double v[4];
        if (sscanf(row, "%d,%d,%lf,%lf,%lf,%lf", &cid, &loc, &v[0], &v[1], &v[2], &v[3]) != 6 ||
            loc != 0 || cid < 0 || cid >= nlines)
            HP_TEST_FAIL("%s: unexpected row %s", csv_path, row);
        for (int i = 0; i < 4; i++)
            if (keys[i] && !close_enough(field(lines[cid], keys[i]), v[i], 1e-5))
                HP_TEST_FAIL("%s cnode %d %s: cubedump %s, csv %g", csv_path, cid, keys[i],
                             lines[cid], v[i]);
        rows++;
    }
    free(csv);
    if (rows != nlines)
        HP_TEST_FAIL("%s: %d rows for %d cubedump lines", csv_path, rows, nlines);
    return 0;
}

/* cubedump.py against a Score-P 8.4 profile and cube_dump's CSVs of it (from pycubexr's
 * test data, see test/data/SOURCES.md). min/max are compared with the exclusive CSV only:
 * the inclusive CSV aggregates them over subtrees, cubedump prints them as stored. */
TEST(cubedump_matches_scorep_csv)
{
    char file[4200], csv[4200];
    const char *base = "cube/scorep84_call_tree_test";
    snprintf(file, sizeof file, "%s/%s.cubex", datadir(), base);
    char *out = cubedump("", file);
    ASSERT(out != NULL);
    char *lines[64];
    int n = 0;
    for (char *line = strtok(out, "\n"); line && n < 64; line = strtok(NULL, "\n"))
        lines[n++] = line;
    ASSERT_INT_EQ(n, 18);
    static const char *const excl_keys[4] = { "visits", "time_excl", "min_time", "max_time" };
    static const char *const incl_keys[4] = { NULL, "time_incl", NULL, NULL };
    snprintf(csv, sizeof csv, "%s/%s.excl.csv", datadir(), base);
    int rc = compare_csv(csv, lines, n, excl_keys);
    snprintf(csv, sizeof csv, "%s/%s.incl.csv", datadir(), base);
    rc = rc ? rc : compare_csv(csv, lines, n, incl_keys);
    ASSERT_STR_CONTAINS(lines[2], "test.x/main/signed char\t0\t");
    free(out);
    return rc;
}

TEST(cubedump_rejects_broken_files)
{
    char dir[4096], file[4200], cmd[8400];
    ASSERT(make_tmpdir(dir, sizeof dir) != NULL);
    snprintf(file, sizeof file, "%s/not-a-tar.cubex", dir);
    FILE *f = fopen(file, "w");
    ASSERT(f != NULL);
    fputs("hello\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, PY " '%s/test/tools/cubedump.py' '%s' 2>&1", srcdir(), file);
    int status;
    char *out = run(cmd, &status);
    ASSERT_INT_EQ(status, 1);
    ASSERT_STR_CONTAINS(out, "not-a-tar.cubex");
    free(out);
    snprintf(cmd, sizeof cmd,
             PY " '%s/test/tools/cubedump.py' '%s/cube/"
                "quirk_aligned_member_cubewpad.cubex' 2>&1",
             srcdir(), datadir());
    out = run(cmd, &status);
    ASSERT_INT_EQ(status, 1);
    ASSERT_STR_CONTAINS(out, "multiple of 512");
    free(out);
    remove_tmpdir(dir);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(tree_profile_reads_back), TEST_ENTRY(tree_index_rows_by_metric_kind),
             TEST_ENTRY(names_are_xml_escaped), TEST_ENTRY(unencodable_bytes_are_replaced),
             TEST_ENTRY(single_node_profile), TEST_ENTRY(anchor_never_a_multiple_of_512),
             TEST_ENTRY(unwritable_directory_fails_cleanly),
             TEST_ENTRY(failed_rename_leaves_no_temporary),
             TEST_ENTRY(invalid_profile_is_refused), TEST_ENTRY(cubedump_reads_cubew_reference),
             TEST_ENTRY(cubedump_matches_scorep_csv), TEST_ENTRY(cubedump_rejects_broken_files));
