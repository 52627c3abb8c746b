/*
 * hp-report merge: several Cube profiles as one. When an MPI job is torn down by a signal
 * (doc/signals.md) every rank writes its own profile-rank<r>.cubex without collective
 * operations; this subcommand puts them back together as the profile.cubex a clean
 * finalize would have written: one process per rank with its threads, regions and call
 * paths united by name and path, every value kept at its (call path, location).
 *
 * The work is the core's: hp_cube_read reads each file, hp_profile_merge (the same merge
 * MPI finalize uses) folds them in rank order, hp_cube_write writes the result. This file
 * only finds the inputs, checks that they can be merged, and keeps the "interrupted" note.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cube_reader.h"
#include "profile/cube_writer.h"
#include "profile/profile_merge.h"
#include "report.h"

enum { EXIT_WORK_FAILED = 1, EXIT_BAD_INPUT = 2 };

typedef struct input {
    char *path;
    hp_cube_profile cube;
    int rank; /* rank of the file's first process: the merge order */
} input;

typedef struct input_list {
    input *items;
    size_t n, cap;
} input_list;

const char hp_report_merge_options[] =
    "options of merge:\n"
    "  -o OUT.cubex   the merged file (default DIR/profile.cubex)\n";

static void usage(FILE *out)
{
    fprintf(out, "usage: hp-report merge [-o OUT.cubex] FILE.cubex...|DIR\n"
                 "DIR: an experiment directory; its profile-rank*.cubex are merged into "
                 "DIR/profile.cubex unless -o says otherwise.\n");
}

static int add_path(input_list *l, const char *path)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        input *items = realloc(l->items, cap * sizeof(*items));
        if (items == NULL)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    memset(&l->items[l->n], 0, sizeof(input));
    l->items[l->n].path = strdup(path);
    return l->items[l->n++].path != NULL ? 0 : -1;
}

/* Adds dir's profile-rank*.cubex. Returns how many, or -1 after a message. */
static int add_rank_files(input_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "hp-report merge: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "profile-rank", 12) != 0 || len < 6 ||
            strcmp(e->d_name + len - 6, ".cubex") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (add_path(l, path) != 0) {
            closedir(d);
            fprintf(stderr, "hp-report merge: out of memory\n");
            return -1;
        }
        count++;
    }
    closedir(d);
    if (count == 0)
        fprintf(stderr, "hp-report merge: %s: no profile-rank*.cubex in this directory\n", dir);
    return count > 0 ? count : -1;
}

static int by_rank(const void *a, const void *b)
{
    const input *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Every input must carry the metrics of the first, in the same order: hp_profile_merge
 * needs that, and a message here can say which file and which metric differ. */
static int check_metrics(const input *first, const input *other)
{
    const hp_profile *a = &first->cube.profile, *b = &other->cube.profile;
    for (size_t i = 0; i < a->nmetrics || i < b->nmetrics; i++) {
        const char *ma = i < a->nmetrics ? a->metrics[i].uniq_name : "(none)";
        const char *mb = i < b->nmetrics ? b->metrics[i].uniq_name : "(none)";
        if (strcmp(ma, mb) != 0 || a->metrics[i].dtype != b->metrics[i].dtype ||
            a->metrics[i].kind != b->metrics[i].kind) {
            fprintf(stderr, "hp-report merge: %s: different metric set from %s (metric %zu "
                            "is '%s' there, '%s' here)\n", other->path, first->path, i + 1,
                    ma, mb);
            return -1;
        }
    }
    return 0;
}

/* A rank that both profiles hold (then they are not parts of one job), or -1. */
static int shared_rank(const hp_profile *a, const hp_profile *b)
{
    for (size_t i = 0; i < a->nprocesses; i++)
        for (size_t j = 0; j < b->nprocesses; j++)
            if (a->processes[i].rank == b->processes[j].rank)
                return a->processes[i].rank;
    return -1;
}

/* Reads every input and sorts them by rank. Returns 0, or -1 after a message. */
static int read_inputs(input_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        char err[1024];
        if (hp_cube_read(l->items[i].path, &l->items[i].cube, err, sizeof(err)) != 0) {
            fprintf(stderr, "hp-report merge: %s\n", err);
            return -1;
        }
        const hp_profile *p = &l->items[i].cube.profile;
        l->items[i].rank = p->nprocesses > 0 ? p->processes[0].rank : 0;
    }
    qsort(l->items, l->n, sizeof(input), by_rank);
    for (size_t i = 1; i < l->n; i++) {
        if (check_metrics(&l->items[0], &l->items[i]) != 0)
            return -1;
        for (size_t j = 0; j < i; j++) {
            int rank = shared_rank(&l->items[j].cube.profile, &l->items[i].cube.profile);
            if (rank >= 0) {
                fprintf(stderr, "hp-report merge: %s and %s both hold rank %d\n",
                        l->items[j].path, l->items[i].path, rank);
                return -1;
            }
        }
    }
    return 0;
}

