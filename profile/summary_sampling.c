/*
 * The sampling section of summary.txt: what became of the samples, and the histogram of
 * effective sample intervals (the paper's Fig. 3). A sample's effective interval is the
 * time since the previous valid sample minus the MPI time measured in between, so
 * programs that call MPI often have many short ones; each sample weighs its own.
 */
#include "summary.h"

#include <inttypes.h>

static void write_histogram(FILE *out, const hp_profile_sampling *s, uint64_t total)
{
    enum { BAR_WIDTH = 40 };
    uint64_t most = 0;
    for (int i = 0; i < HP_PROFILE_SAMPLING_BUCKETS; i++)
        if (s->histogram[i] > most)
            most = s->histogram[i];
    fprintf(out, "Effective sample intervals (%% of the nominal %.3f ms):\n",
            1000.0 / (double)s->frequency);
    for (int i = 0; i < HP_PROFILE_SAMPLING_BUCKETS; i++) {
        char label[16];
        if (i + 1 < HP_PROFILE_SAMPLING_BUCKETS)
            snprintf(label, sizeof(label), "%3d-%3d%%", 10 * i, 10 * (i + 1));
        else
            snprintf(label, sizeof(label), "  >=%3d%%", 10 * i);
        int bar = most > 0 ? (int)(s->histogram[i] * BAR_WIDTH / most) : 0;
        fprintf(out, "  %s %10" PRIu64 " %5.1f%%%s%.*s\n", label, s->histogram[i],
                total > 0 ? 100.0 * (double)s->histogram[i] / (double)total : 0.0,
                bar > 0 ? "  " : "", bar, "########################################");
    }
    fputc('\n', out);
}

void hp_summary_write_sampling(FILE *out, const hp_profile_sampling *s)
{
    if (s->frequency == 0)
        return;
    uint64_t weighted = 0;
    for (int i = 0; i < HP_PROFILE_SAMPLING_BUCKETS; i++)
        weighted += s->histogram[i];
    fprintf(out, "Sampling: %" PRIu64 " Hz per thread, %" PRIu64 " samples\n", s->frequency,
            s->samples);
    fprintf(out, "  %10" PRIu64 "  added to call paths\n", s->attributed);
    fprintf(out, "  %10" PRIu64 "  inside MPI (ignored: MPI is measured)\n", s->in_mpi);
    fprintf(out, "  %10" PRIu64 "  while the measurement itself was busy (not unwound)\n",
            s->busy);
    if (s->throttled > 0)
        fprintf(out, "  %10" PRIu64 "  slow unwinds (over half an interval): the samples "
                "after each were skipped for a while (counted as busy)\n", s->throttled);
    fprintf(out, "  %10" PRIu64 "  failed unwinds (region UNWIND FAILED)\n", s->failed);
    if (s->unanchored > 0)
        fprintf(out, "  %10" PRIu64 "  below an inlined instrumented function (time left "
                "with it)\n", s->unanchored);
    fprintf(out, "  %10" PRIu64 "  MPI call paths learned by unwinding\n", s->mpi_unwinds);
    if (s->held > 0)
        fprintf(out, "  %10" PRIu64 "  held back by sleeps and other blocking calls, taken "
                "when they returned\n", s->held);
    if (s->thunks_set > 0)
        fprintf(out, "Thunks (HP_UNWIND_THUNKS): %" PRIu64 " return addresses replaced, %" PRIu64
                " unwinds reused a thunked prefix, %" PRIu64 " frames walked\n",
                s->thunks_set, s->thunk_prefixes, s->walked_frames);
    fputc('\n', out);
    if (weighted > 0)
        write_histogram(out, s, weighted);
}
