/*
 * Unit tests of the OTF2 trace writer (otf2-writer/trace_writer.h): archives written from
 * hand-built profiles and event streams are read back by the independent tools, otf2-print
 * (must exit 0; its ENTER/LEAVE lines give the exact events per location) and
 * test/tools/otf2check.py (definitions, timestamps, nesting, event counts), and the
 * definitions are compared with Score-P's layout. Error paths: unusable directories,
 * bad events, misuse.
 */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "otf2-writer/trace_writer.h"
#include "test.h"

enum { ERRLEN = 512, MAX_OUTPUT = 1 << 20 };

/* ------------------------------------------------------------------ helpers */

static char *make_temp_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *path;
    if (asprintf(&path, "%s/test-trace-writer.XXXXXX", tmp && tmp[0] ? tmp : "/tmp") < 0)
        return NULL;
    if (mkdtemp(path) == NULL) {
        free(path);
        return NULL;
    }
    return path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* HP_TEST_KEEP=1 keeps the archives for a look with otf2-print. */
static void remove_tree(char *path)
{
    const char *keep = getenv("HP_TEST_KEEP");
    if (path != NULL && keep != NULL && strcmp(keep, "1") == 0)
        fprintf(stderr, "kept %s\n", path);
    else if (path != NULL)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(path);
}

/* Runs a shell command; returns its exit status (-1 if it did not exit) and its stdout
 * (stderr merged) in a malloc'ed string. */
static int run(const char *command, char **output)
{
    char *cmd;
    if (asprintf(&cmd, "%s 2>&1", command) < 0)
        return -1;
    FILE *f = popen(cmd, "r");
    free(cmd);
    if (f == NULL)
        return -1;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 4096 && cap < 64 * MAX_OUTPUT) {
            char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL)
                break;
            buf = bigger;
        }
    }
    if (buf != NULL)
        buf[len] = '\0';
    int status = pclose(f);
    *output = buf;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* test/tools/otf2check.py under $HP_SRCDIR, else under the current directory (a run by
 * hand from the top of the tree). */
static const char *otf2check_path(void)
{
    static char path[4096];
    const char *src = getenv("HP_SRCDIR");
    snprintf(path, sizeof path, "%s/test/tools/otf2check.py", src != NULL && src[0] ? src : ".");
    return path;
}

/* otf2check.py must pass; its report goes to stderr when it does not. */
/* options: extra otf2check.py options, e.g. "--strict" */
static int otf2check_passes_with(const char *dir, const char *options)
{
    char *cmd, *out = NULL;
    if (access(otf2check_path(), R_OK) != 0) {
        fprintf(stderr, "otf2check.py not found at %s (set HP_SRCDIR)\n", otf2check_path());
        return 0;
    }
    if (asprintf(&cmd, "/usr/bin/python3 '%s' %s '%s/traces.otf2'", otf2check_path(), options,
                 dir) < 0)
        return 0;
    int status = run(cmd, &out);
    free(cmd);
    bool pass = status == 0 && out != NULL && strstr(out, "SUMMARY: PASS  errors=0 warnings=0");
    if (!pass)
        fprintf(stderr, "otf2check.py (exit %d):\n%s\n", status, out ? out : "");
    free(out);
    return pass;
}

static int otf2check_passes(const char *dir)
{
    return otf2check_passes_with(dir, "");
}

/* otf2-print with the given options; NULL unless it exits 0 without warnings. */
static char *otf2_print(const char *options, const char *dir)
{
    char *cmd, *out = NULL;
    if (asprintf(&cmd, "otf2-print %s '%s/traces.otf2'", options, dir) < 0)
        return NULL;
    int status = run(cmd, &out);
    free(cmd);
    if (status != 0 || out == NULL || strstr(out, "warning") || strstr(out, "error")) {
        fprintf(stderr, "otf2-print %s (exit %d):\n%s\n", options, status, out ? out : "");
        free(out);
        return NULL;
    }
    return out;
}

/* Lines "ENTER|LEAVE <location> <time> Region: ..." of otf2-print for one location. */
static long count_events(const char *print_output, const char *kind, uint64_t location)
{
    long n = 0;
    size_t klen = strlen(kind);
    for (const char *line = print_output; line && *line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        unsigned long long loc;
        if (strncmp(line, kind, klen) == 0 && line[klen] == ' ' &&
            sscanf(line + klen, "%llu", &loc) == 1 && loc == location)
            n++;
    }
    return n;
}

/* ------------------------------------------------------------------ fixtures */

enum { REGION_MAIN, REGION_SEND, REGION_FLUSH, NREGIONS };

