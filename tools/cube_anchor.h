/*
 * anchor.xml of a Cube4 file as it is written: the definitions (metrics, regions, the
 * call tree, the system tree) in document order, with the file's own ids, before any
 * of them is interpreted. cube_reader.c turns them into the profile model; this part
 * only parses (with expat) and checks what the XML alone can tell.
 *
 * Document order matters: nested <cnode> elements in document order are the call tree
 * in depth-first pre-order over the roots, which is the EXCLUSIVE metrics' row order.
 */
#ifndef HP_TOOLS_CUBE_ANCHOR_H
#define HP_TOOLS_CUBE_ANCHOR_H

#include <stddef.h>
#include <stdint.h>

#define CUBE_NONE UINT32_MAX

typedef struct cube_def_metric {
    long id;          /* file id: names the <id>.index / <id>.data members */
    uint32_t parent;  /* index of the enclosing <metric>, CUBE_NONE at top level */
    char *uniq_name;
    char *disp_name;
    char *uom;
    char *descr;
    char *dtype; /* as written, "DOUBLE" when absent */
    char *type;  /* as written, "EXCLUSIVE" when absent */
    int ghost;   /* viztype="GHOST": members are ghost_<id>.* */
    int has_cubepl; /* a CubePL expression: a derived metric */
} cube_def_metric;

typedef struct cube_def_region {
    long id;
    char *name;
    char *mangled_name;
    char *mod;
    char *paradigm;
    char *role;
    long begin;
    long end;
} cube_def_region;

typedef struct cube_def_cnode {
    long id;         /* file id (need not follow document order) */
    long callee;     /* file id of the region */
    uint32_t parent; /* document index of the parent, CUBE_NONE for a root */
} cube_def_cnode;

typedef struct cube_def_stn { /* systemtreenode, or legacy <machine>/<node> */
    char *name;
    char *class_name;
    uint32_t parent;
} cube_def_stn;

typedef struct cube_def_group { /* locationgroup, or legacy <process> */
    char *name;
    char *type;
    long rank;
    uint32_t stn;
} cube_def_group;

typedef struct cube_def_location { /* location, or legacy <thread> */
    long id; /* the data column */
    char *name;
    char *type;
    long rank;
    uint32_t group;
} cube_def_location;

typedef struct cube_anchor {
    char *version;
    char *interrupted; /* value of the HP_CUBE_ATTR_INTERRUPTED attribute, or NULL */
    char *wait_states; /* value of the HP_CUBE_ATTR_WAIT_STATES attribute, or NULL */
    char *hp_fallback; /* value of the HP_CUBE_ATTR_FALLBACK attribute, or NULL */
    cube_def_metric *metrics;
    size_t nmetrics;
    cube_def_region *regions;
    size_t nregions;
    cube_def_cnode *cnodes;
    size_t ncnodes;
    cube_def_stn *stns;
    size_t nstns;
    cube_def_group *groups;
    size_t ngroups;
    cube_def_location *locations;
    size_t nlocations;
    char *hp_instrumentation; /* value of hpmeasure's instrumentation attribute, or NULL */
    char *hp_demoted;         /* value of hpmeasure's demoted-regions attribute, or NULL */
} cube_anchor;

/* Parses len bytes of anchor.xml into a (zeroed by the caller or not: it is set here).
 * Returns 0, or -1 with the problem in err (without the file name, e.g. "anchor.xml
 * line 3: mismatched tag"); a is then released. */
int hp__cube_anchor_parse(const char *xml, size_t len, cube_anchor *a, char *err,
                          size_t errlen);

void hp__cube_anchor_release(cube_anchor *a);

#endif
