/*
 * The C library's own sigaction, below the wrapper that measurement/runtime/signals.c
 * puts in front of the program's calls. hpmeasure installs its own handlers (finalize
 * and dump signals, sampling's timer signal) with it, never through that wrapper: the
 * wrapper serves the program, and calling it from inside would make the core depend on
 * the runtime above it (doc/architecture.md, "Include and call graphs").
 */
#ifndef HP_UTIL_SIGACTION_REAL_H
#define HP_UTIL_SIGACTION_REAL_H

#include <signal.h>

/* Exported by glibc (GLIBC_2.2.5) under this name for code that wraps sigaction. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif
