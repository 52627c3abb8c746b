/*
 * hp-report timeline's two writers of the model in report_timeline.h.
 *
 * JSON: the Chrome/Perfetto trace-event format (an object with traceEvents,
 * displayTimeUnit, stackFrames and otherData), which both ui.perfetto.dev and
 * chrome://tracing open. Each OTF2 location is a thread track (tid = track number + 1,
 * named by thread_name metadata) inside its location group's process (pid, named by
 * process_name metadata); a region visit is a complete event (ph X, ts and dur in
 * microseconds with nanosecond digits); a sample is a thread-scoped instant event
 * (ph i) with its call path; an MPI message is a flow (ph s on the send's track at the
 * send, ph f with bp e on the receive's track at the receive, one id per message).
 * Every slice and sample names its call path through "sf", an entry of stackFrames
 * (one per node of the call-path tree), so the viewers can show the whole path.
 * otherData holds the counts and the thinning rule.
 *
 * HTML: report_timeline_page.html (compiled in) with the model as one JSON object in
 * place of its marker; the page's script draws it.
 */
#include <inttypes.h>
#include <string.h>

#include "report_json.h"
#include "report_timeline.h"
#include "report_timeline_page.h"

/* Nanoseconds as the format's microseconds, exactly: "12.345". */
static void put_us(FILE *out, uint64_t ns)
{
    fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static const char *region_of_path(const hp_timeline *tl, uint32_t path)
{
    return tl->region_names[tl->paths[path].region];
}

static void put_track_ids(FILE *out, const hp_timeline *tl, size_t t)
{
    fprintf(out, "\"pid\":%" PRIu32 ",\"tid\":%zu", tl->tracks[t].pid, t + 1);
}

static void put_metadata(FILE *out, const hp_timeline *tl)
{
    for (size_t t = 0; t < tl->ntracks; t++) {
        const hp_timeline_track *tr = &tl->tracks[t];
        bool first_of_process = true;
        for (size_t u = 0; u < t; u++)
            first_of_process &= tl->tracks[u].pid != tr->pid;
        if (first_of_process) {
            fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRIu32
                         ",\"tid\":0,\"args\":{\"name\":", tr->pid);
            hp_json_string(out, tr->process);
            fprintf(out, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%" PRIu32
                         ",\"tid\":0,\"args\":{\"sort_index\":%" PRIu32 "}},\n",
                    tr->pid, tr->pid);
        }
        fputs("{\"ph\":\"M\",\"name\":\"thread_name\",", out);
        put_track_ids(out, tl, t);
        fputs(",\"args\":{\"name\":", out);
        hp_json_string(out, tr->thread);
        fputs("}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",", out);
        put_track_ids(out, tl, t);
        fprintf(out, ",\"args\":{\"sort_index\":%zu}},\n", t);
    }
}

static void put_slices_and_samples(FILE *out, const hp_timeline *tl, size_t t)
{
    const hp_timeline_track *tr = &tl->tracks[t];
    for (size_t i = 0; i < tr->nslices; i++) {
        const hp_timeline_slice *s = &tr->slices[i];
        fputs("{\"ph\":\"X\",\"name\":", out);
        hp_json_string(out, region_of_path(tl, s->path));
        fprintf(out, ",\"cat\":\"%s\",", tl->region_is_mpi[tl->paths[s->path].region]
                                             ? "mpi" : "region");
        put_track_ids(out, tl, t);
        fputs(",\"ts\":", out);
        put_us(out, s->start_ns);
        fputs(",\"dur\":", out);
        put_us(out, s->dur_ns);
        fprintf(out, ",\"sf\":%" PRIu32 "},\n", s->path);
    }
    for (size_t i = 0; i < tr->nsamples; i++) {
        const hp_timeline_sample *s = &tr->samples[i];
        fputs("{\"ph\":\"i\",\"s\":\"t\",\"name\":", out);
        hp_json_string(out, region_of_path(tl, s->path));
        fputs(",\"cat\":\"sample\",", out);
        put_track_ids(out, tl, t);
        fputs(",\"ts\":", out);
        put_us(out, s->ts_ns);
        fprintf(out, ",\"sf\":%" PRIu32 "},\n", s->path);
    }
}

/* A message's flow runs from 1 ns after the send to 1 ns before the receive: we record a
 * send at its call's entry and a receive at its call's exit, so the flow's ends fall
 * inside the two MPI calls, whose slices the viewers then bind them to. */
static void put_messages(FILE *out, const hp_timeline *tl)
{
    for (size_t i = 0; i < tl->nmessages; i++) {
        hp_timeline_message m_in = tl->messages[i], *m = &m_in;
        if (m->recv_ns >= m->send_ns + 2)
            m->send_ns++, m->recv_ns--;
        fprintf(out, "{\"ph\":\"s\",\"name\":\"message\",\"cat\":\"mpi_message\",\"id\":%zu,", i);
        put_track_ids(out, tl, m->from_track);
        fputs(",\"ts\":", out);
        put_us(out, m->send_ns);
        fprintf(out, ",\"args\":{\"bytes\":%" PRIu64 ",\"tag\":%" PRIu32 "}},\n", m->bytes, m->tag);
        fprintf(out, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"mpi_message\","
                     "\"id\":%zu,", i);
        put_track_ids(out, tl, m->to_track);
        fputs(",\"ts\":", out);
        put_us(out, m->recv_ns);
        fputs("},\n", out);
    }
}

static void put_stack_frames(FILE *out, const hp_timeline *tl)
{
    fputs("\"stackFrames\":{", out);
    for (size_t p = 0; p < tl->npaths; p++) {
        fprintf(out, "%s\"%zu\":{\"category\":\"hp\",\"name\":", p ? ",\n" : "\n", p);
        hp_json_string(out, region_of_path(tl, (uint32_t)p));
        if (tl->paths[p].parent != HP_TIMELINE_NO_PATH)
            fprintf(out, ",\"parent\":\"%" PRIu32 "\"", tl->paths[p].parent);
        fputc('}', out);
    }
    fputs("},\n", out);
}

/* The thinning rule, one sentence, as written into both outputs. */
static void timeline_rule(const hp_timeline *tl, char *buf, size_t size)
{
    if (tl->max_per_bin == 0)
        snprintf(buf, size, "no thinning: every region visit, sample and message is kept");
    else
        snprintf(buf, size,
                 "per track, the run is cut into %d bins of %.6g ms; a region visit that is "
                 "neither an MPI call nor longer than one bin, and a sample, is kept only "
                 "while fewer than %u such events starting in its bin were kept; MPI calls "
                 "and messages are always kept",
                 HP_TIMELINE_BINS, (double)(tl->length_ns / HP_TIMELINE_BINS + 1) / 1e6,
                 tl->max_per_bin);
}

static void put_counts(FILE *out, const hp_timeline *tl)
{
    uint64_t enters = 0, slices = 0, samples = 0, dropped = 0;
    for (size_t t = 0; t < tl->ntracks; t++) {
        enters += tl->tracks[t].enters;
        slices += tl->tracks[t].nslices;
        samples += tl->tracks[t].nsamples;
        dropped += tl->tracks[t].dropped;
    }
    char rule[512];
    timeline_rule(tl, rule, sizeof(rule));
    fputs("\"thinning\":", out);
    hp_json_string(out, rule);
    fprintf(out, ",\"max_per_bin\":%u,\"bins\":%d,\"length_ns\":%" PRIu64
                 ",\"events_read\":%" PRIu64 ",\"region_visits\":%" PRIu64
                 ",\"slices\":%" PRIu64 ",\"samples_read\":%" PRIu64 ",\"samples\":%" PRIu64
                 ",\"dropped\":%" PRIu64 ",\"messages\":%zu,\"unmatched_sends\":%" PRIu64
                 ",\"unmatched_receives\":%" PRIu64 ",\"unclosed_visits\":%" PRIu64
                 ",\"tracks\":%zu",
            tl->max_per_bin, HP_TIMELINE_BINS, tl->length_ns, tl->events, enters, slices,
            tl->samples, samples, dropped, tl->nmessages, tl->unmatched_sends,
            tl->unmatched_recvs, tl->unclosed, tl->ntracks);
    /* The OTF2 location of each track (tid - 1 indexes it), for tools that compare. */
    fputs(",\"locations\":[", out);
    for (size_t t = 0; t < tl->ntracks; t++)
        fprintf(out, "%s%" PRIu64, t ? "," : "", tl->tracks[t].location);
    fputc(']', out);
}

int hp__timeline_write_json(const hp_timeline *tl, FILE *out)
{
    fputs("{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"hp-report timeline\",", out);
    put_counts(out, tl);
    fputs("},\n", out);
    put_stack_frames(out, tl);
    fputs("\"traceEvents\":[\n", out);
    put_metadata(out, tl);
    for (size_t t = 0; t < tl->ntracks; t++)
        put_slices_and_samples(out, tl, t);
    put_messages(out, tl);
    /* The last element closes the list without a trailing comma: a label of the first
     * track's process, which exists (no empty process appears in the viewers). */
    fprintf(out, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%" PRIu32 ",\"tid\":0,"
                 "\"args\":{\"labels\":\"hpmeasure\"}}\n]}\n",
            tl->ntracks ? tl->tracks[0].pid : 0);
    return ferror(out) ? -1 : 0;
}

/* ---------------------------------------------------------------- HTML */

/* A list of numbers: "[1,2,3]", one field of every element of an array. */
#define PUT_LIST(out, arr, n, fmt, field)                                     \
    do {                                                                      \
        fputc('[', out);                                                      \
        for (size_t i_ = 0; i_ < (n); i_++)                                   \
            fprintf(out, i_ ? "," fmt : fmt, (arr)[i_].field);                \
        fputc(']', out);                                                      \
    } while (0)

static void put_html_data(FILE *out, const hp_timeline *tl)
{
    char rule[512];
    timeline_rule(tl, rule, sizeof(rule));
    fputs("{\"rule\":", out);
    hp_json_string(out, rule);
    fprintf(out, ",\"length\":%" PRIu64 ",\n\"names\":[", tl->length_ns);
    for (size_t r = 0; r < tl->nregions; r++) {
        if (r)
            fputc(',', out);
        hp_json_string(out, tl->region_names[r]);
    }
    fputs("],\n\"mpi\":[", out);
    for (size_t r = 0; r < tl->nregions; r++)
        fputs(r ? (tl->region_is_mpi[r] ? ",1" : ",0") : (tl->region_is_mpi[r] ? "1" : "0"), out);
    fputs("],\n\"paths\":[", out);
    for (size_t p = 0; p < tl->npaths; p++)
        fprintf(out, "%s%" PRId64 ",%" PRIu32, p ? "," : "",
                tl->paths[p].parent == HP_TIMELINE_NO_PATH ? -1 : (int64_t)tl->paths[p].parent,
                tl->paths[p].region);
    fputs("],\n\"tracks\":[", out);
    for (size_t t = 0; t < tl->ntracks; t++) {
        const hp_timeline_track *tr = &tl->tracks[t];
        fputs(t ? ",\n{\"process\":" : "\n{\"process\":", out);
        hp_json_string(out, tr->process);
        fputs(",\"thread\":", out);
        hp_json_string(out, tr->thread);
        fprintf(out, ",\"pid\":%" PRIu32 ",\"dropped\":%" PRIu64 ",\n\"s\":", tr->pid, tr->dropped);
        PUT_LIST(out, tr->slices, tr->nslices, "%" PRIu64, start_ns);
        fputs(",\n\"d\":", out);
        PUT_LIST(out, tr->slices, tr->nslices, "%" PRIu64, dur_ns);
        fputs(",\n\"p\":", out);
        PUT_LIST(out, tr->slices, tr->nslices, "%" PRIu32, path);
        fputs(",\n\"ss\":", out);
        PUT_LIST(out, tr->samples, tr->nsamples, "%" PRIu64, ts_ns);
        fputs(",\n\"sp\":", out);
        PUT_LIST(out, tr->samples, tr->nsamples, "%" PRIu32, path);
        fputc('}', out);
    }
    fputs("],\n\"msgs\":[", out);
    for (size_t i = 0; i < tl->nmessages; i++) {
        const hp_timeline_message *m = &tl->messages[i];
        fprintf(out, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                i ? ",\n" : "", m->from_track, m->to_track, m->send_ns, m->recv_ns, m->bytes);
    }
    fputs("]}", out);
}

int hp__timeline_write_html(const hp_timeline *tl, FILE *out)
{
    const char *page = hp__report_timeline_page;
    const char *marker = strstr(page, HP_REPORT_TIMELINE_DATA_MARKER);
    if (marker == NULL) {
        fprintf(stderr, "hp-report timeline: the compiled-in page lacks its data marker\n");
        return -1;
    }
    fwrite(page, 1, (size_t)(marker - page), out);
    put_html_data(out, tl);
    fputs(marker + strlen(HP_REPORT_TIMELINE_DATA_MARKER), out);
    return ferror(out) ? -1 : 0;
}
