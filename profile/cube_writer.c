/*
 * Cube4 (.cubex) profile writer. It checks the profile's invariants, builds anchor.xml in
 * memory (metrics, regions, the call tree as nested <cnode>s, the system tree machine ->
 * node -> process -> thread), then writes a ustar archive to "<path>.tmp": anchor.xml
 * first, then per metric a sparse <id>.index and its <id>.data (values streamed straight
 * from the profile, one row per listed call-tree position), and renames it into place.
 *
 * The format rules it follows, and why, are in doc/formats/CUBE4-OTF2.md §1-4 and
 * doc/formats/cube-reader-rules.md. The
 * ones that silently corrupt data when broken: no tar member may have a size that is a
 * non-zero multiple of 512; CubeLib reads anchor.xml with a hand-written scanner (literal
 * root tag, no comments); sparse index rows are positions in the metric's call-tree
 * enumeration, which for INCLUSIVE metrics is not the cnode id; location Ids are data
 * columns and must be 0..L-1.
 */
#include "cube_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/compiler.h"

enum {
    TAR_BLOCK = 512,
    VALUE_SIZE = 8, /* every dtype we write is 8 bytes wide */
    INDEX_HEADER_SIZE = 22,
    DATA_MARKER_SIZE = 10,
    SPARSE_INDEX = 1
};

#define TAR_MAX_SIZE 077777777777ULL /* what fits the 11 octal digits of a ustar size */

_Static_assert(sizeof(double) == VALUE_SIZE && sizeof(uint64_t) == VALUE_SIZE,
               "Cube DOUBLE and UINT64 values are 8 bytes");

typedef struct cube_writer {
    const hp_profile *p;
    const char *path;
    char *tmp_path;
    bool tmp_created; /* tmp_path exists and is ours to remove on failure */
    FILE *out;
    char *err;
    size_t errlen;
    uint32_t *wide_order; /* cnode at each position of the INCLUSIVE enumeration */
    uint32_t *rows;       /* the enumeration positions the current metric stores */
    uint32_t *stack;      /* scratch: open cnodes while walking the tree */
    time_t mtime;
} cube_writer;

/* ------------------------------------------------------------------ errors */

