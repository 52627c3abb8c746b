/*
 * The calling contexts of samples in the trace (HP_TRACE_SAMPLE events). They are the
 * nodes of the unified profile's call tree: calling context i of the OTF2 archive is
 * Cube call path i of profile.cubex, so a sample in the trace and the profile's call
 * tree name the same path. A sample is recorded with the node of its location's call
 * tree; at finalize every process finds, for each such node, the unified node with the
 * same path of regions from the root. Runs at finalize only (uses the heap).
 */
#ifndef HP_MEASUREMENT_FINALIZE_TRACE_CONTEXTS_H
#define HP_MEASUREMENT_FINALIZE_TRACE_CONTEXTS_H

#include <stddef.h>
#include <stdint.h>

#include "measurement/core/cct.h"
#include "profile/profile.h"

typedef struct hp_trace_contexts hp_trace_contexts;

/* cnodes: the unified call tree (regions are global ids); region_map: this process's
 * region id -> global id (NULL = the same). The caller keeps cnodes and region_map
 * alive while the result is used. Returns NULL when out of memory or ncnodes == 0. */
hp_trace_contexts *hp_trace_contexts_new(const hp_profile_cnode *cnodes, size_t ncnodes,
                                         const uint32_t *region_map);

/* The calling context id of a node of some location's call tree of this process: the
 * unified node with the same path, else (a path the unified tree left out, e.g. a
 * function never named) the deepest ancestor that has one. UINT32_MAX when out of
 * memory. */
uint32_t hp_trace_contexts_of(hp_trace_contexts *c, const hp_cct_node *node);

/* Hybrid traces: the marker regions (global ids, hp_trace_marker_context's order), which
 * get calling contexts of their own below every node. */
void hp_trace_contexts_set_markers(hp_trace_contexts *c, const uint32_t *regions, unsigned n);

/* The calling context of region (global id) entered below context parent (UINT32_MAX:
 * at the top, where the root's region, a child of the root (a thread's outermost
 * region) or a marker is entered): the unified tree's node, else the marker context;
 * UINT32_MAX when there is none. */
uint32_t hp_trace_contexts_enter(const hp_trace_contexts *c, uint32_t parent, uint32_t region);

/* The parent of a calling context (UINT32_MAX: it is at the top). */
uint32_t hp_trace_contexts_parent(const hp_trace_contexts *c, uint32_t context);

/* OTF2's unwind distance of a calling-context event at context cur after one at prev
 * (UINT32_MAX: the location's first): at least recorded (for samples the frames the
 * handler saw newly entered, plus one; 2 for an entered region), and far enough up that
 * the node it designates is also on prev's path, as OTF2 guarantees readers; the whole
 * path plus one for the first. Hybrid traces pass top, the innermost region entered by
 * a CallingContextEnter and not left (UINT32_MAX: none): the distance then designates
 * no node above it, as OTF2 requires, unless prev's path does not reach it. */
uint32_t hp_trace_contexts_distance(const hp_trace_contexts *c, uint32_t prev, uint32_t cur,
                                    uint32_t recorded, uint32_t top);

void hp_trace_contexts_free(hp_trace_contexts *c);

#endif