static const hp_profile_region regions[NREGIONS] = {
    [REGION_MAIN] = { "int main(int, char**)", "main", "/src/app.c", 5, 80, "compiler",
                      "function", false },
    [REGION_SEND] = { "MPI_Send", "MPI_Send", "", -1, -1, "mpi", "point2point", false },
    [REGION_FLUSH] = { "TRACE BUFFER FLUSH", "TRACE BUFFER FLUSH", "", -1, -1, "measurement",
                       "artificial", false },
};
static const hp_profile_cnode cnodes[] = { { HP_PROFILE_NO_PARENT, REGION_MAIN } };

/* One process (two threads) on one node, or two single-threaded ranks on two nodes. */
static const hp_profile_node nodes[] = { { "node-a" }, { "node-b" } };
static const hp_profile_process serial_process[] = { { 0, 0 } };
static const hp_profile_location serial_locations[] = { { "Master thread", 0, 0 },
                                                        { "Pthread 1", 1, 0 } };
static const hp_profile_process two_ranks[] = { { 1, 1 }, { 0, 0 } }; /* not rank order */
static const hp_profile_location rank_locations[] = { { "Master thread", 0, 0 },
                                                      { "Master thread", 0, 1 } };

static hp_profile make_profile(bool two_processes)
{
    hp_profile p = { .creator = "hpmeasure test", .machine_name = "Linux",
                     .regions = regions, .nregions = NREGIONS,
                     .cnodes = cnodes, .ncnodes = 1, .nodes = nodes };
    p.nnodes = two_processes ? 2 : 1;
    p.processes = two_processes ? two_ranks : serial_process;
    p.nprocesses = two_processes ? 2 : 1;
    p.locations = two_processes ? rank_locations : serial_locations;
    p.nlocations = 2;
    return p;
}

/* Events handed out chunk by chunk, as the trace buffer reader does. */
typedef struct event_source {
    const hp_trace_event *events;
    const size_t *chunk_sizes;
    size_t nchunks, chunk, offset;
    bool fail; /* report a read error instead of the end */
} event_source;

static int next_chunk(void *ctx, const hp_trace_event **events, size_t *n)
{
    event_source *s = ctx;
    if (s->chunk == s->nchunks)
        return s->fail ? -1 : 0;
    *events = s->events + s->offset;
    *n = s->chunk_sizes[s->chunk];
    s->offset += *n;
    s->chunk++;
    return 1;
}

/* main { MPI_Send } then, in a second chunk, a flush region and the end of main. */
static const hp_trace_event nested[] = {
    { 100, HP_TRACE_ENTER, REGION_MAIN },  { 110, HP_TRACE_ENTER, REGION_SEND },
    { 120, HP_TRACE_LEAVE, REGION_SEND },  { 130, HP_TRACE_ENTER, REGION_FLUSH },
    { 140, HP_TRACE_LEAVE, REGION_FLUSH }, { 150, HP_TRACE_LEAVE, REGION_MAIN },
};
static const size_t nested_chunks[] = { 3, 3 };

static const hp_trace_clock identity = { 0, 1.0, 0.0 };
static const hp_trace_clock shifted = { 100, 2.0, 1000.0 }; /* 100 -> 1000, 150 -> 1100 */

static int64_t write_nested(hp_trace_writer *w, uint64_t location, const hp_trace_clock *c,
                            char *err)
{
    event_source s = { nested, nested_chunks, 2, 0, 0, false };
    return hp_trace_writer_location(w, location, c, next_chunk, &s, err, ERRLEN);
}

static int64_t write_nothing(hp_trace_writer *w, uint64_t location, char *err)
{
    event_source s = { NULL, NULL, 0, 0, 0, false };
    return hp_trace_writer_location(w, location, &identity, next_chunk, &s, err, ERRLEN);
}

/* ------------------------------------------------------------------ tests */

