/*
 * Unit tests of the trace step's order of collectives (measurement/finalize/trace_output.c,
 * linked into this test): a fake job (hp_trace_job) in one process records every
 * callback the trace output makes, and the tests assert the exact sequence. Every
 * process of a real job has to make the same collective calls in the same order, so a
 * call added, dropped or moved would hang an MPI run; here it fails a test. A failed
 * agreement, at the open or after OTF2's collective opening, must end the sequence.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measurement/finalize/trace_cut.h"
#include "measurement/finalize/trace_output.h"
#include "test.h"

/* What the fake job saw, as one string of names separated by spaces. */
typedef struct fake_job {
    char calls[256];
    int agrees;  /* agreements so far */
    int fail_at; /* the agreement (1, 2, ...) that fails; 0 = none */
    bool short_counts; /* gather_counts: as if a process had sent no counts */
} fake_job;

static void record(fake_job *f, const char *name)
{
    size_t len = strlen(f->calls);
    snprintf(f->calls + len, sizeof(f->calls) - len, "%s%s", len > 0 ? " " : "", name);
}

static fake_job *fake_of(const hp_trace_job *job)
{
    return job->arg;
}

static OTF2_ErrorCode install(OTF2_Archive *archive, void *arg)
{
    record(arg, "install");
    return OTF2_Archive_SetSerialCollectiveCallbacks(archive);
}

static int agree(int ok, void *arg)
{
    fake_job *f = arg;
    record(f, "agree");
    return ok && ++f->agrees != f->fail_at;
}

static bool says_why(const hp_trace_job *job)
{
    record(fake_of(job), "says_why");
    return false;
}

static hp_trace_cut *agree_cut(const hp_trace_job *job)
{
    record(fake_of(job), "cut");
    return NULL;
}

static hp_profile_cnode *call_tree(const hp_trace_job *job, const hp_profile *merged,
                                   uint64_t *n)
{
    (void)merged;
    record(fake_of(job), "tree");
    *n = 0;
    return NULL;
}

static uint64_t *gather_counts(const hp_trace_job *job, const uint64_t *mine, int n,
                               size_t *total)
{
    record(fake_of(job), "counts");
    uint64_t *all = calloc(n > 0 ? (size_t)n : 1, sizeof(uint64_t));
    if (all != NULL && n > 0)
        memcpy(all, mine, (size_t)n * sizeof(uint64_t));
    *total = all != NULL && !fake_of(job)->short_counts ? (size_t)n : 0;
    return all;
}

static void reduce_span(const hp_trace_job *job, uint64_t span[2])
{
    (void)span;
    record(fake_of(job), "span");
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Runs the trace step with the fake job into a fresh directory, as rank 1 (rank 0's
 * global definitions are no collective and would need a whole profile); returns
 * whether the archive's anchor file exists afterwards (written when it is closed). */
static int run_trace_as(fake_job *f, int rank, const hp_profile *merged, char *calls,
                       size_t len)
{
    char dir[] = "/tmp/test-trace-output.XXXXXX";
    if (mkdtemp(dir) == NULL)
        return -1;
    hp_trace_collectives otf2 = { .install = install, .agree = agree, .arg = f };
    hp_trace_job job = { .rank = rank, .otf2 = &otf2, .says_why = says_why,
                         .agree_cut = agree_cut, .call_tree = call_tree,
                         .gather_counts = gather_counts, .reduce_span = reduce_span,
                         .arg = f };
    hp_trace_unified unified = { 0 };
    hp_trace_cut_free(hp_trace_output_write(dir, merged, &job, &unified));
    char anchor[64];
    snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
    int closed = access(anchor, F_OK) == 0;
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(calls, len, "%s", f->calls);
    return closed;
}

static int run_trace(fake_job *f, char *calls, size_t len)
{
    return run_trace_as(f, 1, NULL, calls, len);
}

/* The trace step with agreement fail_at failing (0: none) makes exactly the calls
 * given and leaves the archive closed or not. */
static int expect(int fail_at, const char *calls, int closed)
{
    fake_job f = { .fail_at = fail_at };
    char seen[256];
    ASSERT_INT_EQ(run_trace(&f, seen, sizeof(seen)), closed);
    ASSERT_STR_EQ(seen, calls);
    return 0;
}

TEST(collectives_in_order)
{
    return expect(0, "agree install agree cut tree counts span", 1);
}

TEST(failed_open_agreement_ends_the_collectives)
{
    return expect(1, "agree says_why", 0);
}

/* Another process failed in OTF2's collective opening: this one gives up with it (and
 * closes its archive, whose collectives are set). */
TEST(failed_second_agreement_ends_the_collectives)
{
    return expect(2, "agree install agree says_why", 1);
}

/* Rank 0 got fewer event counts than the unified profile has locations (a process ran
 * out of memory and sent none): the global definitions are not written, and it says so,
 * instead of reading counts past the end. */
TEST(missing_counts_leave_out_the_global_definitions)
{
    char log[] = "/tmp/test-trace-output-log.XXXXXX";
    int fd = mkstemp(log);
    ASSERT(fd >= 0);
    fflush(stderr);
    ASSERT(dup2(fd, STDERR_FILENO) >= 0);
    fake_job f = { .short_counts = true };
    hp_profile merged = { .nlocations = 2 };
    char calls[256];
    run_trace_as(&f, 0, &merged, calls, sizeof(calls));
    fflush(stderr);
    char said[512] = "";
    ssize_t n = pread(fd, said, sizeof(said) - 1, 0);
    close(fd);
    unlink(log);
    ASSERT(n > 0);
    ASSERT_STR_EQ(said, "hpmeasure: trace: global definitions not written: event counts of 2 "
                        "of 2 locations are missing (out of memory)\n");
    ASSERT_STR_EQ(calls, "agree install agree cut tree counts span");
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(collectives_in_order),
             TEST_ENTRY(failed_open_agreement_ends_the_collectives),
             TEST_ENTRY(failed_second_agreement_ends_the_collectives),
             TEST_ENTRY(missing_counts_leave_out_the_global_definitions));
