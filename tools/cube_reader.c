/*
 * Reads a Cube4 (.cubex) file into the profile model (cube_reader.h), following
 * doc/formats/CUBE4-OTF2.md: the tar members come through libarchive, anchor.xml
 * through cube_anchor.c (expat), and every metric's <id>.index/<id>.data pair is
 * placed row by row at the cnode its position names in that metric's call-tree
 * enumeration (depth-first for EXCLUSIVE, "wide" for INCLUSIVE, id order for SIMPLE).
 *
 * The profile's cnodes are the file's in document order, which is depth-first
 * pre-order; a file with several roots gets an artificial root in front. Values are
 * widened to 8 bytes (unsigned integers to UINT64, doubles and signed integers with
 * negative values to DOUBLE). Derived metrics and those whose values are not one number
 * (RATE, COMPLEX, histograms, ...) are left out; a metric without data files reads as
 * zeros, as in CubeLib. Every problem ends in one line naming the file, never a crash:
 * all sizes and ids from the file are checked before they are used.
 */
#include "cube_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_anchor.h"

enum {
    INDEX_MAGIC_LEN = 11, /* "CUBEX.INDEX" */
    INDEX_HEADER_LEN = 18,
    DATA_MAGIC_LEN = 10, /* "CUBEX.DATA" */
    FORMAT_SPARSE = 1,
    FORMAT_DENSE = 3,
    TAR_BLOCK = 512,
    MAX_MEMBERS = 100000
};

/* Everything a read profile owns, behind hp_cube_profile.storage. */
typedef struct reader_storage {
    cube_anchor anchor; /* owns the strings the profile points to */
    char *root_name;
    hp_profile_region *regions;
    hp_profile_cnode *cnodes;
    uint32_t *file_cnode_ids;
    hp_profile_node *nodes;
    hp_profile_process *processes;
    hp_profile_location *locations;
    hp_profile_metric *metrics;
    hp_cube_metric_info *metric_info;
    void **values; /* one per entry of metrics */
    size_t nnodes;
    size_t nmetrics;
} reader_storage;

/* One tar member kept in memory. */
typedef struct member {
    char *name;
    unsigned char *data;
    size_t size;
} member;

typedef struct reader {
    const char *path;
    char *err;
    size_t errlen;
    member *members;
    size_t nmembers;
    reader_storage *st;
    const cube_anchor *a;
    uint32_t root_offset; /* 1 when an artificial root was added */
    uint32_t *region_of_cnode;
    uint32_t *deep_order;   /* document index at each EXCLUSIVE position */
    uint32_t *wide_order;   /* ... INCLUSIVE position */
    uint32_t *simple_order; /* ... SIMPLE position */
} reader;

/* ------------------------------------------------------------------ errors */