TEST(serial_archive_reads_back)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    if (w == NULL)
        HP_TEST_FAIL("open: %s", err);
    ASSERT_INT_EQ(write_nested(w, 0, &shifted, err), 8); /* + ProgramBegin/End */
    ASSERT_INT_EQ(write_nothing(w, 1, err), 0);
    uint64_t first = 0, last = 0;
    ASSERT_INT_EQ(hp_trace_writer_time_range(w, &first, &last), 1);
    ASSERT_UINT_EQ(first, 1000);
    ASSERT_UINT_EQ(last, 1100);
    ASSERT_UINT_EQ(hp_trace_writer_clamped(w), 0);
    hp_profile p = make_profile(false);
    const uint64_t events[] = { 8, 0 };
    if (hp_trace_writer_global_defs(w, &p, events, 1e9, first, last, err, sizeof err) != 0)
        HP_TEST_FAIL("global defs: %s", err);
    if (hp_trace_writer_close(w, err, sizeof err) != 0)
        HP_TEST_FAIL("close: %s", err);

    ASSERT(otf2check_passes(dir));
    char *print = otf2_print("", dir);
    ASSERT(print != NULL);
    ASSERT_INT_EQ(count_events(print, "ENTER", 0), 3);
    ASSERT_INT_EQ(count_events(print, "LEAVE", 0), 3);
    ASSERT_INT_EQ(count_events(print, "ENTER", 1), 0);
    ASSERT_STR_CONTAINS(print, " 1000  Region: \"int main(int, char**)\" <0>");
    /* the master thread's first and last events, as in Score-P's traces */
    ASSERT_INT_EQ(count_events(print, "PROGRAM_BEGIN", 0), 1);
    ASSERT_INT_EQ(count_events(print, "PROGRAM_END", 0), 1);
    ASSERT_INT_EQ(count_events(print, "PROGRAM_BEGIN", 1), 0);
    ASSERT_STR_CONTAINS(print, " 1000  Name: \"int main(int, char**)\" <1>, 0 Arguments");
    free(print);
    remove_tree(dir);
    return 0;
}

/* The definitions otf2-print -G shows, line by line as in Score-P's sample trace. */
TEST(serial_definitions_follow_scorep)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    if (w == NULL)
        HP_TEST_FAIL("open: %s", err);
    ASSERT_INT_EQ(write_nested(w, 0, &identity, err), 8);
    ASSERT_INT_EQ(write_nothing(w, 1, err), 0);
    hp_profile p = make_profile(false);
    const uint64_t events[] = { 8, 0 };
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 100, 150, err, ERRLEN), 0);
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);

    char *defs = otf2_print("-G", dir);
    ASSERT(defs != NULL);
    const char *expected[] = {
        "Ticks per Seconds: 1000000000, Global Offset: 100, Length: 50, Date: UNDEFINED",
        "STRING                                 0  \"\"",
        "PARADIGM                               4  MPI, Name: \"MPI\"",
        "Property: COMM_NAME_TEMPLATE, Type: STRING, Value: \"Comm ${id}\"",
        "Property: RMA_WIN_NAME_TEMPLATE, Type: STRING, Value: \"Win ${id}\"",
        "SYSTEM_TREE_NODE                       0  Name: \"Linux\" <",
        "Class: \"machine\"",
        "System Tree Node: \"machine::Linux\" <0>, Domain: MACHINE",
        "SYSTEM_TREE_NODE                       1  Name: \"node-a\"",
        "System Tree Node: \"node::node-a\" <1>, Domain: SHARED_MEMORY",
        "LOCATION_GROUP                         0  Name: \"Process\"",
        "Type: PROCESS, Parent: \"node::node-a\" <1>",
        "Name: \"Master thread\" <",
        "Type: CPU_THREAD, # Events: 8, Group: \"Process\" <0>",
        "LOCATION                               1  Name: \"Pthread 1\"",
        "Type: CPU_THREAD, # Events: 0, Group: \"Process\" <0>",
        "(Aka. \"main\" <", "Role: FUNCTION, Paradigm: COMPILER", "File: \"/src/app.c\"",
        "Begin: 5, End: 80",
        "REGION                                 1  Name: \"MPI_Send\"",
        "Role: POINT2POINT, Paradigm: \"MPI\" <4>, Flags: NONE, File: UNDEFINED",
        "REGION                                 2  Name: \"TRACE BUFFER FLUSH\"",
        "Role: ARTIFICIAL, Paradigm: USER",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        ASSERT_STR_CONTAINS(defs, expected[i]);
    /* A serial run has no MPI groups or communicators. */
    ASSERT(strstr(defs, "COMM_LOCATIONS") == NULL);
    ASSERT(strstr(defs, "MPI_COMM_WORLD") == NULL);
    free(defs);

    char *info = otf2_print("-I", dir);
    ASSERT(info != NULL);
    ASSERT_STR_CONTAINS(info, "hpmeasure");
    ASSERT_STR_CONTAINS(info, "NONE"); /* compression */
    free(info);
    remove_tree(dir);
    return 0;
}

/* Two ranks written through one serial archive (the definitions do not depend on how
 * the events got there): MPI groups and communicators as Score-P writes them. */
