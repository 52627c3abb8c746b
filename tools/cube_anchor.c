/*
 * Parses a Cube4 anchor.xml with expat into cube_anchor (cube_anchor.h): a stream of
 * start/end/text events driven by a stack of the open elements. Text elements such as
 * <name> or <rank> are assigned when they close, to the definition that encloses them
 * (metric, region, system tree node, location group or location). Both system tree
 * forms are accepted: Cube4's systemtreenode/locationgroup/location and the legacy
 * machine/node/process/thread. Elements this reader does not need (attr, doc,
 * parameter, topologies, ...) are skipped with their contents.
 */
#include "cube_anchor.h"

#include <errno.h>
#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

/* Element kinds this parser acts on; everything else is EL_OTHER. */
typedef enum el_kind {
    EL_OTHER,
    EL_CUBE,
    EL_METRIC,
    EL_REGION,
    EL_CNODE,
    EL_STN,      /* systemtreenode, machine, node */
    EL_GROUP,    /* locationgroup, process */
    EL_LOCATION, /* location, thread */
    EL_TEXT,     /* a text child: name, rank, dtype, ... */
    EL_SKIP      /* an element whose whole subtree is ignored */
} el_kind;

typedef struct open_element {
    el_kind kind;
    char tag[16];   /* for EL_TEXT: which field */
    uint32_t index; /* for definitions: index in their array */
} open_element;

typedef struct parser_state {
    XML_Parser xml;
    cube_anchor *a;
    open_element *stack;
    size_t depth, stack_cap;
    size_t skip_depth; /* > 0 while inside an EL_SKIP subtree */
    char *text;
    size_t text_len, text_cap;
    size_t caps[6]; /* capacities of the anchor's arrays */
    int seen_root;
    char *err;
    size_t errlen;
    int failed;
} parser_state;

/* ------------------------------------------------------------------ helpers */

static void fail(parser_state *s, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = 1;
    int n = snprintf(s->err, s->errlen, "anchor.xml line %lu: ",
                     (unsigned long)XML_GetCurrentLineNumber(s->xml));
    if (n >= 0 && (size_t)n < s->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err + n, s->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    XML_StopParser(s->xml, XML_FALSE);
}

/* Makes room for one more element of size bytes in *arr (count *n, capacity *cap). */
static void *grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        void *p = realloc(*arr, c * size);
        if (p == NULL)
            return NULL;
        *arr = p;
        *cap = c;
    }
    char *slot = (char *)*arr + n * size;
    memset(slot, 0, size);
    return slot;
}

static char *dup_or_fail(parser_state *s, const char *text)
{
    char *d = strdup(text);
    if (d == NULL)
        fail(s, "out of memory");
    return d;
}

static const char *attr(const XML_Char **atts, const char *name)
{
    for (size_t i = 0; atts[i] != NULL; i += 2)
        if (strcmp(atts[i], name) == 0)
            return atts[i + 1];
    return NULL;
}

