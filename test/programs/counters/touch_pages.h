/* touch_pages(n): touches n fresh pages of an anonymous mapping, one write per page, so
 * that the calling thread takes n page faults in this function (the counter tests). */
#ifndef HP_TEST_TOUCH_PAGES_H
#define HP_TEST_TOUCH_PAGES_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

__attribute__((noinline)) static void touch_pages(long n)
{
    size_t bytes = (size_t)n * 4096;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    madvise(p, bytes, MADV_NOHUGEPAGE); /* one fault per page, not one per 2 MiB */
    for (long i = 0; i < n; i++)
        p[i * 4096] = 1;
    munmap(p, bytes);
}

#endif