static int fail(reader *r, const char *fmt, ...)
{
    int n = snprintf(r->err, r->errlen, "%s: ", r->path);
    if (n >= 0 && (size_t)n < r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int fail_oom(reader *r)
{
    return fail(r, "out of memory");
}

/* ------------------------------------------------------------------ tar members */

static int fail_tar(reader *r, struct archive *ar)
{
    const char *msg = archive_error_string(ar);
    if (msg != NULL && strstr(msg, "runcated") != NULL)
        return fail(r, "truncated (the tar archive ends inside a member)");
    return fail(r, "damaged tar archive (%s)", msg != NULL ? msg : "unknown error");
}

static bool wanted_member(const char *name)
{
    size_t n = strlen(name);
    return strcmp(name, "anchor.xml") == 0 ||
           (n > 6 && strcmp(name + n - 6, ".index") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".data") == 0);
}

static int keep_member(reader *r, struct archive *ar, struct archive_entry *e)
{
    const char *name = archive_entry_pathname(e);
    la_int64_t size = archive_entry_size(e);
    if (name == NULL || !wanted_member(name) || size < 0)
        return 0;
    if (r->nmembers >= MAX_MEMBERS)
        return fail(r, "more than %d members", MAX_MEMBERS);
    member *m = realloc(r->members, (r->nmembers + 1) * sizeof(*m));
    if (m == NULL)
        return fail_oom(r);
    r->members = m;
    m = &r->members[r->nmembers];
    *m = (member){ strdup(name), malloc((size_t)size + 1), (size_t)size };
    if (m->name == NULL || m->data == NULL) {
        free(m->name), free(m->data);
        return fail_oom(r);
    }
    r->nmembers++;
    la_ssize_t got = archive_read_data(ar, m->data, (size_t)size);
    if (got < 0)
        return fail_tar(r, ar);
    if ((size_t)got != (size_t)size)
        return fail(r, "%s: truncated (%lld of %lld bytes)", name, (long long)got,
                    (long long)size);
    m->data[size] = '\0'; /* anchor.xml is handed on as text */
    return 0;
}

/* cubew 4.8 wrote tar checksums 32 too small (one byte of the checksum field summed as
 * NUL instead of space); CubeLib ignores checksums, libarchive refuses such headers. For
 * a file libarchive cannot open, this repairs exactly that error in a copy and tries
 * again. Returns the number of headers repaired. */
static size_t repair_cubew48_checksums(unsigned char *buf, size_t len)
{
    size_t repaired = 0;
    for (size_t pos = 0; pos + TAR_BLOCK <= len;) {
        unsigned char *h = buf + pos;
        if (h[0] == '\0')
            break;
        char checksum_field[9] = { 0 }; /* the field has no terminating NUL of its own */
        memcpy(checksum_field, h + 148, 8);
        unsigned long sum = 0, stored = strtoul(checksum_field, NULL, 8);
        for (size_t i = 0; i < TAR_BLOCK; i++)
            sum += (i >= 148 && i < 156) ? ' ' : h[i];
        if (stored + 32 == sum) {
            snprintf((char *)h + 148, 8, "%06lo", sum);
            repaired++;
        }
        char size_field[13] = { 0 };
        memcpy(size_field, h + 124, 12);
        unsigned long long size = strtoull(size_field, NULL, 8);
        if (size > len)
            break;
        pos += TAR_BLOCK + (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
    }
    return repaired;
}

static int read_members_from(reader *r, const void *buf, size_t len, bool report)
{
    struct archive *ar = archive_read_new();
    if (ar == NULL)
        return fail_oom(r);
    archive_read_support_format_tar(ar);
    /* cubew pads members whose size is a multiple of 512 with an extra zero block,
     * which ends a tar archive for readers that stop at the first zero block. */
    archive_read_set_options(ar, "tar:read_concatenated_archives");
    int rc = 0;
    if (archive_read_open_memory(ar, buf, len) != ARCHIVE_OK) {
        rc = report ? fail(r, "not a Cube4 file (not a tar archive: %s)",
                           archive_error_string(ar))
                    : -1;
    } else {
        struct archive_entry *e;
        int st;
        while (rc == 0 && (st = archive_read_next_header(ar, &e)) == ARCHIVE_OK)
            rc = keep_member(r, ar, e);
        if (rc == 0 && st != ARCHIVE_EOF)
            rc = report ? fail_tar(r, ar) : -1;
    }
    archive_read_free(ar);
    return rc;
}

static void free_members(reader *r)
{
    for (size_t i = 0; i < r->nmembers; i++)
        free(r->members[i].name), free(r->members[i].data);
    free(r->members);
    r->members = NULL;
    r->nmembers = 0;
}

static int load_file(reader *r, unsigned char **buf, size_t *len)
{
    FILE *f = fopen(r->path, "rb");
    if (f == NULL)
        return fail(r, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    while (b != NULL) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *nb = realloc(b, cap *= 2);
        if (nb == NULL)
            free(b);
        b = nb;
    }
    int bad = ferror(f);
    fclose(f);
    if (b == NULL)
        return fail_oom(r);
    if (bad) {
        free(b);
        return fail(r, "read error");
    }
    *buf = b;
    *len = n;
    return 0;
}

/* Reads the members from buf (len bytes), which the checksum repair may modify. */
static int read_members(reader *r, unsigned char *buf, size_t len)
{
    if (len == 0)
        return fail(r, "not a Cube4 file (empty)");
    if (read_members_from(r, buf, len, false) == 0)
        return 0;
    free_members(r);
    repair_cubew48_checksums(buf, len);
    return read_members_from(r, buf, len, true);
}

static const member *find_member(const reader *r, const char *name)
{
    for (size_t i = 0; i < r->nmembers; i++)
        if (strcmp(r->members[i].name, name) == 0)
            return &r->members[i];
    return NULL;
}

/* ------------------------------------------------------------------ definitions */

static bool supported_version(const char *v)
{
    /* CubeLib knows 4.0-4.7 (not 4.6); later minor versions of 4 are read as 4.7. */
    return v[0] == '4' && v[1] == '.' && v[2] >= '0' && v[2] <= '9' && v[3] == '\0';
}

static const char *or_default(const char *s, const char *dflt)
{
    return s != NULL && *s != '\0' ? s : dflt;
}

static int compare_region_ids(const void *a, const void *b, void *ctx)
{
    const cube_def_region *regions = ctx;
    long x = regions[*(const uint32_t *)a].id, y = regions[*(const uint32_t *)b].id;
    return x < y ? -1 : x > y;
}

/* Region index of every cnode, through the regions sorted by file id. */
static int resolve_callees(reader *r)
{
    const cube_anchor *a = r->a;
    uint32_t *by_id = malloc((a->nregions + 1) * sizeof(uint32_t));
    r->region_of_cnode = malloc(a->ncnodes * sizeof(uint32_t));
    if (by_id == NULL || r->region_of_cnode == NULL) {
        free(by_id);
        return fail_oom(r);
    }
    for (uint32_t i = 0; i < a->nregions; i++)
        by_id[i] = i;
    qsort_r(by_id, a->nregions, sizeof(uint32_t), compare_region_ids, a->regions);
    int rc = 0;
    for (size_t c = 0; c < a->ncnodes && rc == 0; c++) {
        size_t lo = 0, hi = a->nregions;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (a->regions[by_id[mid]].id < a->cnodes[c].callee)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == a->nregions || a->regions[by_id[lo]].id != a->cnodes[c].callee)
            rc = fail(r, "cnode %ld calls undefined region %ld", a->cnodes[c].id,
                      a->cnodes[c].callee);
        else
            r->region_of_cnode[c] = by_id[lo];
    }
    free(by_id);
    return rc;
}

static char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strdup(slash != NULL ? slash + 1 : path);
}