/* Parses a whole decimal integer attribute; returns 0 or -1. */
static int parse_long(const char *text, long *out)
{
    if (text == NULL || *text == '\0')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int require_long(parser_state *s, const XML_Char **atts, const char *name,
                        const char *alt, const char *el, long *out)
{
    const char *v = attr(atts, name);
    if (v == NULL && alt != NULL)
        v = attr(atts, alt);
    if (parse_long(v, out) == 0)
        return 0;
    fail(s, "<%s> without a valid %s attribute", el, name);
    return -1;
}

/* The innermost open element of kind k (CUBE_NONE when there is none). */
static uint32_t innermost(const parser_state *s, el_kind k)
{
    for (size_t i = s->depth; i-- > 0;)
        if (s->stack[i].kind == k)
            return s->stack[i].index;
    return CUBE_NONE;
}

/* ------------------------------------------------------------------ start tags */

static uint32_t start_metric(parser_state *s, const XML_Char **atts)
{
    cube_anchor *a = s->a;
    cube_def_metric *m = grow((void **)&a->metrics, a->nmetrics, &s->caps[0], sizeof(*m));
    if (m == NULL) {
        fail(s, "out of memory");
        return 0;
    }
    m->parent = innermost(s, EL_METRIC);
    const char *viz = attr(atts, "viztype");
    m->ghost = viz != NULL && strcmp(viz, "GHOST") == 0;
    const char *type = attr(atts, "type");
    m->type = dup_or_fail(s, type != NULL ? type : "EXCLUSIVE");
    m->dtype = dup_or_fail(s, "DOUBLE");
    require_long(s, atts, "id", NULL, "metric", &m->id);
    return (uint32_t)a->nmetrics++;
}

static long long_attr_or(const XML_Char **atts, const char *name, long dflt)
{
    long v;
    return parse_long(attr(atts, name), &v) == 0 ? v : dflt;
}

static uint32_t start_region(parser_state *s, const XML_Char **atts)
{
    cube_anchor *a = s->a;
    cube_def_region *r = grow((void **)&a->regions, a->nregions, &s->caps[1], sizeof(*r));
    if (r == NULL) {
        fail(s, "out of memory");
        return 0;
    }
    require_long(s, atts, "id", NULL, "region", &r->id);
    const char *mod = attr(atts, "mod");
    r->mod = dup_or_fail(s, mod != NULL ? mod : "");
    r->begin = long_attr_or(atts, "begin", -1);
    r->end = long_attr_or(atts, "end", -1);
    return (uint32_t)a->nregions++;
}

static uint32_t start_cnode(parser_state *s, const XML_Char **atts)
{
    cube_anchor *a = s->a;
    cube_def_cnode *c = grow((void **)&a->cnodes, a->ncnodes, &s->caps[2], sizeof(*c));
    if (c == NULL) {
        fail(s, "out of memory");
        return 0;
    }
    c->parent = innermost(s, EL_CNODE);
    if (require_long(s, atts, "id", NULL, "cnode", &c->id) == 0)
        require_long(s, atts, "calleeId", NULL, "cnode", &c->callee);
    return (uint32_t)a->ncnodes++;
}

static uint32_t start_stn(parser_state *s, const char *legacy_class)
{
    cube_anchor *a = s->a;
    cube_def_stn *n = grow((void **)&a->stns, a->nstns, &s->caps[3], sizeof(*n));
    if (n == NULL) {
        fail(s, "out of memory");
        return 0;
    }
    n->parent = innermost(s, EL_STN);
    if (legacy_class != NULL)
        n->class_name = dup_or_fail(s, legacy_class);
    return (uint32_t)a->nstns++;
}

static uint32_t start_group(parser_state *s)
{
    cube_anchor *a = s->a;
    cube_def_group *g = grow((void **)&a->groups, a->ngroups, &s->caps[4], sizeof(*g));
    if (g == NULL) {
        fail(s, "out of memory");
        return 0;
    }
    g->stn = innermost(s, EL_STN);
    if (g->stn == CUBE_NONE)
        fail(s, "location group outside a system tree node");
    return (uint32_t)a->ngroups++;
}

static uint32_t start_location(parser_state *s, const XML_Char **atts)
{
    cube_anchor *a = s->a;
    cube_def_location *l = grow((void **)&a->locations, a->nlocations, &s->caps[5],
                                sizeof(*l));
    if (l == NULL) {
        fail(s, "out of memory");
        return 0;
    }
    l->group = innermost(s, EL_GROUP);
    if (l->group == CUBE_NONE)
        fail(s, "location outside a location group");
    /* Legacy files without ids number their threads in document order. */
    l->id = long_attr_or(atts, "Id", long_attr_or(atts, "id", (long)a->nlocations));
    return (uint32_t)a->nlocations++;
}

static int start_root(parser_state *s, const char *name, const XML_Char **atts)
{
    if (strcmp(name, "cube") != 0) {
        fail(s, "root element <%s>, expected <cube>", name);
        return -1;
    }
    const char *v = attr(atts, "version");
    if (v == NULL) {
        fail(s, "<cube> without a version");
        return -1;
    }
    s->a->version = dup_or_fail(s, v);
    s->seen_root = 1;
    return 0;
}

static const char *const text_tags[] = {
    "name", "uniq_name", "disp_name", "dtype", "uom", "descr", "mangled_name", "paradigm",
    "role", "class", "rank", "type", "cubepl", "cubeplinit", "cubeplaggr", "url", "val",
};

static int is_text_tag(const char *name)
{
    for (size_t i = 0; i < sizeof(text_tags) / sizeof(text_tags[0]); i++)
        if (strcmp(name, text_tags[i]) == 0)
            return 1;
    return 0;
}

/* hpmeasure's own attributes (profile/cube_writer.h) are kept; others are skipped. */
static void keep_hp_attribute(parser_state *s, const XML_Char **atts)
{
    const char *key = attr(atts, "key"), *value = attr(atts, "value");
    if (key == NULL || value == NULL)
        return;
    char **slot = strcmp(key, HP_CUBE_ATTR_INSTRUMENTATION) == 0 ? &s->a->hp_instrumentation
                  : strcmp(key, HP_CUBE_ATTR_DEMOTED) == 0      ? &s->a->hp_demoted
                  : strcmp(key, HP_CUBE_ATTR_INTERRUPTED) == 0  ? &s->a->interrupted
                  : strcmp(key, HP_CUBE_ATTR_WAIT_STATES) == 0  ? &s->a->wait_states
                  : strcmp(key, HP_CUBE_ATTR_FALLBACK) == 0     ? &s->a->hp_fallback
                                                                 : NULL;
    if (slot != NULL && *slot == NULL)
        *slot = dup_or_fail(s, value);
}

static el_kind classify(parser_state *s, const char *name, const XML_Char **atts,
                        uint32_t *index)
{
    if (strcmp(name, "metric") == 0)
        return *index = start_metric(s, atts), EL_METRIC;
    if (strcmp(name, "region") == 0)
        return *index = start_region(s, atts), EL_REGION;
    if (strcmp(name, "cnode") == 0)
        return *index = start_cnode(s, atts), EL_CNODE;
    if (strcmp(name, "systemtreenode") == 0)
        return *index = start_stn(s, NULL), EL_STN;
    if (strcmp(name, "machine") == 0 || strcmp(name, "node") == 0)
        return *index = start_stn(s, name), EL_STN;
    if (strcmp(name, "locationgroup") == 0 || strcmp(name, "process") == 0)
        return *index = start_group(s), EL_GROUP;
    if (strcmp(name, "location") == 0 || strcmp(name, "thread") == 0)
        return *index = start_location(s, atts), EL_LOCATION;
    if (strcmp(name, "attr") == 0)
        return keep_hp_attribute(s, atts), EL_SKIP;
    if (strcmp(name, "doc") == 0 ||
        strcmp(name, "parameter") == 0 || strcmp(name, "topologies") == 0)
        return EL_SKIP;
    if (is_text_tag(name))
        return EL_TEXT;
    return EL_OTHER;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    parser_state *s = ud;
    s->text_len = 0;
    if (s->skip_depth > 0) {
        s->skip_depth++;
        return;
    }
    if (!s->seen_root) {
        start_root(s, name, atts);
        return;
    }
    open_element *e = grow((void **)&s->stack, s->depth, &s->stack_cap, sizeof(*e));
    if (e == NULL) {
        fail(s, "out of memory");
        return;
    }
    e->kind = classify(s, name, atts, &e->index);
    snprintf(e->tag, sizeof(e->tag), "%s", name);
    if (e->kind == EL_SKIP)
        s->skip_depth = 1;
    else
        s->depth++;
}

/* ------------------------------------------------------------------ text and end tags */

static void XMLCALL on_text(void *ud, const XML_Char *text, int len)
{
    parser_state *s = ud;
    if (s->skip_depth > 0 || s->depth == 0 || s->stack[s->depth - 1].kind != EL_TEXT)
        return;
    if (s->text_len + (size_t)len + 1 > s->text_cap) {
        size_t cap = 2 * (s->text_len + (size_t)len + 1);
        char *t = realloc(s->text, cap);
        if (t == NULL) {
            fail(s, "out of memory");
            return;
        }
        s->text = t;
        s->text_cap = cap;
    }
    memcpy(s->text + s->text_len, text, (size_t)len);
    s->text_len += (size_t)len;
    s->text[s->text_len] = '\0';
}

/* Replaces *field with the collected text, trimmed of surrounding white space. */
static void set_text(parser_state *s, char **field)
{
    const char *t = s->text_len ? s->text : "";
    size_t n = strlen(t);
    while (n > 0 && strchr(" \t\r\n", t[n - 1]) != NULL)
        n--;
    while (n > 0 && strchr(" \t\r\n", *t) != NULL)
        t++, n--;
    char *d = strndup(t, n);
    if (d == NULL) {
        fail(s, "out of memory");
        return;
    }
    free(*field);
    *field = d;
}

static void set_rank(parser_state *s, long *rank)
{
    char *t = NULL;
    set_text(s, &t);
    if (t != NULL && parse_long(t, rank) != 0)
        fail(s, "rank \"%s\" is not an integer", t);
    free(t);
}

static void text_of_metric(parser_state *s, const char *tag, cube_def_metric *m)
{
    if (strcmp(tag, "uniq_name") == 0)
        set_text(s, &m->uniq_name);
    else if (strcmp(tag, "disp_name") == 0)
        set_text(s, &m->disp_name);
    else if (strcmp(tag, "dtype") == 0)
        set_text(s, &m->dtype);
    else if (strcmp(tag, "uom") == 0)
        set_text(s, &m->uom);
    else if (strcmp(tag, "descr") == 0)
        set_text(s, &m->descr);
    else if (strncmp(tag, "cubepl", 6) == 0)
        m->has_cubepl = 1;
}

static void text_of_region(parser_state *s, const char *tag, cube_def_region *r)
{
    if (strcmp(tag, "name") == 0)
        set_text(s, &r->name);
    else if (strcmp(tag, "mangled_name") == 0)
        set_text(s, &r->mangled_name);
    else if (strcmp(tag, "paradigm") == 0)
        set_text(s, &r->paradigm);
    else if (strcmp(tag, "role") == 0)
        set_text(s, &r->role);
}

/* Assigns a closing text element to the definition that encloses it. */
static void end_text(parser_state *s, const char *tag, const open_element *owner)
{
    cube_anchor *a = s->a;
    switch (owner->kind) {
    case EL_METRIC:
        text_of_metric(s, tag, &a->metrics[owner->index]);
        break;
    case EL_REGION:
        text_of_region(s, tag, &a->regions[owner->index]);
        break;
    case EL_STN:
        if (strcmp(tag, "name") == 0)
            set_text(s, &a->stns[owner->index].name);
        else if (strcmp(tag, "class") == 0)
            set_text(s, &a->stns[owner->index].class_name);
        break;
    case EL_GROUP:
        if (strcmp(tag, "name") == 0)
            set_text(s, &a->groups[owner->index].name);
        else if (strcmp(tag, "type") == 0)
            set_text(s, &a->groups[owner->index].type);
        else if (strcmp(tag, "rank") == 0)
            set_rank(s, &a->groups[owner->index].rank);
        break;
    case EL_LOCATION:
        if (strcmp(tag, "name") == 0)
            set_text(s, &a->locations[owner->index].name);
        else if (strcmp(tag, "type") == 0)
            set_text(s, &a->locations[owner->index].type);
        else if (strcmp(tag, "rank") == 0)
            set_rank(s, &a->locations[owner->index].rank);
        break;
    default:
        break;
    }
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    parser_state *s = ud;
    (void)name; /* expat has checked that it matches the start tag */
    if (s->skip_depth > 0) {
        s->skip_depth--;
        return;
    }
    if (s->depth == 0)
        return; /* </cube> */
    open_element *e = &s->stack[--s->depth];
    if (e->kind == EL_TEXT && s->depth > 0)
        end_text(s, e->tag, &s->stack[s->depth - 1]);
    s->text_len = 0;
}

/* ------------------------------------------------------------------ entry points */

static void release_metric(cube_def_metric *m)
{
    free(m->uniq_name);
    free(m->disp_name);
    free(m->uom);
    free(m->descr);
    free(m->dtype);
    free(m->type);
}

static void release_region(cube_def_region *r)
{
    free(r->name);
    free(r->mangled_name);
    free(r->mod);
    free(r->paradigm);
    free(r->role);
}

void hp__cube_anchor_release(cube_anchor *a)
{
    for (size_t i = 0; i < a->nmetrics; i++)
        release_metric(&a->metrics[i]);
    for (size_t i = 0; i < a->nregions; i++)
        release_region(&a->regions[i]);
    for (size_t i = 0; i < a->nstns; i++)
        free(a->stns[i].name), free(a->stns[i].class_name);
    for (size_t i = 0; i < a->ngroups; i++)
        free(a->groups[i].name), free(a->groups[i].type);
    for (size_t i = 0; i < a->nlocations; i++)
        free(a->locations[i].name), free(a->locations[i].type);
    free(a->metrics);
    free(a->regions);
    free(a->cnodes);
    free(a->stns);
    free(a->groups);
    free(a->locations);
    free(a->version);
    free(a->hp_instrumentation);
    free(a->hp_demoted);
    free(a->interrupted);
    free(a->wait_states);
    free(a->hp_fallback);
    memset(a, 0, sizeof(*a));
}

static int check_complete(parser_state *s)
{
    const cube_anchor *a = s->a;
    const char *missing = !s->seen_root      ? "<cube>"
                          : a->nmetrics == 0  ? "<metric>"
                          : a->ncnodes == 0   ? "<cnode>"
                          : a->nlocations == 0 ? "<location>"
                                               : NULL;
    if (missing == NULL)
        return 0;
    snprintf(s->err, s->errlen, "anchor.xml: no %s", missing);
    return -1;
}

int hp__cube_anchor_parse(const char *xml, size_t len, cube_anchor *a, char *err,
                          size_t errlen)
{
    memset(a, 0, sizeof(*a));
    parser_state s = { .a = a, .err = err, .errlen = errlen };
    s.xml = XML_ParserCreate(NULL);
    if (s.xml == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    XML_SetUserData(s.xml, &s);
    XML_SetElementHandler(s.xml, on_start, on_end);
    XML_SetCharacterDataHandler(s.xml, on_text);
    int rc = 0;
    /* expat takes an int length; feed large documents in pieces. */
    for (size_t off = 0; rc == 0 && !s.failed;) {
        size_t n = len - off > (1u << 30) ? (1u << 30) : len - off;
        int last = off + n == len;
        if (XML_Parse(s.xml, xml + off, (int)n, last) == XML_STATUS_ERROR && !s.failed) {
            snprintf(err, errlen, "anchor.xml line %lu: %s",
                     (unsigned long)XML_GetCurrentLineNumber(s.xml),
                     XML_ErrorString(XML_GetErrorCode(s.xml)));
            rc = -1;
        }
        off += n;
        if (last)
            break;
    }
    if (s.failed || (rc == 0 && check_complete(&s) != 0))
        rc = -1;
    XML_ParserFree(s.xml);
    free(s.stack);
    free(s.text);
    if (rc != 0)
        hp__cube_anchor_release(a);
    return rc;
}