TEST(two_ranks_get_mpi_definitions)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    if (w == NULL)
        HP_TEST_FAIL("open: %s", err);
    const uint64_t rank1 = (uint64_t)1 << 32;
    ASSERT_INT_EQ(write_nested(w, 0, &identity, err), 8);
    ASSERT_INT_EQ(write_nested(w, rank1, &shifted, err), 8);
    hp_profile p = make_profile(true);
    const uint64_t events[] = { 8, 8 };
    /* Deliberately narrow range: rank 0's own events widen it to [100, 1100]. */
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 1000, 1100, err, sizeof err),
                  0);
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);

    ASSERT(otf2check_passes(dir));
    char *defs = otf2_print("-G", dir);
    ASSERT(defs != NULL);
    const char *expected[] = {
        "Global Offset: 100, Length: 1000",
        "LOCATION_GROUP                         0  Name: \"MPI Rank 0\"",
        "Parent: \"node::node-a\" <1>",
        "LOCATION_GROUP                         1  Name: \"MPI Rank 1\"",
        "Parent: \"node::node-b\" <2>",
        "LOCATION                      4294967296  Name: \"Master thread\"",
        "Group: \"MPI Rank 1\" <1>",
        ("GROUP                                  0  Name: \"\" <0>, Type: COMM_LOCATIONS, "
         "Paradigm: \"MPI\" <4>, Flags: NONE, 2 Members: \"Master thread\" <0>, "
         "\"Master thread\" <4294967296>"),
        ("Type: COMM_GROUP, Paradigm: \"MPI\" <4>, Flags: NONE, 2 Members: "
         "0 (\"Master thread\" <0>), 1 (\"Master thread\" <4294967296>)"),
        "Type: COMM_SELF, Paradigm: \"MPI\" <4>, Flags: NONE, 0 Members",
        "COMM                                   0  Name: \"MPI_COMM_WORLD\"",
        "COMM                                   1  Name: \"MPI_COMM_SELF\"",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        ASSERT_STR_CONTAINS(defs, expected[i]);
    free(defs);
    char *print = otf2_print("", dir);
    ASSERT(print != NULL);
    ASSERT_INT_EQ(count_events(print, "ENTER", rank1), 3);
    ASSERT_INT_EQ(count_events(print, "LEAVE", rank1), 3);
    free(print);
    remove_tree(dir);
    return 0;
}

/* Non-blocking messages on a communicator the program created (id 2, given with
 * hp_trace_writer_set_comms, whose rank 0 is world rank 1); an event on an undefined communicator (UINT32_MAX) is left
 * out and not counted. Payload slots: time = a, kind = low half of b, region = high. */
static const hp_trace_event isend_rank0[] = {
    { 100, HP_TRACE_ENTER, REGION_SEND },
    { 105, HP_TRACE_MPI_ISEND, 2 }, { 9, 64, 0 }, { 7, 0, 0 }, /* to pair rank 0 */
    { 106, HP_TRACE_MPI_SEND, UINT32_MAX }, { (uint64_t)1 << 32 | 9, 8, 0 },
    { 110, HP_TRACE_MPI_ISEND_COMPLETE, 0 }, { 7, 0, 0 },
    { 120, HP_TRACE_LEAVE, REGION_SEND },
};
static const hp_trace_event irecv_rank1[] = {
    { 100, HP_TRACE_ENTER, REGION_SEND },
    { 101, HP_TRACE_MPI_IRECV_REQUEST, 0 }, { 3, 0, 0 },
    { 115, HP_TRACE_MPI_IRECV, 2 }, { (uint64_t)1 << 32 | 9, 64, 0 }, { 3, 0, 0 },
    { 120, HP_TRACE_LEAVE, REGION_SEND },
};