static int build_regions(reader *r)
{
    const cube_anchor *a = r->a;
    reader_storage *st = r->st;
    size_t n = a->nregions + r->root_offset;
    st->regions = calloc(n, sizeof(hp_profile_region));
    if (st->regions == NULL)
        return fail_oom(r);
    for (size_t i = 0; i < a->nregions; i++) {
        const cube_def_region *d = &a->regions[i];
        const char *name = or_default(d->name, "");
        st->regions[i] = (hp_profile_region){
            name,         or_default(d->mangled_name, name), d->mod,
            (int)d->begin, (int)d->end, or_default(d->paradigm, "unknown"),
            or_default(d->role, "unknown"), false,
        };
    }
    if (r->root_offset) {
        /* The artificial root of a file with several roots, named after the file. */
        st->root_name = base_name(r->path);
        if (st->root_name == NULL)
            return fail_oom(r);
        st->regions[a->nregions] = (hp_profile_region){
            st->root_name, st->root_name, "", -1, -1, "measurement", "artificial", false
        };
    }
    return 0;
}

static int build_cnodes(reader *r)
{
    const cube_anchor *a = r->a;
    reader_storage *st = r->st;
    size_t n = a->ncnodes + r->root_offset;
    st->cnodes = malloc(n * sizeof(hp_profile_cnode));
    st->file_cnode_ids = malloc(n * sizeof(uint32_t));
    if (st->cnodes == NULL || st->file_cnode_ids == NULL)
        return fail_oom(r);
    if (r->root_offset) {
        st->cnodes[0] = (hp_profile_cnode){ HP_PROFILE_NO_PARENT, (uint32_t)a->nregions };
        st->file_cnode_ids[0] = UINT32_MAX;
    }
    for (size_t c = 0; c < a->ncnodes; c++) {
        uint32_t parent = a->cnodes[c].parent;
        parent = parent != CUBE_NONE ? parent + r->root_offset
                 : r->root_offset    ? 0
                                     : HP_PROFILE_NO_PARENT;
        st->cnodes[c + r->root_offset] = (hp_profile_cnode){ parent, r->region_of_cnode[c] };
        st->file_cnode_ids[c + r->root_offset] = (uint32_t)a->cnodes[c].id;
    }
    return 0;
}

/* Location columns must be exactly 0..L-1: the location id is the data column. */
static int check_location_ids(reader *r)
{
    const cube_anchor *a = r->a;
    bool *seen = calloc(a->nlocations, sizeof(bool));
    if (seen == NULL)
        return fail_oom(r);
    int rc = 0;
    for (size_t l = 0; l < a->nlocations && rc == 0; l++) {
        long id = a->locations[l].id;
        if (id < 0 || (size_t)id >= a->nlocations || seen[id])
            rc = fail(r, "location id %ld is not one of 0..%zu or not unique", id,
                      a->nlocations - 1);
        else
            seen[id] = true;
    }
    free(seen);
    return rc;
}

/* Nodes are the system tree nodes that hold location groups; processes are the
 * location groups; profile location i is the file's location with id i. */
static int build_system(reader *r)
{
    const cube_anchor *a = r->a;
    reader_storage *st = r->st;
    if (check_location_ids(r) != 0)
        return -1;
    uint32_t *node_of_stn = malloc((a->nstns + 1) * sizeof(uint32_t));
    st->nodes = calloc(a->nstns + 1, sizeof(hp_profile_node));
    st->processes = calloc(a->ngroups + 1, sizeof(hp_profile_process));
    st->locations = calloc(a->nlocations, sizeof(hp_profile_location));
    if (node_of_stn == NULL || st->nodes == NULL || st->processes == NULL ||
        st->locations == NULL) {
        free(node_of_stn);
        return fail_oom(r);
    }
    size_t nnodes = 0;
    for (size_t i = 0; i < a->nstns; i++)
        node_of_stn[i] = CUBE_NONE;
    for (size_t g = 0; g < a->ngroups; g++) {
        uint32_t s = a->groups[g].stn;
        if (node_of_stn[s] == CUBE_NONE) {
            node_of_stn[s] = (uint32_t)nnodes;
            st->nodes[nnodes++].name = or_default(a->stns[s].name, "");
        }
        st->processes[g] = (hp_profile_process){ (int)a->groups[g].rank, node_of_stn[s] };
    }
    for (size_t l = 0; l < a->nlocations; l++) {
        const cube_def_location *d = &a->locations[l];
        st->locations[d->id] = (hp_profile_location){ or_default(d->name, ""), (int)d->rank,
                                                      d->group };
    }
    free(node_of_stn);
    st->nnodes = nnodes;
    return 0;
}

