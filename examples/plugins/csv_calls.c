/*
 * An hpmeasure plug-in (doc/plugins.md) that writes one CSV line per selected MPI call:
 * <prefix>-rank<R>.csv with rank, thread, function, communicator size, peer, tag, bytes
 * sent and received, begin and end time (ns, CLOCK_MONOTONIC).
 *
 *   cc -O2 -shared -fPIC -I<prefix>/include -o libhp_csv.so csv_calls.c
 *   HP_PLUGINS=$PWD/libhp_csv.so HP_CSV_CALLS=MPI_Send,MPI_Recv mpiexec -n 4 ./app
 *
 * HP_CSV_CALLS: the MPI functions to record, comma-separated, or "all" (default).
 * HP_CSV_PREFIX: where the files go (default "hp-calls").
 * Calls may come from several threads at once, so lines are written under a mutex.
 */
#include <hp/plugin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static int select_calls(const hp_plugin_host *host, const char *list)
{
    char name[128];
    for (const char *s = list; *s != '\0';) {
        size_t n = strcspn(s, ",");
        snprintf(name, sizeof(name), "%.*s", (int)n, s);
        s += n + (s[n] == ',');
        if (name[0] != '\0' && host->select(name) != 0) {
            fprintf(stderr, "csv plug-in: HP_CSV_CALLS: no MPI function '%s'\n", name);
            return -1;
        }
    }
    return 0;
}

static int csv_init(const hp_plugin_host *host)
{
    const char *calls = getenv("HP_CSV_CALLS"), *prefix = getenv("HP_CSV_PREFIX");
    char path[4096];
    snprintf(path, sizeof(path), "%s-rank%d.csv", prefix != NULL ? prefix : "hp-calls",
             host->rank);
    if (select_calls(host, calls != NULL ? calls : "all") != 0)
        return -1;
    if ((out = fopen(path, "w")) == NULL) {
        perror(path);
        return -1;
    }
    fputs("rank,thread,function,comm_size,peer,tag,bytes_sent,bytes_received,begin_ns,end_ns\n",
          out);
    return 0;
}

static void csv_end(const hp_plugin_call *c)
{
    pthread_mutex_lock(&out_lock);
    fprintf(out, "%d,%d,%s,%d,%d,%d,%llu,%llu,%llu,%llu\n", c->rank, c->thread, c->name,
            c->comm_size, c->peer, c->tag, (unsigned long long)c->bytes_sent,
            (unsigned long long)c->bytes_received, (unsigned long long)c->begin_ns,
            (unsigned long long)c->end_ns);
    pthread_mutex_unlock(&out_lock);
}

static void csv_finalize(void)
{
    if (out != NULL)
        fclose(out);
    out = NULL;
}

HP_PLUGIN_DEFINE("csv", csv_init, NULL, csv_end, csv_finalize);