/* The first "interrupted" note among the inputs, or NULL. */
static const char *interrupted_note(const input_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const char *s = l->items[i].cube.profile.interrupted;
        if (s != NULL && s[0] != '\0')
            return s;
    }
    return NULL;
}

/* Folds the inputs into out, in rank order. Returns 0, or -1 after a message. */
static int merge_inputs(const input_list *l, hp_owned_profile *out)
{
    hp_owned_profile acc = { 0 };
    const hp_profile *cur = &l->items[0].cube.profile;
    for (size_t i = 1; i < l->n; i++) {
        hp_owned_profile next;
        if (hp_profile_merge(cur, &l->items[i].cube.profile, &next) != 0) {
            fprintf(stderr, "hp-report merge: %s: cannot merge it (out of memory)\n",
                    l->items[i].path);
            hp_owned_profile_release(&acc);
            return -1;
        }
        hp_owned_profile_release(&acc);
        acc = next;
        cur = &acc.profile;
    }
    if (l->n == 1) {
        /* Nothing to fold: a copy keeps ownership simple (one release for every case). */
        void *buf;
        size_t len;
        if (hp_profile_serialize(cur, &buf, &len) != 0 ||
            hp_profile_deserialize(buf, len, &acc) != 0) {
            fprintf(stderr, "hp-report merge: out of memory\n");
            return -1;
        }
        free(buf);
    }
    acc.profile.creator = l->items[0].cube.profile.creator;
    acc.profile.machine_name = l->items[0].cube.profile.machine_name;
    acc.profile.interrupted = interrupted_note(l);
    *out = acc;
    return 0;
}

static void release_inputs(input_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        hp_cube_profile_release(&l->items[i].cube);
        free(l->items[i].path);
    }
    free(l->items);
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Collects the inputs named on the command line; *default_out is DIR/profile.cubex when
 * the only argument is a directory. Returns 0, or -1 after a message. */
static int collect_inputs(int argc, char **argv, int first, input_list *l, char *default_out,
                          size_t outlen)
{
    default_out[0] = '\0';
    for (int i = first; i < argc; i++) {
        if (is_directory(argv[i])) {
            if (add_rank_files(l, argv[i]) < 0)
                return -1;
            if (argc - first == 1)
                snprintf(default_out, outlen, "%s/profile.cubex", argv[i]);
        } else if (add_path(l, argv[i]) != 0) {
            fprintf(stderr, "hp-report merge: out of memory\n");
            return -1;
        }
    }
    return 0;
}

int hp_report_merge(int argc, char **argv)
{
    const char *out_path = NULL;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "-o") == 0 && first + 1 < argc) {
            out_path = argv[++first];
        } else if (strcmp(argv[first], "-h") == 0 || strcmp(argv[first], "--help") == 0) {
            usage(stdout);
            fputs(hp_report_merge_options, stdout);
            return 0;
        } else {
            fprintf(stderr, "hp-report merge: unknown option '%s'\n", argv[first]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (first == argc) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    input_list inputs = { 0 };
    char default_out[4096];
    int rc = EXIT_BAD_INPUT;
    if (collect_inputs(argc, argv, first, &inputs, default_out, sizeof(default_out)) != 0)
        goto out;
    if (out_path == NULL && default_out[0] == '\0') {
        fprintf(stderr, "hp-report merge: say where to write the result (-o OUT.cubex)\n");
        goto out;
    }
    struct stat st;
    if (out_path == NULL && stat(default_out, &st) == 0) {
        fprintf(stderr, "hp-report merge: %s exists (a clean run's profile?); name another "
                        "output with -o\n", default_out);
        goto out;
    }
    if (out_path == NULL)
        out_path = default_out;
    if (read_inputs(&inputs) != 0)
        goto out;
    hp_owned_profile merged;
    if (merge_inputs(&inputs, &merged) != 0) {
        rc = EXIT_WORK_FAILED;
        goto out;
    }
    char err[1024];
    rc = 0;
    if (hp_cube_write(&merged.profile, out_path, err, sizeof(err)) != 0) {
        fprintf(stderr, "hp-report merge: %s\n", err);
        rc = EXIT_WORK_FAILED;
    } else {
        printf("merged %zu profile(s) (%zu locations) into %s\n", inputs.n,
               merged.profile.nlocations, out_path);
    }
    hp_owned_profile_release(&merged);
out:
    release_inputs(&inputs);
    return rc;
}