/* ------------------------------------------------------------------ enumerations */

/* Children of every document-order cnode, as one array plus offsets. */
typedef struct children {
    uint32_t *first; /* ncnodes + 1 offsets into list */
    uint32_t *list;
} children;

static int build_children(const cube_anchor *a, children *ch)
{
    size_t n = a->ncnodes;
    ch->first = calloc(n + 2, sizeof(uint32_t));
    ch->list = malloc((n + 1) * sizeof(uint32_t));
    if (ch->first == NULL || ch->list == NULL)
        return -1;
    for (size_t c = 0; c < n; c++)
        if (a->cnodes[c].parent != CUBE_NONE)
            ch->first[a->cnodes[c].parent + 2]++;
    for (size_t c = 0; c < n; c++)
        ch->first[c + 2] += ch->first[c + 1];
    for (size_t c = 0; c < n; c++) /* document order keeps the children in order */
        if (a->cnodes[c].parent != CUBE_NONE)
            ch->list[ch->first[a->cnodes[c].parent + 1]++] = (uint32_t)c;
    return 0;
}

/* INCLUSIVE order (CubeLib's wide search): emit a root, then for each node taken in
 * depth-first order emit all of its children at once. Iterative: trees can be deep. */
static void wide_order(const cube_anchor *a, const children *ch, uint32_t *order,
                       uint32_t *stack)
{
    size_t n = 0;
    for (uint32_t root = 0; root < a->ncnodes; root++) {
        if (a->cnodes[root].parent != CUBE_NONE)
            continue;
        order[n++] = root;
        size_t top = 0;
        stack[top++] = root;
        while (top > 0) {
            uint32_t c = stack[--top];
            for (uint32_t k = ch->first[c]; k < ch->first[c + 1]; k++)
                order[n++] = ch->list[k];
            for (uint32_t k = ch->first[c + 1]; k-- > ch->first[c];)
                stack[top++] = ch->list[k];
        }
    }
}

static int compare_cnode_ids(const void *a, const void *b, void *ctx)
{
    const cube_def_cnode *cnodes = ctx;
    long x = cnodes[*(const uint32_t *)a].id, y = cnodes[*(const uint32_t *)b].id;
    return x < y ? -1 : x > y;
}

static int build_orders(reader *r)
{
    const cube_anchor *a = r->a;
    size_t n = a->ncnodes;
    children ch = { NULL, NULL };
    uint32_t *stack = malloc(n * sizeof(uint32_t));
    r->deep_order = malloc(n * sizeof(uint32_t));
    r->wide_order = malloc(n * sizeof(uint32_t));
    r->simple_order = malloc(n * sizeof(uint32_t));
    int rc = 0;
    if (stack == NULL || r->deep_order == NULL || r->wide_order == NULL ||
        r->simple_order == NULL || build_children(a, &ch) != 0) {
        rc = fail_oom(r);
    } else {
        for (uint32_t c = 0; c < n; c++)
            r->deep_order[c] = r->simple_order[c] = c;
        wide_order(a, &ch, r->wide_order, stack);
        qsort_r(r->simple_order, n, sizeof(uint32_t), compare_cnode_ids, a->cnodes);
    }
    free(stack);
    free(ch.first);
    free(ch.list);
    return rc;
}

/* ------------------------------------------------------------------ metric values */

typedef enum source_kind { SRC_FLOAT, SRC_SIGNED, SRC_UNSIGNED } source_kind;

typedef struct dtype_info {
    const char *name;
    unsigned size;
    source_kind kind;
    hp_metric_dtype as; /* for floats; integers are decided by their values */
} dtype_info;