TEST(created_communicators_and_requests)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    if (w == NULL)
        HP_TEST_FAIL("open: %s", err);
    const uint64_t rank1 = (uint64_t)1 << 32;
    const size_t chunk0[] = { 9 }, chunk1[] = { 7 };
    event_source s0 = { isend_rank0, chunk0, 1, 0, 0, false };
    event_source s1 = { irecv_rank1, chunk1, 1, 0, 0, false };
    ASSERT_INT_EQ(hp_trace_writer_location(w, 0, &identity, next_chunk, &s0, err, ERRLEN), 6);
    ASSERT_INT_EQ(hp_trace_writer_location(w, rank1, &identity, next_chunk, &s1, err, ERRLEN),
                  6);
    const uint64_t members[] = { 1, 0 };
    const hp_trace_comm comms[] = { { "pair", 0, 2, members } };
    hp_trace_writer_set_comms(w, comms, 1);
    hp_profile p = make_profile(true);
    const uint64_t events[] = { 6, 6 };
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 100, 120, err, sizeof err),
                  0);
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);

    ASSERT(otf2check_passes(dir));
    char *defs = otf2_print("-G", dir);
    ASSERT(defs != NULL);
    ASSERT_STR_CONTAINS(defs, "GROUP                                  3  Name: \"\" <0>, "
                              "Type: COMM_GROUP, Paradigm: \"MPI\" <4>, Flags: NONE, 2 "
                              "Members: 1 (\"Master thread\" <4294967296>), 0 (");
    ASSERT_STR_CONTAINS(defs, "COMM                                   2  Name: \"pair\"");
    ASSERT_STR_CONTAINS(defs, "Group: \"\" <3>, Parent: \"MPI_COMM_WORLD\" <0>");
    free(defs);
    char *print = otf2_print("", dir);
    ASSERT(print != NULL);
    ASSERT_INT_EQ(count_events(print, "MPI_ISEND", 0), 1);
    ASSERT_INT_EQ(count_events(print, "MPI_ISEND_COMPLETE", 0), 1);
    ASSERT_INT_EQ(count_events(print, "MPI_SEND", 0), 0);
    ASSERT_INT_EQ(count_events(print, "MPI_IRECV_REQUEST", rank1), 1);
    ASSERT_INT_EQ(count_events(print, "MPI_IRECV", rank1), 1);
    ASSERT_STR_CONTAINS(print, "Receiver: 0 (\"Master thread\" <4294967296>), Communicator: "
                               "\"pair\" <2>, Tag: 9, Length: 64, Request: 7");
    free(print);
    remove_tree(dir);
    return 0;
}

/* A clock mapping that goes backwards must not make OTF2 refuse the event. */
TEST(backward_timestamps_are_clamped)
{
    static const hp_trace_event backwards[] = {
        { 100, HP_TRACE_ENTER, REGION_MAIN }, { 90, HP_TRACE_ENTER, REGION_SEND },
        { 95, HP_TRACE_LEAVE, REGION_SEND },  { 120, HP_TRACE_LEAVE, REGION_MAIN },
    };
    static const size_t one_chunk[] = { 4 };
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    ASSERT(w != NULL);
    event_source s = { backwards, one_chunk, 1, 0, 0, false };
    ASSERT_INT_EQ(hp_trace_writer_location(w, 0, &identity, next_chunk, &s, err, ERRLEN), 6);
    ASSERT_INT_EQ(write_nothing(w, 1, err), 0);
    ASSERT_UINT_EQ(hp_trace_writer_clamped(w), 2);
    hp_profile p = make_profile(false);
    const uint64_t events[] = { 6, 0 };
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 100, 120, err, ERRLEN), 0);
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);
    ASSERT(otf2check_passes(dir));
    remove_tree(dir);
    return 0;
}

/* Cube role and paradigm strings of the profile become OTF2 region roles and paradigms
 * (unknown ones UNKNOWN; "measurement" USER, which Vampir handles, unlike
 * MEASUREMENT_SYSTEM). */
TEST(roles_and_paradigms_map_to_otf2)
{
    static const struct {
        const char *role, *paradigm, *expected;
    } cases[] = {
        { "function", "compiler", "Role: FUNCTION, Paradigm: COMPILER" },
        { "artificial", "measurement", "Role: ARTIFICIAL, Paradigm: USER" },
        { "point2point", "mpi", "Role: POINT2POINT, Paradigm: \"MPI\" <4>" },
        { "collective", "mpi", "Role: COLL_OTHER, Paradigm: \"MPI\" <4>" },
        { "one2all", "mpi", "Role: COLL_ONE2ALL," },
        { "all2one", "mpi", "Role: COLL_ALL2ONE," },
        { "all2all", "mpi", "Role: COLL_ALL2ALL," },
        { "other collective", "mpi", "Role: COLL_OTHER," },
        { "barrier", "mpi", "Role: BARRIER," },
        { "implicit barrier", "openmp", "Role: IMPLICIT_BARRIER, Paradigm: OPENMP" },
        { "wrapper", "user", "Role: WRAPPER, Paradigm: USER" },
        { "rma", "mpi", "Role: RMA," },
        { "io", "mpi", "Role: FILE_IO," },
        { "no such role", "no such paradigm", "Role: UNKNOWN, Paradigm: UNKNOWN" },
    };
    enum { NCASES = sizeof cases / sizeof cases[0] };
    hp_profile_region r[NCASES];
    char names[NCASES][16];
    for (size_t i = 0; i < NCASES; i++) {
        snprintf(names[i], sizeof names[i], "region%zu", i);
        r[i] = (hp_profile_region){ names[i], names[i], "", -1, -1, cases[i].paradigm,
                                    cases[i].role, false };
    }
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    ASSERT(w != NULL);
    ASSERT_INT_EQ(write_nothing(w, 0, err), 0);
    ASSERT_INT_EQ(write_nothing(w, 1, err), 0);
    hp_profile p = make_profile(false);
    p.regions = r;
    p.nregions = NCASES;
    const uint64_t events[] = { 0, 0 };
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 0, 0, err, sizeof err), 0);
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);
    char *defs = otf2_print("-G", dir);
    ASSERT(defs != NULL);
    for (size_t i = 0; i < NCASES; i++) {
        char key[256];
        snprintf(key, sizeof key, "Name: \"%s\" <", names[i]); /* the REGION line */
        char *line = strstr(defs, key);
        ASSERT(line != NULL);
        *strchrnul(line, '\n') = '\0';
        ASSERT_STR_CONTAINS(line, cases[i].expected);
        line[strlen(line)] = '\n';
    }
    free(defs);
    remove_tree(dir);
    return 0;
}