static HP_PRINTF(2, 3) int fail(cube_writer *w, const char *fmt, ...)
{
    if (w->errlen == 0)
        return -1;
    int n = snprintf(w->err, w->errlen, "cube writer: ");
    if (n < 0 || (size_t)n >= w->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err + n, w->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int fail_errno(cube_writer *w, const char *what, const char *path, int errnum)
{
    return fail(w, "cannot %s %s: %s", what, path, strerror(errnum));
}

static int fail_oom(cube_writer *w)
{
    return fail(w, "out of memory while writing %s", w->path);
}

/* ------------------------------------------------------------------ string buffer */

typedef struct strbuf {
    char *buf;
    size_t len, cap;
    bool oom; /* sticky: once set, appends are dropped and the caller reports it */
} strbuf;

static void sb_append(strbuf *sb, const char *s, size_t n)
{
    if (sb->oom)
        return;
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 4096;
        while (cap < sb->len + n + 1)
            cap *= 2;
        char *nb = realloc(sb->buf, cap);
        if (!nb) {
            sb->oom = true;
            return;
        }
        sb->buf = nb;
        sb->cap = cap;
    }
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

static void sb_puts(strbuf *sb, const char *s)
{
    sb_append(sb, s, strlen(s));
}

static HP_PRINTF(2, 3) void sb_printf(strbuf *sb, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        sb->oom = true; /* only short, fixed-shape lines go through here */
        return;
    }
    sb_append(sb, tmp, (size_t)n);
}

/* Length of the valid UTF-8 sequence starting at s, or 0 if it is not one (overlong
 * forms and surrogates included, as XML parsers reject them). */
static size_t utf8_length(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

/* Appends s as XML character data / attribute value: the five markup characters become
 * entities, and bytes XML 1.0 cannot carry (control characters, invalid UTF-8) become
 * '?', because one bad byte would make every reader reject the whole file. */
static void sb_put_xml(strbuf *sb, const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    while (*u) {
        size_t n = utf8_length(u);
        switch (*u) {
        case '&': sb_puts(sb, "&amp;"); break;
        case '<': sb_puts(sb, "&lt;"); break;
        case '>': sb_puts(sb, "&gt;"); break;
        case '"': sb_puts(sb, "&quot;"); break;
        case '\'': sb_puts(sb, "&apos;"); break;
        default:
            if (n == 0 || (*u < 0x20 && *u != '\t' && *u != '\n' && *u != '\r')) {
                sb_append(sb, "?", 1);
                n = 1;
            } else
                sb_append(sb, (const char *)u, n);
        }
        u += n ? n : 1;
    }
}

/* <tag>escaped text</tag> on one line. */
static void sb_element(strbuf *sb, const char *tag, const char *text)
{
    sb_printf(sb, "<%s>", tag);
    sb_put_xml(sb, text);
    sb_printf(sb, "</%s>\n", tag);
}

/* ------------------------------------------------------------------ profile checks */

/* Pops the stack of open cnodes until its top is parent; emits a closing tag per popped
 * node when sb is given. Returns -1 when parent is not open, i.e. the cnodes are not in
 * depth-first pre-order. */
static int close_until_parent(uint32_t *stack, size_t *depth, uint32_t parent,
                              strbuf *sb)
{
    while (*depth > 0 && stack[*depth - 1] != parent) {
        (*depth)--;
        if (sb)
            sb_puts(sb, "</cnode>\n");
    }
    return *depth > 0 ? 0 : -1;
}

static int check_cnodes(cube_writer *w)
{
    const hp_profile *p = w->p;
    if (p->cnodes[0].parent != HP_PROFILE_NO_PARENT)
        return fail(w, "invalid profile for %s: cnode 0 is not a root", w->path);
    size_t depth = 0;
    for (size_t i = 0; i < p->ncnodes; i++) {
        const hp_profile_cnode *c = &p->cnodes[i];
        if (c->region >= p->nregions)
            return fail(w, "invalid profile for %s: cnode %zu has region %" PRIu32
                        " (only %zu regions)", w->path, i, c->region, p->nregions);
        if (i > 0 && (c->parent >= i ||
                      close_until_parent(w->stack, &depth, c->parent, NULL) < 0))
            return fail(w, "invalid profile for %s: cnode %zu (parent %" PRIu32
                        ") breaks depth-first pre-order", w->path, i, c->parent);
        w->stack[depth++] = (uint32_t)i;
    }
    return 0;
}

static int check_system(cube_writer *w)
{
    const hp_profile *p = w->p;
    for (size_t i = 0; i < p->nprocesses; i++)
        if (p->processes[i].node >= p->nnodes)
            return fail(w, "invalid profile for %s: process %zu is on node %" PRIu32
                        " (only %zu nodes)", w->path, i, p->processes[i].node, p->nnodes);
    for (size_t i = 0; i < p->nlocations; i++) {
        uint32_t proc = p->locations[i].process;
        if (proc >= p->nprocesses)
            return fail(w, "invalid profile for %s: location %zu is in process %" PRIu32
                        " (only %zu processes)", w->path, i, proc, p->nprocesses);
        if (i > 0 && proc < p->locations[i - 1].process)
            return fail(w, "invalid profile for %s: locations are not ordered by process "
                        "(location %zu)", w->path, i);
    }
    return 0;
}

static int check_metrics(cube_writer *w)
{
    const hp_profile *p = w->p;
    for (size_t i = 0; i < p->nmetrics; i++) {
        const hp_profile_metric *m = &p->metrics[i];
        if (!m->uniq_name || !m->uniq_name[0] || !m->values)
            return fail(w, "invalid profile for %s: metric %zu has no name or no values",
                        w->path, i);
        if ((unsigned)m->dtype > HP_DTYPE_MAXDOUBLE || (unsigned)m->kind > HP_METRIC_INCLUSIVE)
            return fail(w, "invalid profile for %s: metric %s has an unknown dtype or kind",
                        w->path, m->uniq_name);
        /* cubew refuses these too: min/max cannot be summed over a subtree. */
        if (m->kind == HP_METRIC_INCLUSIVE &&
            (m->dtype == HP_DTYPE_MINDOUBLE || m->dtype == HP_DTYPE_MAXDOUBLE))
            return fail(w, "invalid profile for %s: metric %s is INCLUSIVE with a min/max "
                        "dtype", w->path, m->uniq_name);
    }
    return 0;
}

/* The counts and arrays; checked before anything is sized from them. */
static int check_sizes(cube_writer *w)
{
    const hp_profile *p = w->p;
    if (!p->regions || !p->cnodes || !p->nodes || !p->processes || !p->locations ||
        !p->metrics || !p->nregions || !p->ncnodes || !p->nnodes || !p->nprocesses ||
        !p->nlocations || !p->nmetrics)
        return fail(w, "invalid profile for %s: it needs at least one region, cnode, node, "
                    "process, location and metric", w->path);
    if (p->ncnodes >= UINT32_MAX || p->nlocations >= UINT32_MAX)
        return fail(w, "invalid profile for %s: too many cnodes or locations", w->path);
    return 0;
}

/* ------------------------------------------------------------------ anchor.xml */

static const char *or_default(const char *s, const char *dflt)
{
    return s && s[0] ? s : dflt;
}

/* hpmeasure's instrumentation note (profile.h) as two attributes that hp-report reads
 * back: the counts as decimal numbers in the struct's order, and the mangled names of
 * regions the overhead budget switched off. Cube tools show them as plain attributes. */
static void anchor_instrumentation(strbuf *sb, const hp_profile *p)
{
    const hp_profile_instrumentation *in = &p->instrumentation;
    const char *fallback = p->fallback_units;
    if (fallback != NULL && fallback[0] != '\0') {
        /* One line per unit; a character reference keeps each line break, which a
         * parser turns into a blank in an attribute written as is. */
        sb_puts(sb, "<attr key=\"" HP_CUBE_ATTR_FALLBACK "\" value=\"");
        for (const char *l = fallback; *l != '\0';) {
            size_t len = strcspn(l, "\n");
            char line[1024];
            snprintf(line, sizeof(line), "%.*s", (int)len, l);
            sb_put_xml(sb, line);
            sb_puts(sb, "&#10;");
            l += len + (l[len] == '\n');
        }
        sb_puts(sb, "\"/>\n");
    }
    if (in->units == 0 && in->probe_visits == 0)
        return;
    const uint64_t *words = (const uint64_t *)in;
    sb_puts(sb, "<attr key=\"" HP_CUBE_ATTR_INSTRUMENTATION "\" value=\"");
    for (size_t i = 0; i < sizeof(*in) / sizeof(uint64_t); i++)
        sb_printf(sb, "%s%llu", i > 0 ? " " : "", (unsigned long long)words[i]);
    sb_puts(sb, "\"/>\n");
    bool any = false;
    for (size_t i = 0; i < p->nregions; i++) {
        if (!p->regions[i].demoted)
            continue;
        sb_puts(sb, any ? " " : "<attr key=\"" HP_CUBE_ATTR_DEMOTED "\" value=\"");
        sb_put_xml(sb, p->regions[i].mangled_name);
        any = true;
    }
    if (any)
        sb_puts(sb, "\"/>\n");
}

static void anchor_head(strbuf *sb, const hp_profile *p)
{
    /* The root tag is matched literally by CubeLib's scanner: one attribute, double
     * quotes, single spaces; 4.4 is what cubew 4.8.2 writes (4.8 is refused). */
    sb_puts(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n"
                "<attr key=\"CubePL Version\" value=\"1.1\"/>\n"
                "<attr key=\"Cube Version\" value=\"4.8.2\"/>\n"
                "<attr key=\"Cube anchor.xml syntax version\" value=\"4.4\"/>\n"
                "<attr key=\"Creator\" value=\"");
    sb_put_xml(sb, or_default(p->creator, "hpmeasure"));
    sb_puts(sb, "\"/>\n");
    if (p->wait_states != NULL && p->wait_states[0] != '\0') {
        sb_puts(sb, "<attr key=\"" HP_CUBE_ATTR_WAIT_STATES "\" value=\"");
        sb_put_xml(sb, p->wait_states);
        sb_puts(sb, "\"/>\n");
    }
    if (p->interrupted != NULL && p->interrupted[0] != '\0') {
        sb_puts(sb, "<attr key=\"" HP_CUBE_ATTR_INTERRUPTED "\" value=\"");
        sb_put_xml(sb, p->interrupted);
        sb_puts(sb, "\"/>\n");
    }
    sb_puts(sb, "<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n");
    anchor_instrumentation(sb, p);
    sb_puts(sb, "<doc>\n<mirrors>\n</mirrors>\n</doc>\n");
}

static const char *dtype_name(hp_metric_dtype d)
{
    switch (d) {
    case HP_DTYPE_UINT64: return "UINT64";
    case HP_DTYPE_MINDOUBLE: return "MINDOUBLE";
    case HP_DTYPE_MAXDOUBLE: return "MAXDOUBLE";
    case HP_DTYPE_DOUBLE: break;
    }
    return "DOUBLE";
}

/* Whether metric i is a child of metric `parent` (SIZE_MAX: a root, i.e. no parent or
 * one that is not in the profile). */
static bool metric_child_of(const hp_profile *p, size_t i, size_t parent)
{
    const char *name = p->metrics[i].parent;
    if (parent != SIZE_MAX)
        return name != NULL && strcmp(name, p->metrics[parent].uniq_name) == 0;
    for (size_t k = 0; name != NULL && k < i; k++)
        if (strcmp(p->metrics[k].uniq_name, name) == 0)
            return false;
    return true;
}

/* Metric i and its children nested inside it (ids stay the array positions). Parents
 * come first in the array, so the depth is bounded by the metric count. */
static void anchor_metric(strbuf *sb, const hp_profile *p, size_t i)
{
    const hp_profile_metric *m = &p->metrics[i];
    sb_printf(sb, "<metric id=\"%zu\" type=\"%s\">\n", i,
              m->kind == HP_METRIC_INCLUSIVE ? "INCLUSIVE" : "EXCLUSIVE");
    sb_element(sb, "disp_name", or_default(m->disp_name, m->uniq_name));
    sb_element(sb, "uniq_name", m->uniq_name);
    sb_element(sb, "dtype", dtype_name(m->dtype));
    sb_element(sb, "uom", or_default(m->uom, ""));
    sb_element(sb, "url", "");
    sb_element(sb, "descr", or_default(m->descr, ""));
    for (size_t k = i + 1; k < p->nmetrics; k++)
        if (metric_child_of(p, k, i))
            anchor_metric(sb, p, k);
    sb_puts(sb, "</metric>\n");
}

static void anchor_metrics(strbuf *sb, const hp_profile *p)
{
    sb_puts(sb, "<metrics>\n");
    for (size_t i = 0; i < p->nmetrics; i++)
        if (metric_child_of(p, i, SIZE_MAX))
            anchor_metric(sb, p, i);
    sb_puts(sb, "</metrics>\n");
}

static void anchor_regions(strbuf *sb, const hp_profile *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        const hp_profile_region *r = &p->regions[i];
        sb_printf(sb, "<region id=\"%zu\" mod=\"", i);
        sb_put_xml(sb, or_default(r->file, ""));
        sb_printf(sb, "\" begin=\"%d\" end=\"%d\">\n", r->begin_line, r->end_line);
        sb_element(sb, "name", or_default(r->name, ""));
        sb_element(sb, "mangled_name", or_default(r->mangled_name, or_default(r->name, "")));
        sb_element(sb, "paradigm", or_default(r->paradigm, "unknown"));
        sb_element(sb, "role", or_default(r->role, "unknown"));
        sb_element(sb, "url", "");
        sb_element(sb, "descr", "");
        sb_puts(sb, "</region>\n");
    }
}

/* Nested <cnode>s; id = index, which is DFS pre-order (checked in check_cnodes). */
static void anchor_cnodes(cube_writer *w, strbuf *sb)
{
    const hp_profile *p = w->p;
    size_t depth = 0;
    for (size_t i = 0; i < p->ncnodes; i++) {
        if (i > 0)
            close_until_parent(w->stack, &depth, p->cnodes[i].parent, sb);
        sb_printf(sb, "<cnode id=\"%zu\" calleeId=\"%" PRIu32 "\">\n", i, p->cnodes[i].region);
        w->stack[depth++] = (uint32_t)i;
    }
    while (depth-- > 0)
        sb_puts(sb, "</cnode>\n");
}

static void anchor_location(strbuf *sb, const hp_profile_location *l, size_t id)
{
    sb_printf(sb, "<location Id=\"%zu\">\n", id);
    sb_element(sb, "name", or_default(l->name, "thread"));
    sb_printf(sb, "<rank>%d</rank>\n<type>thread</type>\n</location>\n", l->thread);
}

/* One <locationgroup> (a process) with its locations, [first, end) of p->locations.
 * Score-P names processes "MPI Rank r" in MPI runs and "Process" otherwise. */
static void anchor_process(strbuf *sb, const hp_profile *p, size_t proc, size_t first,
                           size_t end)
{
    sb_printf(sb, "<locationgroup Id=\"%zu\">\n", proc);
    if (p->nprocesses > 1)
        sb_printf(sb, "<name>MPI Rank %d</name>\n", p->processes[proc].rank);
    else
        sb_puts(sb, "<name>Process</name>\n");
    sb_printf(sb, "<rank>%d</rank>\n<type>process</type>\n", p->processes[proc].rank);
    for (size_t l = first; l < end; l++)
        anchor_location(sb, &p->locations[l], l);
    sb_puts(sb, "</locationgroup>\n");
}

/* Start offsets of buckets 0..nbuckets-1 (plus the end) given each item's bucket: item
 * counts turned into prefix sums. Returns NULL when out of memory. */
static size_t *bucket_starts(size_t nbuckets, const uint32_t *bucket_of, size_t nitems)
{
    size_t *start = calloc(nbuckets + 1, sizeof *start);
    if (!start)
        return NULL;
    for (size_t i = 0; i < nitems; i++)
        start[bucket_of[i] + 1]++;
    for (size_t b = 0; b < nbuckets; b++)
        start[b + 1] += start[b];
    return start;
}

/* The layout of the system tree: the processes of node n are procs[node_start[n] ..
 * node_start[n+1]) in increasing order; the locations of process q are
 * loc_start[q] .. loc_start[q+1] (locations are ordered by process, see check_system). */
typedef struct system_layout {
    size_t *node_start;
    uint32_t *procs;
    size_t *loc_start;
} system_layout;

static void system_layout_release(system_layout *s)
{
    free(s->node_start);
    free(s->procs);
    free(s->loc_start);
}

static int system_layout_init(system_layout *s, const hp_profile *p)
{
    uint32_t *key = malloc((p->nprocesses > p->nlocations ? p->nprocesses : p->nlocations) *
                           sizeof *key);
    *s = (system_layout){ 0 };
    s->procs = malloc(p->nprocesses * sizeof *s->procs);
    if (key && s->procs) {
        for (size_t l = 0; l < p->nlocations; l++)
            key[l] = p->locations[l].process;
        s->loc_start = bucket_starts(p->nprocesses, key, p->nlocations);
        for (size_t q = 0; q < p->nprocesses; q++)
            key[q] = p->processes[q].node;
        s->node_start = bucket_starts(p->nnodes, key, p->nprocesses);
    }
    free(key);
    if (!s->node_start || !s->loc_start || !s->procs) {
        system_layout_release(s);
        return -1;
    }
    size_t *fill = malloc(p->nnodes * sizeof *fill);
    if (!fill) {
        system_layout_release(s);
        return -1;
    }
    memcpy(fill, s->node_start, p->nnodes * sizeof *fill);
    for (size_t q = 0; q < p->nprocesses; q++)
        s->procs[fill[p->processes[q].node]++] = (uint32_t)q;
    free(fill);
    return 0;
}

/* machine -> one systemtreenode per node -> its processes -> their threads. Location
 * groups precede child systemtreenodes (CubeLib's grammar insists). */
static int anchor_system(cube_writer *w, strbuf *sb)
{
    const hp_profile *p = w->p;
    system_layout s;
    if (system_layout_init(&s, p) < 0)
        return fail_oom(w);
    sb_puts(sb, "<system>\n<systemtreenode Id=\"0\">\n<name>machine ");
    sb_put_xml(sb, or_default(p->machine_name, "Linux"));
    sb_puts(sb, "</name>\n<class>machine</class>\n");
    for (size_t n = 0; n < p->nnodes; n++) {
        sb_printf(sb, "<systemtreenode Id=\"%zu\">\n<name>node ", n + 1);
        sb_put_xml(sb, or_default(p->nodes[n].name, "localhost"));
        sb_puts(sb, "</name>\n<class>node</class>\n");
        for (size_t i = s.node_start[n]; i < s.node_start[n + 1]; i++) {
            size_t q = s.procs[i];
            /* A process without locations has no data; the grammar wants >= 1. */
            if (s.loc_start[q] < s.loc_start[q + 1])
                anchor_process(sb, p, q, s.loc_start[q], s.loc_start[q + 1]);
        }
        sb_puts(sb, "</systemtreenode>\n");
    }
    sb_puts(sb, "</systemtreenode>\n</system>\n");
    system_layout_release(&s);
    return 0;
}

static int build_anchor(cube_writer *w, strbuf *sb)
{
    anchor_head(sb, w->p);
    anchor_metrics(sb, w->p);
    sb_puts(sb, "<program>\n");
    anchor_regions(sb, w->p);
    anchor_cnodes(w, sb);
    sb_puts(sb, "</program>\n");
    if (anchor_system(w, sb) < 0)
        return -1;
    sb_puts(sb, "</cube>\n");
    /* A member size that is a multiple of 512 makes CubeLib and standard tar readers
     * disagree about where the next member starts (format doc §1). */
    if (sb->len % TAR_BLOCK == 0)
        sb_puts(sb, "\n");
    return sb->oom ? fail_oom(w) : 0;
}

/* ------------------------------------------------------------------ enumerations */

/* CubeLib's "wide" enumeration used for INCLUSIVE metrics: the root, then for each cnode
 * in DFS pre-order (= index order) all its children. A counting sort of the non-root
 * cnodes by parent gives exactly that; it keeps children in increasing index. */
static int build_wide_order(cube_writer *w)
{
    const hp_profile *p = w->p;
    size_t n = p->ncnodes;
    size_t *next = calloc(n + 1, sizeof *next);
    if (!next)
        return fail_oom(w);
    for (size_t i = 1; i < n; i++)
        next[p->cnodes[i].parent + 1]++;
    next[0] = 1; /* position 0 holds the root */
    for (size_t c = 0; c < n; c++)
        next[c + 1] += next[c];
    w->wide_order[0] = 0;
    for (size_t i = 1; i < n; i++)
        w->wide_order[next[p->cnodes[i].parent]++] = (uint32_t)i;
    free(next);
    return 0;
}

static const uint32_t *enumeration(const cube_writer *w, const hp_profile_metric *m)
{
    return m->kind == HP_METRIC_INCLUSIVE ? w->wide_order : NULL; /* NULL: identity */
}

static uint32_t cnode_at(const uint32_t *order, size_t pos)
{
    return order ? order[pos] : (uint32_t)pos;
}

static const unsigned char *metric_row(const hp_profile *p, const hp_profile_metric *m,
                                       uint32_t cnode)
{
    return (const unsigned char *)m->values + (size_t)cnode * p->nlocations * VALUE_SIZE;
}

static bool row_is_zero(const hp_profile *p, const hp_profile_metric *m, uint32_t cnode)
{
    const unsigned char *row = metric_row(p, m, cnode);
    for (size_t l = 0; l < p->nlocations; l++) {
        uint64_t bits;
        double v;
        memcpy(&bits, row + l * VALUE_SIZE, sizeof bits);
        memcpy(&v, row + l * VALUE_SIZE, sizeof v);
        if (m->dtype == HP_DTYPE_UINT64 ? bits != 0 : v != 0.0)
            return false;
    }
    return true;
}

/* Fills w->rows with the enumeration positions the metric stores, ascending, and
 * returns their count (doc/formats/cube-reader-rules.md, R1).
 * Sum metrics (UINT64, DOUBLE) store only the rows that are non-zero somewhere: every
 * reader reads a missing row as zeros (pycubexr from the numpy type of the values,
 * CubeLib by filling the gap), and most call paths of a sum metric such as bytes_sent
 * or a wait-state pattern are zero, so full indexes make a profile several times larger.
 * MINDOUBLE and MAXDOUBLE metrics store every row: pycubexr's values of these types
 * have no numpy type to build a missing row from, and fails ("'MaxValues' object has
 * no attribute 'dtype'"). An index is never empty: pycubexr asserts that. */
static size_t select_rows(cube_writer *w, const hp_profile_metric *m)
{
    const uint32_t *order = enumeration(w, m);
    bool every_row = m->dtype == HP_DTYPE_MINDOUBLE || m->dtype == HP_DTYPE_MAXDOUBLE;
    size_t n = 0;
    for (size_t pos = 0; pos < w->p->ncnodes; pos++)
        if (every_row || !row_is_zero(w->p, m, cnode_at(order, pos)))
            w->rows[n++] = (uint32_t)pos;
    if (n == 0)
        w->rows[n++] = 0;
    return n;
}

/* ------------------------------------------------------------------ tar output */

static int write_bytes(cube_writer *w, const void *buf, size_t n)
{
    errno = 0;
    if (n > 0 && fwrite(buf, 1, n, w->out) != n)
        return fail_errno(w, "write", w->tmp_path, errno ? errno : EIO);
    return 0;
}

static unsigned tar_checksum(const unsigned char *h)
{
    unsigned sum = 0;
    for (size_t i = 0; i < TAR_BLOCK; i++)
        sum += h[i];
    return sum;
}

/* A ustar header as cubew writes it (mode 0600, nouser/users, typeflag '0'). */
static int write_tar_header(cube_writer *w, const char *name, uint64_t size)
{
    if (size > 0 && size % TAR_BLOCK == 0)
        return fail(w, "internal error: member %s of %s would be %" PRIu64
                    " bytes, a multiple of 512", name, w->path, size);
    if (size > TAR_MAX_SIZE)
        return fail(w, "member %s of %s is too large for a ustar header (%" PRIu64 " bytes)",
                    name, w->path, size);
    char h[TAR_BLOCK];
    memset(h, 0, sizeof h);
    snprintf(h, 100, "%s", name);
    snprintf(h + 100, 8, "0000600");
    snprintf(h + 108, 8, "0000000");
    snprintf(h + 116, 8, "0000000");
    snprintf(h + 124, 12, "%011" PRIo64, size);
    snprintf(h + 136, 12, "%011llo", (unsigned long long)w->mtime);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6); /* magic "ustar\0" */
    memcpy(h + 263, "00", 2);    /* version */
    snprintf(h + 265, 32, "nouser");
    snprintf(h + 297, 32, "users");
    memset(h + 148, ' ', 8); /* the checksum is computed with its own field as spaces */
    snprintf(h + 148, 8, "%06o", tar_checksum((const unsigned char *)h));
    h[155] = ' ';
    return write_bytes(w, h, sizeof h);
}