static const dtype_info dtypes[] = {
    { "DOUBLE", 8, SRC_FLOAT, HP_DTYPE_DOUBLE },
    { "FLOAT", 8, SRC_FLOAT, HP_DTYPE_DOUBLE }, /* a 64-bit double in Cube */
    { "MINDOUBLE", 8, SRC_FLOAT, HP_DTYPE_MINDOUBLE },
    { "MAXDOUBLE", 8, SRC_FLOAT, HP_DTYPE_MAXDOUBLE },
    { "INTEGER", 8, SRC_SIGNED, 0 },
    { "INT64", 8, SRC_SIGNED, 0 },
    { "SIGNED INTEGER", 8, SRC_SIGNED, 0 },
    { "UINT64", 8, SRC_UNSIGNED, 0 },
    { "UNSIGNED INTEGER", 8, SRC_UNSIGNED, 0 },
    { "INT32", 4, SRC_SIGNED, 0 },
    { "INT", 4, SRC_SIGNED, 0 },
    { "SIGNED INT", 4, SRC_SIGNED, 0 },
    { "UINT32", 4, SRC_UNSIGNED, 0 },
    { "UNSIGNED INT", 4, SRC_UNSIGNED, 0 },
    { "INT16", 2, SRC_SIGNED, 0 },
    { "SHORT INT", 2, SRC_SIGNED, 0 },
    { "SIGNED SHORT INT", 2, SRC_SIGNED, 0 },
    { "UINT16", 2, SRC_UNSIGNED, 0 },
    { "UNSIGNED SHORT INT", 2, SRC_UNSIGNED, 0 },
    { "INT8", 1, SRC_SIGNED, 0 },
    { "UINT8", 1, SRC_UNSIGNED, 0 },
    { "CHAR", 1, SRC_UNSIGNED, 0 },
};

/* Values that are not one number: the metric is left out. */
static bool composite_dtype(const char *name)
{
    static const char *const composite[] = { "COMPLEX", "RATE", "TAU_ATOMIC", "HISTOGRAM",
                                             "NDOUBLES", "SCALE_FUNC" };
    for (size_t i = 0; i < sizeof(composite) / sizeof(composite[0]); i++)
        if (strncmp(name, composite[i], strlen(composite[i])) == 0)
            return true;
    return false;
}

/* Unknown dtype names read as DOUBLE, as in CubeLib. */
static const dtype_info *find_dtype(const char *name)
{
    for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return &dtypes[i];
    return &dtypes[0];
}

static bool derived_type(const cube_def_metric *m)
{
    return m->has_cubepl || strstr(m->type, "DERIVED") != NULL;
}

/* A metric's stored values, decoded: the raw member bytes and how to read them. */
typedef struct metric_data {
    const dtype_info *dt;
    bool swap;
    const uint32_t *positions; /* NULL = dense */
    uint32_t nrows;
    const unsigned char *rows; /* nrows * nlocations values of dt->size bytes */
    const uint32_t *order;     /* document index at each position */
} metric_data;

static uint64_t load_uint(const unsigned char *p, unsigned size, bool swap)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++) {
        /* Assemble in the file's byte order: little-endian unless swapped. */
        unsigned shift = 8 * (swap ? size - 1 - i : i);
        v |= (uint64_t)p[i] << shift;
    }
    return v;
}

/* The writer's byte order is the host's when the marker reads 1; only little-endian
 * hosts are assumed here (x86-64, aarch64), which load_uint encodes. */
static int read_index(reader *r, const char *name, const member *m, metric_data *md,
                      uint32_t ncnodes)
{
    const unsigned char *p = m->data;
    if (m->size < INDEX_HEADER_LEN || memcmp(p, "CUBEX.INDEX", INDEX_MAGIC_LEN) != 0)
        return fail(r, "%s: not a Cube index (bad header)", name);
    uint32_t marker = (uint32_t)load_uint(p + 11, 4, false);
    if (marker != 1 && marker != 0x01000000u)
        return fail(r, "%s: bad byte order marker 0x%08x", name, (unsigned)marker);
    md->swap = marker != 1;
    unsigned format = p[17];
    if (format == FORMAT_DENSE) {
        md->positions = NULL;
        md->nrows = ncnodes;
        return 0;
    }
    if (format != FORMAT_SPARSE)
        return fail(r, "%s: unsupported index format %u", name, format);
    if (m->size < INDEX_HEADER_LEN + 4)
        return fail(r, "%s: truncated", name);
    uint32_t n = (uint32_t)load_uint(p + 18, 4, md->swap);
    if ((m->size - 22) / 4 < n)
        return fail(r, "%s: truncated (%u rows announced, room for %zu)", name, n,
                    (m->size - 22) / 4);
    uint32_t *pos = malloc((n + 1) * sizeof(uint32_t));
    if (pos == NULL)
        return fail_oom(r);
    for (uint32_t i = 0; i < n; i++) {
        pos[i] = (uint32_t)load_uint(p + 22 + 4 * (size_t)i, 4, md->swap);
        if (pos[i] >= ncnodes || (i > 0 && pos[i] <= pos[i - 1])) {
            uint32_t bad = pos[i];
            free(pos);
            return fail(r, "%s: row %u: position %u out of order or beyond %u cnodes",
                        name, i, bad, ncnodes);
        }
    }
    md->positions = pos;
    md->nrows = n;
    return 0;
}