TEST(clock_mapping)
{
    ASSERT_UINT_EQ(hp_trace_clock_map(&shifted, 100), 1000);
    ASSERT_UINT_EQ(hp_trace_clock_map(&shifted, 150), 1100);
    ASSERT_UINT_EQ(hp_trace_clock_map(&shifted, 0), 800); /* before t0: no wrap-around */
    ASSERT_UINT_EQ(hp_trace_clock_map(&shifted, 0) < hp_trace_clock_map(&shifted, 1), 1);
    const hp_trace_clock negative = { 1000, 1.0, 0.0 };
    ASSERT_UINT_EQ(hp_trace_clock_map(&negative, 10), 0);
    return 0;
}

/* More events than the few chunks the writer keeps in memory: OTF2 flushes chunks to the
 * file while writing, and nothing is lost or reordered. With OTF2's smallest chunks
 * (256 KiB) and two of them in memory, ~1.3 MB of events take five chunks: the same
 * path as a large trace with the default 1 MiB x 4, at a fifth of the events. */
TEST(large_location_is_flushed_in_chunks)
{
    enum { PAIRS = 60000, CHUNK = 256 << 10, IN_MEMORY = 2 }; /* ~1.3 MB of OTF2 events */
    hp__trace_writer_set_event_chunks(CHUNK, IN_MEMORY);
    hp_trace_event *ev = malloc(2 * PAIRS * sizeof *ev);
    ASSERT(ev != NULL);
    for (size_t i = 0; i < PAIRS; i++) {
        ev[2 * i] = (hp_trace_event){ 10 * i, HP_TRACE_ENTER, REGION_MAIN };
        ev[2 * i + 1] = (hp_trace_event){ 10 * i + 5, HP_TRACE_LEAVE, REGION_MAIN };
    }
    const size_t chunks[] = { PAIRS, PAIRS };
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    ASSERT(w != NULL);
    event_source s = { ev, chunks, 2, 0, 0, false };
    int64_t n = hp_trace_writer_location(w, 0, &identity, next_chunk, &s, err, sizeof err);
    free(ev);
    if (n < 0)
        HP_TEST_FAIL("location: %s", err);
    ASSERT_INT_EQ(n, 2 * PAIRS + 2);
    ASSERT_INT_EQ(write_nothing(w, 1, err), 0);
    hp_profile p = make_profile(false);
    const uint64_t events[] = { 2 * PAIRS + 2, 0 };
    uint64_t last = 10 * (PAIRS - 1) + 5;
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 0, last, err, sizeof err), 0);
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);

    char *evt_path;
    ASSERT(asprintf(&evt_path, "%s/traces/0.evt", dir) > 0);
    struct stat st;
    ASSERT_INT_EQ(stat(evt_path, &st), 0);
    free(evt_path);
    fprintf(stderr, "%d events: %lld bytes, %.1f bytes/event\n", 2 * PAIRS,
            (long long)st.st_size, (double)st.st_size / (2.0 * PAIRS));
    ASSERT(st.st_size > 4 * CHUNK); /* more than the chunks held in memory, twice over */
    hp__trace_writer_set_event_chunks(1 << 20, 4);
    ASSERT(otf2check_passes(dir));
    remove_tree(dir);
    return 0;
}

