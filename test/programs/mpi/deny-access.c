/* LD_PRELOAD shim for t043: on the MPI rank given by HP_TEST_DENY_RANK (PMI_RANK, set by
 * MPICH's process manager), access() fails with EACCES for paths that end in
 * HP_TEST_DENY_PATH, so that opening the trace archive fails on that rank only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int denied(const char *path)
{
    const char *rank = getenv("PMI_RANK"), *want = getenv("HP_TEST_DENY_RANK");
    const char *tail = getenv("HP_TEST_DENY_PATH");
    if (rank == NULL || want == NULL || tail == NULL || strcmp(rank, want) != 0)
        return 0;
    size_t n = strlen(path), m = strlen(tail);
    return n >= m && strcmp(path + n - m, tail) == 0;
}

int access(const char *path, int mode)
{
    static int (*real)(const char *, int);
    if (denied(path)) {
        errno = EACCES;
        return -1;
    }
    if (real == NULL)
        real = (int (*)(const char *, int))dlsym(RTLD_NEXT, "access");
    return real(path, mode);
}
