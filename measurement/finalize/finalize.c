/*
 * The finalize driver (see finalize.h). A profile stays as built until it has to
 * travel: a rank packs it into bytes only when it sends it up the tree, and rank 0
 * merges what it receives into what it holds. A rank that fails to build or to pack
 * its profile still sends (nothing), so a failure can never leave another rank waiting.
 */
#include "finalize.h"

#include <stdlib.h>

#include "measurement/core/config.h"
#include "experiment.h"
#include "finalize_timing.h"
#include "profile_build.h"
#include "profile/profile_merge.h"
#include "tree.h"
#include "util/log.h"

/* What a rank holds on its way up the tree: its own profile as built, or (once it has
 * merged another rank's) a profile that owns its memory; at most one of the two. */
typedef struct held_profile {
    int rank;
    bool have_local, have_merged;
    hp_profile_data local;
    hp_owned_profile merged;
} held_profile;

static const hp_profile *held(const held_profile *h)
{
    if (h->have_merged)
        return &h->merged.profile;
    return h->have_local ? &h->local.profile : NULL;
}

static void drop(held_profile *h)
{
    if (h->have_merged)
        hp_owned_profile_release(&h->merged);
    if (h->have_local)
        hp_profile_data_release(&h->local);
    h->have_local = h->have_merged = false;
}

static const char *pack(void *state, uint64_t *length, bool *owned)
{
    const hp_profile *p = held(state);
    void *out = NULL;
    size_t n = 0;
    *length = 0;
    hp_finalize_phase_enter(HP_PHASE_UNIFY);
    if (p == NULL || hp_profile_serialize(p, &out, &n) < 0)
        return NULL;
    *length = n;
    *owned = true;
    return out;
}

/* held = held + the profile in data (either may be missing). */
static void absorb(void *state, const char *data, uint64_t length)
{
    held_profile *h = state;
    hp_owned_profile other, merged;
    hp_finalize_phase_enter(HP_PHASE_UNIFY);
    if (data == NULL || hp_profile_deserialize(data, length, &other) < 0)
        return;
    const hp_profile *mine = held(h);
    if (mine == NULL) {
        h->merged = other;
        h->have_merged = true;
        return;
    }
    hp_finalize_phase_enter(HP_PHASE_MERGE);
    if (hp_profile_merge(mine, &other.profile, &merged) == 0) {
        drop(h);
        h->merged = merged;
        h->have_merged = true;
    } else {
        hp_error("rank %d: could not merge a profile (out of memory)", h->rank);
    }
    hp_owned_profile_release(&other);
}

static const hp_tree_ops profile_tree = { pack, absorb };

void hp_finalize_job(const hp_transport *t, bool measured)
{
    held_profile h = { .rank = t->rank };
    hp_finalize_timing_start();
    if (t->wait_states != NULL)
        t->wait_states(t);
    if (measured)
        h.have_local = hp_experiment_build(&h.local) == 0;
    hp_tree_reduce(t, &profile_tree, &h);
    const hp_profile *merged = t->rank == 0 ? held(&h) : NULL;
    hp_finalize_phase_enter(HP_PHASE_CUBE);
    /* An MPI job's rank 0 says every rank's adaptive-buffer notes once the trace is
     * written (mpi_trace_cut.c); its own alone would under-report. */
    hp_experiment_trace_notes_by_job(t->size > 1 && hp_cfg.enable_tracing);
    if (merged != NULL)
        hp_experiment_write_profile(merged, "");
    hp_finalize_phase_enter(HP_PHASE_TRACE);
    if (hp_cfg.enable_tracing) /* a rank with nothing to write creates no directory */
        t->write_trace(t, measured || merged != NULL ? hp_experiment_directory() : "",
                       merged);
    drop(&h);
    hp_finalize_timing_report(t);
}