static int read_data(reader *r, const char *name, const member *m, metric_data *md,
                     size_t nlocations)
{
    if (m->size >= 11 && memcmp(m->data, "ZCUBEX.DATA", 11) == 0)
        return fail(r, "%s: compressed data (ZCUBEX) is not supported", name);
    if (m->size < DATA_MAGIC_LEN || memcmp(m->data, "CUBEX.DATA", DATA_MAGIC_LEN) != 0)
        return fail(r, "%s: not Cube data (bad header)", name);
    size_t have = m->size - DATA_MAGIC_LEN;
    size_t row = nlocations * md->dt->size;
    if (row != 0 && have / row < md->nrows)
        return fail(r, "%s: truncated (%zu bytes of values, %u rows of %zu needed)", name,
                    have, md->nrows, row);
    md->rows = m->data + DATA_MAGIC_LEN;
    return 0;
}

static double decode_double(const unsigned char *p, const metric_data *md)
{
    uint64_t bits = load_uint(p, md->dt->size, md->swap);
    if (md->dt->kind == SRC_FLOAT) {
        double d;
        memcpy(&d, &bits, sizeof(d));
        return d;
    }
    if (md->dt->kind == SRC_SIGNED) {
        unsigned shift = 64 - 8 * md->dt->size; /* sign-extend the narrow types */
        return (double)((int64_t)(bits << shift) >> shift);
    }
    return (double)bits;
}

static bool any_negative(const metric_data *md, size_t nlocations)
{
    if (md->dt->kind != SRC_SIGNED)
        return false;
    for (size_t i = 0; i < (size_t)md->nrows * nlocations; i++)
        if (decode_double(md->rows + i * md->dt->size, md) < 0)
            return true;
    return false;
}

/* Stores every row at its cnode; values is ncnodes x nlocations of out dtype. */
static void place_rows(const reader *r, const metric_data *md, hp_metric_dtype out,
                       void *values)
{
    size_t nloc = r->a->nlocations;
    for (uint32_t row = 0; row < md->nrows; row++) {
        uint32_t pos = md->positions != NULL ? md->positions[row] : row;
        size_t cnode = md->order[pos] + r->root_offset;
        for (size_t l = 0; l < nloc; l++) {
            const unsigned char *p = md->rows + ((size_t)row * nloc + l) * md->dt->size;
            if (out == HP_DTYPE_UINT64)
                ((uint64_t *)values)[cnode * nloc + l] = md->dt->kind == SRC_FLOAT
                    ? hp_profile_count(decode_double(p, md))
                    : load_uint(p, md->dt->size, md->swap);
            else
                ((double *)values)[cnode * nloc + l] = decode_double(p, md);
        }
    }
}

/* An INCLUSIVE metric's artificial root holds the aggregate of the real roots: the
 * sum, or the min / max for MINDOUBLE / MAXDOUBLE. */
static void fill_artificial_root(const reader *r, const hp_profile_metric *m, void *values)
{
    size_t nloc = r->a->nlocations;
    const hp_profile_cnode *cn = r->st->cnodes;
    /* Inclusive metrics and min/max ones (whose "exclusive" value is a per-visit extreme)
     * get the aggregate of the real roots; other exclusive metrics stay 0 there. */
    if (!r->root_offset || (m->kind != HP_METRIC_INCLUSIVE && m->dtype != HP_DTYPE_MINDOUBLE &&
                            m->dtype != HP_DTYPE_MAXDOUBLE))
        return;
    bool first = true;
    for (size_t c = 1; c < r->a->ncnodes + 1; c++) {
        if (cn[c].parent != 0)
            continue;
        for (size_t l = 0; l < nloc; l++) {
            if (m->dtype == HP_DTYPE_UINT64) {
                ((uint64_t *)values)[l] += ((uint64_t *)values)[c * nloc + l];
                continue;
            }
            double *root = &((double *)values)[l], v = ((double *)values)[c * nloc + l];
            if (first || m->dtype == HP_DTYPE_DOUBLE)
                *root = first ? v : *root + v;
            else if (m->dtype == HP_DTYPE_MINDOUBLE ? v < *root : v > *root)
                *root = v;
        }
        first = false;
    }
}

static void member_name(char *buf, size_t len, const cube_def_metric *d, const char *ext)
{
    snprintf(buf, len, "%s%ld.%s", d->ghost ? "ghost_" : "", d->id, ext);
}