static int write_tar_padding(cube_writer *w, uint64_t size)
{
    static const char zeros[TAR_BLOCK];
    return write_bytes(w, zeros, (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK);
}

static int write_member(cube_writer *w, const char *name, const void *buf, size_t size)
{
    if (write_tar_header(w, name, size) < 0 || write_bytes(w, buf, size) < 0)
        return -1;
    return write_tar_padding(w, size);
}

/* <id>.index: "CUBEX.INDEX", uint32 1 (byte-order marker), uint16 version 0, uint8
 * format SPARSE, uint32 N, N uint32 positions (w->rows); all in native byte order. */
static int write_index(cube_writer *w, size_t metric, size_t nrows)
{
    size_t size = INDEX_HEADER_SIZE + nrows * sizeof(uint32_t);
    unsigned char *buf = malloc(size);
    if (!buf)
        return fail_oom(w);
    uint32_t one = 1, n = (uint32_t)nrows;
    uint16_t version = 0;
    memcpy(buf, "CUBEX.INDEX", 11);
    memcpy(buf + 11, &one, 4);
    memcpy(buf + 15, &version, 2);
    buf[17] = SPARSE_INDEX;
    memcpy(buf + 18, &n, 4);
    memcpy(buf + INDEX_HEADER_SIZE, w->rows, nrows * sizeof(uint32_t));
    char name[32];
    snprintf(name, sizeof name, "%zu.index", metric);
    int rc = write_member(w, name, buf, size);
    free(buf);
    return rc;
}

/* <id>.data: "CUBEX.DATA", then per listed position the row of nlocations values,
 * copied straight from the profile (it already is native-order and row-major). */
static int write_data(cube_writer *w, size_t metric, size_t nrows)
{
    const hp_profile *p = w->p;
    const hp_profile_metric *m = &p->metrics[metric];
    const uint32_t *order = enumeration(w, m);
    size_t rowbytes = p->nlocations * VALUE_SIZE;
    uint64_t size = DATA_MARKER_SIZE + (uint64_t)nrows * rowbytes;
    char name[32];
    snprintf(name, sizeof name, "%zu.data", metric);
    if (write_tar_header(w, name, size) < 0 || write_bytes(w, "CUBEX.DATA", 10) < 0)
        return -1;
    for (size_t r = 0; r < nrows; r++)
        if (write_bytes(w, metric_row(p, m, cnode_at(order, w->rows[r])), rowbytes) < 0)
            return -1;
    return write_tar_padding(w, size);
}

static int write_archive(cube_writer *w, const strbuf *anchor)
{
    if (write_member(w, "anchor.xml", anchor->buf, anchor->len) < 0)
        return -1;
    for (size_t i = 0; i < w->p->nmetrics; i++) {
        size_t nrows = select_rows(w, &w->p->metrics[i]);
        if (write_index(w, i, nrows) < 0 || write_data(w, i, nrows) < 0)
            return -1;
    }
    static const char end_of_archive[2 * TAR_BLOCK];
    return write_bytes(w, end_of_archive, sizeof end_of_archive);
}

/* ------------------------------------------------------------------ files */

static int open_tmp(cube_writer *w)
{
    size_t n = strlen(w->path) + sizeof ".tmp";
    w->tmp_path = malloc(n);
    if (!w->tmp_path)
        return fail_oom(w);
    snprintf(w->tmp_path, n, "%s.tmp", w->path);
    /* Not through a symbolic link put in its place: that could send the file anywhere. */
    int fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    w->out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!w->out) {
        int error = errno;
        if (fd >= 0) {
            close(fd);
            unlink(w->tmp_path);
        }
        return fail_errno(w, "create", w->tmp_path, error);
    }
    w->tmp_created = true;
    return 0;
}

