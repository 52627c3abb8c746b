/*
 * Plug-ins around MPI calls (HP_PLUGINS, include/hp/plugin.h).
 *
 * After MPI_Init every listed shared object is dlopen'ed and its hp_plugin_entry checked
 * (present, same API version) and initialised; init() selects functions through
 * select(). hp__mpi_plugin_selected[] holds, per MPI function, whether any plug-in
 * selected it: hp_mpi_enter and hp_mpi_exit test that one byte and call the dispatchers
 * below only when it is set, so unselected functions pay a load and a branch. The
 * dispatchers read the clock (CLOCK_MONOTONIC, for plug-ins to compare with their own
 * clocks) and call the plug-ins that selected the function, in HP_PLUGINS order.
 * Problems are reported by rank 0 (every rank with HP_VERBOSE), naming the plug-in's
 * path, and the run goes on without that plug-in.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "adapters/mpi/mpi_adapter.h"
#include "adapters/mpi/mpi_functions.h"
#include "adapters/mpi/mpi_plugins.h"
#include "adapters/mpi/plugin_list.h"
#include "include/hp/plugin.h"
#include "measurement/core/config.h"
#include "measurement/core/location.h"
#include "measurement/core/timer.h"
#include "util/log.h"

enum { MAX_PLUGINS = 16, PATH_SIZE = 1024 };
_Static_assert(PATH_SIZE == 1024, "the too-long message says 1023 bytes");

typedef struct loaded_plugin {
    const hp_plugin *p;
    unsigned char selected[HP_MPI_FN_COUNT];
} loaded_plugin;

unsigned char hp__mpi_plugin_selected[HP_MPI_FN_COUNT];

static loaded_plugin plugins[MAX_PLUGINS];
static int nplugins;
static loaded_plugin *initialising; /* whose init() is running: select() marks it */
static int my_rank;
static _Thread_local uint64_t call_begin_ns; /* measured MPI calls do not nest */

static int select_function(const char *name)
{
    int found = -1;
    for (unsigned i = 0; initialising != NULL && name != NULL && i < HP_MPI_FN_COUNT; i++)
        if (strcmp(name, "all") == 0 || strcmp(name, hp_mpi_functions[i].name) == 0) {
            initialising->selected[i] = 1;
            found = 0;
        }
    return found;
}

/* Says what went wrong with the plug-in at path (rank 0, or every rank when verbose). */
static void report(const char *path, const char *problem, const char *detail)
{
    if (my_rank == 0 || hp_log_enabled(HP_LOG_INFO))
        hp_warn("HP_PLUGINS: plug-in '%s' %s%s%s; going on without it",
                path, problem, detail != NULL ? ": " : "", detail != NULL ? detail : "");
}

/* Loads, checks and initialises one plug-in; returns 0 or -1 (reported). */
static int load(const char *path, const hp_plugin_host *host)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        report(path, "cannot be loaded", dlerror());
        return -1;
    }
    const hp_plugin *p = dlsym(handle, HP_PLUGIN_SYMBOL);
    char why[160];
    if (p == NULL || p->api_version != HP_PLUGIN_API_VERSION) {
        if (p != NULL)
            snprintf(why, sizeof(why), "was built for plug-in API version %d, this hpmeasure "
                     "has version %d", p->api_version, HP_PLUGIN_API_VERSION);
        report(path, p == NULL ? "lacks the symbol " HP_PLUGIN_SYMBOL
                                 " (not an hpmeasure plug-in?)" : why, NULL);
        dlclose(handle);
        return -1;
    }
    loaded_plugin *l = &plugins[nplugins];
    memset(l, 0, sizeof(*l));
    l->p = p;
    initialising = l;
    int failed = p->init != NULL ? p->init(host) : 0;
    initialising = NULL;
    if (failed) {
        report(path, "failed to initialise", p->name);
        dlclose(handle);
        return -1;
    }
    for (unsigned i = 0; i < HP_MPI_FN_COUNT; i++)
        hp__mpi_plugin_selected[i] |= l->selected[i];
    nplugins++; /* the handle stays open until the process ends */
    return 0;
}

void hp__mpi_plugins_load(int rank, int size)
{
    my_rank = rank;
    if (hp_cfg.plugins[0] == '\0')
        return;
    if (getauxval(AT_SECURE)) {
        if (rank == 0)
            hp_warn("HP_PLUGINS is ignored in set-user-ID and set-group-ID programs");
        return;
    }
    hp_plugin_host host = { HP_PLUGIN_API_VERSION, rank, size, select_function };
    char path[PATH_SIZE];
    const char *s = hp_cfg.plugins;
    hp_plugin_list_entry e;
    while ((e = hp__plugin_list_next(&s, path, sizeof(path))) != HP_PLUGIN_LIST_END) {
        if (e == HP_PLUGIN_LIST_TOO_LONG)
            report(path, "has too long a path", "at most 1023 bytes");
        else if (nplugins == MAX_PLUGINS)
            report(path, "is one too many", "at most 16 plug-ins");
        else
            load(path, &host);
    }
}

void hp__mpi_plugins_finalize(void)
{
    memset(hp__mpi_plugin_selected, 0, sizeof(hp__mpi_plugin_selected));
    for (int i = 0; i < nplugins; i++)
        if (plugins[i].p->finalize != NULL)
            plugins[i].p->finalize();
    nplugins = 0;
}

static void call_init(hp_plugin_call *c, const hp_mpi_frame *f)
{
    *c = (hp_plugin_call){ .function = f->fn, .name = hp_mpi_functions[f->fn].name,
                           .rank = my_rank, .thread = (int)((hp_location *)f->loc)->id,
                           .comm = -1, .comm_size = -1, .peer = -1, .tag = -1 };
}

void hp__mpi_plugins_begin(const hp_mpi_frame *f)
{
    hp_plugin_call c;
    call_init(&c, f);
    c.begin_ns = call_begin_ns = hp_timer_monotonic_ns();
    for (int i = 0; i < nplugins; i++)
        if (plugins[i].selected[f->fn] && plugins[i].p->begin != NULL)
            plugins[i].p->begin(&c);
}

/* Communicator, peer and tag as the frame's trace rules noted them. */
static void call_details(hp_plugin_call *c, const hp_mpi_frame *f)
{
    if ((f->trace & ~(unsigned)HP_MPI_TRACE_WS) == 0)
        return; /* nothing noted (an open wait-state record names no communicator) */
    c->comm = (int)PMPI_Comm_c2f(f->comm);
    if (PMPI_Comm_size(f->comm, &c->comm_size) != MPI_SUCCESS)
        c->comm_size = -1;
    if (f->trace & (HP_MPI_TRACE_SEND | HP_MPI_TRACE_ISEND)) {
        c->peer = f->send_peer;
        c->tag = f->send_tag;
    } else if (f->trace & HP_MPI_TRACE_RECV) {
        c->peer = f->recv_peer;
        c->tag = f->recv_tag;
    } else if (f->trace & HP_MPI_TRACE_COLL) {
        c->peer = f->root;
    }
}

void hp__mpi_plugins_end(const hp_mpi_frame *f)
{
    hp_plugin_call c;
    call_init(&c, f);
    c.begin_ns = call_begin_ns;
    c.end_ns = hp_timer_monotonic_ns();
    c.bytes_sent = f->bytes_sent;
    c.bytes_received = f->bytes_received;
    call_details(&c, f);
    for (int i = 0; i < nplugins; i++)
        if (plugins[i].selected[f->fn] && plugins[i].p->end != NULL)
            plugins[i].p->end(&c);
}