/* As root every directory is writable, so /proc stands in for a read-only one. */
TEST(unwritable_directory_is_refused)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    const char *target = dir;
    if (geteuid() == 0)
        target = "/proc";
    else
        ASSERT_INT_EQ(chmod(dir, 0555), 0);
    hp_trace_writer *w = hp_trace_writer_open(target, 0, NULL, err, sizeof err);
    ASSERT(w == NULL);
    ASSERT_STR_CONTAINS(err, target);
    ASSERT(strchr(err, '\n') == NULL);
    fprintf(stderr, "message: %s\n", err);
    chmod(dir, 0700);
    remove_tree(dir);
    return 0;
}

TEST(missing_or_file_directory_is_refused)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    char *missing, *file;
    ASSERT(asprintf(&missing, "%s/missing", dir) > 0);
    ASSERT(asprintf(&file, "%s/file", dir) > 0);
    FILE *f = fopen(file, "w");
    ASSERT(f != NULL);
    fclose(f);
    ASSERT(hp_trace_writer_open(missing, 0, NULL, err, sizeof err) == NULL);
    ASSERT_STR_CONTAINS(err, missing);
    ASSERT_STR_CONTAINS(err, "No such file or directory");
    ASSERT(access(missing, F_OK) != 0); /* OTF2 would have created it */
    ASSERT(hp_trace_writer_open(file, 0, NULL, err, sizeof err) == NULL);
    ASSERT_STR_CONTAINS(err, file);
    ASSERT_STR_CONTAINS(err, "Not a directory");
    free(missing);
    free(file);
    remove_tree(dir);
    return 0;
}

/* A second archive into the same directory fails with OTF2's reason and the path. */
TEST(existing_archive_is_refused)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    ASSERT(w != NULL);
    ASSERT_INT_EQ(write_nested(w, 0, &identity, err), 8);
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);
    w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    ASSERT(w == NULL);
    ASSERT_STR_CONTAINS(err, dir);
    ASSERT_STR_CONTAINS(err, "File does already exist");
    fprintf(stderr, "message: %s\n", err);
    remove_tree(dir);
    return 0;
}

TEST(bad_events_and_misuse_are_reported)
{
    static const hp_trace_event bad_kind[] = { { 1, HP_TRACE_ENTER, 0 }, { 2, 99, 0 } };
    static const size_t one_chunk[] = { 2 };
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    ASSERT(w != NULL);

    event_source s = { bad_kind, one_chunk, 1, 0, 0, false };
    ASSERT_INT_EQ(hp_trace_writer_location(w, 0, &identity, next_chunk, &s, err, ERRLEN), -1);
    ASSERT_STR_CONTAINS(err, "unknown kind 99");

    event_source failing = { nested, nested_chunks, 2, 0, 0, true };
    ASSERT_INT_EQ(hp_trace_writer_location(w, 1, &identity, next_chunk, &failing, err,
                                           sizeof err),
                  -1);
    ASSERT_STR_CONTAINS(err, "reading the buffered events failed");

    ASSERT_INT_EQ(write_nothing(w, 1, err), -1);
    ASSERT_STR_CONTAINS(err, "written twice");

    hp_profile p = make_profile(false);
    hp_profile_process bad_rank[] = { { 3, 0 } };
    p.processes = bad_rank;
    const uint64_t events[] = { 0, 0 };
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 0, 0, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "rank");
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);

    w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err); /* archive exists: refused */
    ASSERT(w == NULL);
    remove_tree(dir);

    dir = make_temp_dir();
    ASSERT(dir != NULL);
    w = hp_trace_writer_open(dir, 1, NULL, err, sizeof err);
    ASSERT(w != NULL);
    p = make_profile(false);
    ASSERT_INT_EQ(hp_trace_writer_global_defs(w, &p, events, 1e9, 0, 0, err, sizeof err), -1);
    ASSERT_STR_CONTAINS(err, "rank 0 only");
    ASSERT_INT_EQ(hp_trace_writer_close(w, err, sizeof err), 0);
    remove_tree(dir);
    return 0;
}

/* A hybrid trace: main entered as calling context 0 { sample in main/MPI_Send's context;
 * a sample without a context; a region without a context }. */
static const hp_profile_cnode sampled_cnodes[] = { { HP_PROFILE_NO_PARENT, REGION_MAIN },
                                                   { 0, REGION_SEND } };