/* Reads one metric's index and data into values. */
static int load_metric(reader *r, const cube_def_metric *d, hp_profile_metric *m,
                       hp_cube_metric_info *info, void **values)
{
    char iname[48], dname[48];
    member_name(iname, sizeof(iname), d, "index");
    member_name(dname, sizeof(dname), d, "data");
    const member *im = find_member(r, iname), *dm = find_member(r, dname);
    size_t ncells = (r->a->ncnodes + r->root_offset) * r->a->nlocations;
    metric_data md = { .dt = find_dtype(d->dtype) };
    m->dtype = md.dt->kind == SRC_FLOAT ? md.dt->as : HP_DTYPE_UINT64;
    if (im == NULL && dm == NULL) { /* no data stored: zeros, as in CubeLib */
        *values = calloc(ncells ? ncells : 1, 8);
        return *values != NULL ? 0 : fail_oom(r);
    }
    if (im == NULL || dm == NULL)
        return fail(r, "metric \"%s\": %s without %s", m->uniq_name, im ? iname : dname,
                    im ? dname : iname);
    info->has_data = true;
    md.order = strcmp(d->type, "INCLUSIVE") == 0 ? r->wide_order
               : strcmp(d->type, "SIMPLE") == 0  ? r->simple_order
                                                 : r->deep_order;
    if (read_index(r, iname, im, &md, (uint32_t)r->a->ncnodes) != 0)
        return -1;
    int rc = read_data(r, dname, dm, &md, r->a->nlocations);
    if (rc == 0 && any_negative(&md, r->a->nlocations))
        m->dtype = HP_DTYPE_DOUBLE;
    if (rc == 0 && (*values = calloc(ncells ? ncells : 1, 8)) == NULL)
        rc = fail_oom(r);
    if (rc == 0) {
        place_rows(r, &md, m->dtype, *values);
        fill_artificial_root(r, m, *values);
    }
    free((void *)md.positions);
    return rc;
}

static bool metric_readable(const cube_def_metric *d)
{
    return !derived_type(d) && !composite_dtype(d->dtype);
}

/* Every readable metric becomes a dense call paths x locations array (and the reports
 * derive a few more of that size), so a small file that declares huge counts could
 * demand more memory than the machine has: refuse such files up front. */
enum { MAX_VALUE_BYTES_LOG2 = 30 }; /* 1 GiB of metric values */

static int check_size(reader *r)
{
    const cube_anchor *a = r->a;
    size_t readable = 0;
    for (size_t i = 0; i < a->nmetrics; i++)
        readable += metric_readable(&a->metrics[i]);
    double bytes = (double)(a->ncnodes + r->root_offset) * (double)a->nlocations *
                   (double)readable * 8.0;
    if (bytes <= (double)(1ull << MAX_VALUE_BYTES_LOG2))
        return 0;
    return fail(r, "too large to report: %zu call paths x %zu locations x %zu metrics need "
                   "%.1f GiB of values (at most 1 GiB)",
                (size_t)a->ncnodes, (size_t)a->nlocations, readable, bytes / (1 << 30));
}

static int build_metrics(reader *r)
{
    const cube_anchor *a = r->a;
    reader_storage *st = r->st;
    if (check_size(r) != 0)
        return -1;
    st->metrics = calloc(a->nmetrics, sizeof(hp_profile_metric));
    st->metric_info = calloc(a->nmetrics, sizeof(hp_cube_metric_info));
    st->values = calloc(a->nmetrics, sizeof(void *));
    if (st->metrics == NULL || st->metric_info == NULL || st->values == NULL)
        return fail_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < a->nmetrics; i++) {
        const cube_def_metric *d = &a->metrics[i];
        if (!metric_readable(d))
            continue;
        hp_profile_metric *m = &st->metrics[n];
        m->uniq_name = or_default(d->uniq_name, "");
        m->disp_name = or_default(d->disp_name, m->uniq_name);
        m->uom = or_default(d->uom, "");
        m->descr = or_default(d->descr, "");
        m->kind = strcmp(d->type, "INCLUSIVE") == 0 ? HP_METRIC_INCLUSIVE
                                                    : HP_METRIC_EXCLUSIVE;
        st->metric_info[n] = (hp_cube_metric_info){ d->id, NULL, false };
        if (d->parent != CUBE_NONE)
            st->metric_info[n].parent_name = or_default(a->metrics[d->parent].uniq_name, "");
        m->parent = st->metric_info[n].parent_name;
        if (load_metric(r, d, m, &st->metric_info[n], &st->values[n]) != 0)
            return -1;
        m->values = st->values[n++];
        st->nmetrics = n;
    }
    return 0;
}

/* ------------------------------------------------------------------ assembly */

static size_t count_roots(const cube_anchor *a)
{
    size_t roots = 0;
    for (size_t c = 0; c < a->ncnodes; c++)
        roots += a->cnodes[c].parent == CUBE_NONE;
    return roots;
}

static int parse_anchor(reader *r)
{
    const member *m = find_member(r, "anchor.xml");
    if (m == NULL)
        return fail(r, "not a Cube4 file (no anchor.xml)");
    if (m->size >= 2 && m->data[0] == 0x1f && m->data[1] == 0x8b)
        return fail(r, "anchor.xml is compressed (cubew zlib mode), not supported");
    char msg[256];
    if (hp__cube_anchor_parse((const char *)m->data, m->size, &r->st->anchor, msg,
                              sizeof(msg)) != 0)
        return fail(r, "%s", msg);
    r->a = &r->st->anchor;
    if (!supported_version(r->a->version))
        return fail(r, "unsupported Cube version \"%s\" (this reader knows 4.x)",
                    r->a->version);
    return 0;
}

