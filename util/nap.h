/*
 * hpmeasure's own short waits (finalize waiting for a thread or for other ranks' files):
 * the kernel's nanosleep directly, not the C library's, which hpmeasure wraps
 * (adapters/blocking/) and would take for a call of the program.
 */
#ifndef HP_UTIL_NAP_H
#define HP_UTIL_NAP_H

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps ns nanoseconds (less when a signal interrupts it); ns < 1 s. */
static inline void hp_nap(long ns)
{
    struct timespec t = { 0, ns };
    syscall(SYS_nanosleep, &t, NULL);
}

#endif