static const hp_trace_event with_samples[] = {
    { 100, HP_TRACE_CC_ENTER, 2 },    { 0, 0, 0 },              /* context 0, distance 2 */
    { 105, HP_TRACE_SAMPLE, 2 },      { 1, 0, 0 },              /* context 1, distance 2 */
    { 106, HP_TRACE_SAMPLE, 1 },      { UINT32_MAX, 0, 0 },     /* no context: left out */
    { 107, HP_TRACE_CC_ENTER, 0 },    { UINT32_MAX - 1, 0, 0 }, /* no context: left out */
    { 108, HP_TRACE_CC_LEAVE, UINT32_MAX - 1 },
    { 150, HP_TRACE_CC_LEAVE, 0 },
};
static const size_t with_samples_chunks[] = { 10 };

TEST(samples_with_calling_contexts_and_interrupt_generator)
{
    char err[ERRLEN];
    char *dir = make_temp_dir();
    ASSERT(dir != NULL);
    hp_trace_writer *w = hp_trace_writer_open(dir, 0, NULL, err, sizeof err);
    if (w == NULL)
        HP_TEST_FAIL("open: %s", err);
    event_source s = { with_samples, with_samples_chunks, 1, 0, 0, false };
    /* Enter, one sample, Leave, ProgramBegin/End: the events without context not counted */
    ASSERT_INT_EQ(hp_trace_writer_location(w, 0, &identity, next_chunk, &s, err, ERRLEN), 5);
    ASSERT_INT_EQ(write_nothing(w, 1, err), 0);
    /* one marker region (MPI_Send stands in): contexts 2 (below 0), 3 (below 1), 4 (top) */
    const uint32_t markers[] = { REGION_SEND };
    hp_trace_writer_set_markers(w, markers, 1);
    hp_profile p = make_profile(false);
    p.cnodes = sampled_cnodes;
    p.ncnodes = 2;
    p.sampling.frequency = 500;
    const uint64_t events[] = { 5, 0 };
    if (hp_trace_writer_global_defs(w, &p, events, 1e9, 100, 150, err, sizeof err) != 0)
        HP_TEST_FAIL("global defs: %s", err);
    if (hp_trace_writer_close(w, err, sizeof err) != 0)
        HP_TEST_FAIL("close: %s", err);

    ASSERT(otf2check_passes_with(dir, "--strict"));
    char *print = otf2_print("", dir);
    ASSERT(print != NULL);
    ASSERT_INT_EQ(count_events(print, "CALLING_CONTEXT_SAMPLE", 0), 1);
    ASSERT_INT_EQ(count_events(print, "CALLING_CONTEXT_ENTER", 0), 1);
    ASSERT_INT_EQ(count_events(print, "CALLING_CONTEXT_LEAVE", 0), 1);
    ASSERT_INT_EQ(count_events(print, "ENTER", 0), 0);
    ASSERT_STR_CONTAINS(print, " 105  Calling Context: \"MPI_Send\" <1>, Unwind Distance: 2, "
                               "Interrupt Generator: \"sampling timer\" <0>");
    free(print);
    char *defs = otf2_print("-G", dir);
    ASSERT(defs != NULL);
    ASSERT_STR_CONTAINS(defs, "Mode: TIME, Base: DECIMAL, Exponent: -9, Period: 2000000");
    ASSERT_STR_CONTAINS(defs, "Region: \"MPI_Send\" <1>, Source code location: UNDEFINED, "
                              "Parent: \"int main(int, char**)\" <0>");
    ASSERT_STR_CONTAINS(defs, "CALLING_CONTEXT                        4  Region: \"MPI_Send\" <1>, "
                              "Source code location: UNDEFINED, Parent: UNDEFINED");
    ASSERT_STR_CONTAINS(defs, "CALLING_CONTEXT                        3  Region: \"MPI_Send\" <1>, "
                              "Source code location: UNDEFINED, Parent: \"MPI_Send\" <1>");
    free(defs);
    remove_tree(dir);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(serial_archive_reads_back),
             TEST_ENTRY(samples_with_calling_contexts_and_interrupt_generator),
             TEST_ENTRY(serial_definitions_follow_scorep),
             TEST_ENTRY(two_ranks_get_mpi_definitions),
             TEST_ENTRY(created_communicators_and_requests),
             TEST_ENTRY(roles_and_paradigms_map_to_otf2),
             TEST_ENTRY(backward_timestamps_are_clamped), TEST_ENTRY(clock_mapping),
             TEST_ENTRY(large_location_is_flushed_in_chunks),
             TEST_ENTRY(unwritable_directory_is_refused),
             TEST_ENTRY(missing_or_file_directory_is_refused),
             TEST_ENTRY(existing_archive_is_refused),
             TEST_ENTRY(bad_events_and_misuse_are_reported));