/* Flushes and syncs the temporary file, so that the rename never exposes a file whose
 * contents are not on disk yet. */
static int close_tmp(cube_writer *w)
{
    FILE *f = w->out;
    w->out = NULL;
    if (fflush(f) != 0 || (fsync(fileno(f)) != 0 && errno != EINVAL)) {
        int e = errno;
        fclose(f);
        return fail_errno(w, "write", w->tmp_path, e);
    }
    if (fclose(f) != 0)
        return fail_errno(w, "close", w->tmp_path, errno);
    return 0;
}

static int alloc_scratch(cube_writer *w)
{
    size_t n = w->p->ncnodes;
    w->wide_order = malloc(n * sizeof *w->wide_order);
    w->rows = malloc(n * sizeof *w->rows);
    w->stack = malloc(n * sizeof *w->stack);
    if (!w->wide_order || !w->rows || !w->stack)
        return fail_oom(w);
    return 0;
}

int hp_cube_write(const hp_profile *p, const char *path, char *err, size_t errlen)
{
    cube_writer w = { .p = p, .path = path, .err = err, .errlen = err ? errlen : 0,
                      .mtime = time(NULL) };
    strbuf anchor = { 0 };
    int rc = -1;
    if (w.errlen)
        err[0] = '\0';
    if (!p || !path || !path[0]) {
        fail(&w, "no profile or no path given");
        return -1;
    }
    if (check_sizes(&w) < 0 || alloc_scratch(&w) < 0 || check_cnodes(&w) < 0 ||
        check_system(&w) < 0 || check_metrics(&w) < 0 || build_wide_order(&w) < 0 ||
        build_anchor(&w, &anchor) < 0 || open_tmp(&w) < 0 || write_archive(&w, &anchor) < 0 ||
        close_tmp(&w) < 0)
        goto out;
    if (rename(w.tmp_path, path) != 0) {
        fail(&w, "cannot rename %s to %s: %s", w.tmp_path, path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (w.out)
        fclose(w.out);
    if (rc != 0 && w.tmp_created)
        unlink(w.tmp_path);
    free(w.tmp_path);
    free(w.wide_order);
    free(w.rows);
    free(w.stack);
    free(anchor.buf);
    return rc;
}