static void fill_profile(const reader *r, hp_profile *p)
{
    const cube_anchor *a = r->a;
    const reader_storage *st = r->st;
    *p = (hp_profile){
        .creator = "Cube4 file",
        .machine_name = a->nstns > 0 ? or_default(a->stns[0].name, "") : "",
        .regions = st->regions,
        .nregions = a->nregions + r->root_offset,
        .cnodes = st->cnodes,
        .ncnodes = a->ncnodes + r->root_offset,
        .nodes = st->nodes,
        .nnodes = st->nnodes,
        .processes = st->processes,
        .nprocesses = a->ngroups,
        .locations = st->locations,
        .nlocations = a->nlocations,
        .metrics = st->metrics,
        .nmetrics = st->nmetrics,
        .interrupted = a->interrupted,
        .wait_states = a->wait_states,
        .fallback_units = a->hp_fallback,
    };
}

/* hpmeasure's instrumentation note, when the file has one (profile/profile.h). A
 * malformed note is ignored: it is a comment on the data, not data. */
static void read_instrumentation(const reader *r, hp_profile *p)
{
    const cube_anchor *a = r->a;
    if (a->hp_instrumentation == NULL)
        return;
    uint64_t *words = (uint64_t *)&p->instrumentation;
    size_t n = sizeof(p->instrumentation) / sizeof(uint64_t);
    const char *s = a->hp_instrumentation;
    for (size_t i = 0; i < n; i++) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s && i == n - 1 && *s == '\0')
            break; /* written before the note named the hooks: HP_HOOKS_GCC */
        if (end == s) {
            memset(&p->instrumentation, 0, sizeof(p->instrumentation));
            return;
        }
        words[i] = v;
        s = end;
    }
    for (const char *d = a->hp_demoted; d != NULL && *d != '\0';) {
        size_t len = strcspn(d, " ");
        for (size_t i = 0; i < a->nregions; i++) {
            const char *m = r->st->regions[i].mangled_name;
            if (strlen(m) == len && strncmp(m, d, len) == 0)
                r->st->regions[i].demoted = true;
        }
        d += len + (d[len] == ' ');
    }
}

static int read_profile(reader *r, unsigned char *buf, size_t len, hp_cube_profile *out)
{
    if (read_members(r, buf, len) != 0 || parse_anchor(r) != 0 || resolve_callees(r) != 0)
        return -1;
    r->root_offset = count_roots(r->a) > 1;
    if (build_regions(r) != 0 || build_cnodes(r) != 0 || build_system(r) != 0 ||
        build_orders(r) != 0 || build_metrics(r) != 0)
        return -1;
    fill_profile(r, &out->profile);
    read_instrumentation(r, &out->profile);
    out->file_cnode_ids = r->st->file_cnode_ids;
    out->metric_info = r->st->metric_info;
    return 0;
}

/* Reads from buf, which it may modify; name is for messages and the artificial root. */
static int read_buffer(const char *name, unsigned char *buf, size_t len, hp_cube_profile *out,
                       char *err, size_t errlen)
{
    reader r = { .path = name, .err = err, .errlen = errlen };
    r.st = calloc(1, sizeof(reader_storage));
    if (r.st == NULL)
        return fail_oom(&r);
    out->storage = r.st;
    int rc = read_profile(&r, buf, len, out);
    free_members(&r);
    free(r.region_of_cnode);
    free(r.deep_order);
    free(r.wide_order);
    free(r.simple_order);
    if (rc != 0)
        hp_cube_profile_release(out);
    return rc;
}

int hp_cube_read(const char *path, hp_cube_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    reader r = { .path = path, .err = err, .errlen = errlen };
    unsigned char *buf = NULL;
    size_t len = 0;
    if (load_file(&r, &buf, &len) != 0)
        return -1;
    int rc = read_buffer(path, buf, len, out, err, errlen);
    free(buf);
    return rc;
}

int hp_cube_read_memory(const char *name, const void *data, size_t len, hp_cube_profile *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    unsigned char *copy = malloc(len ? len : 1);
    if (copy == NULL) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    memcpy(copy, data, len);
    int rc = read_buffer(name, copy, len, out, err, errlen);
    free(copy);
    return rc;
}

void hp_cube_profile_release(hp_cube_profile *p)
{
    reader_storage *st = p->storage;
    if (st != NULL) {
        for (size_t i = 0; st->values != NULL && i < st->nmetrics; i++)
            free(st->values[i]);
        free(st->values);
        free(st->metrics);
        free(st->metric_info);
        free(st->locations);
        free(st->processes);
        free(st->nodes);
        free(st->file_cnode_ids);
        free(st->cnodes);
        free(st->regions);
        free(st->root_name);
        hp__cube_anchor_release(&st->anchor);
        free(st);
    }
    memset(p, 0, sizeof(*p));
}
