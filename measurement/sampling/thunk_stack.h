/*
 * The side stack of return addresses that the thunk (x86_64/thunks.S) pops, as the
 * thunk, the thunk-aware walk (unwind.c) and its manager (thunks.c, see thunks.h for the
 * whole scheme) all read it. Types and the thunk's symbols only.
 */
#ifndef HP_MEASUREMENT_THUNK_STACK_H
#define HP_MEASUREMENT_THUNK_STACK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hp_thunk_entry {
    uintptr_t slot; /* where the return address lives on the stack */
    uintptr_t ra;   /* the original return address */
} hp_thunk_entry;

/* The layout up to entries is read by the thunk (x86_64/thunks.S). */
typedef struct hp_thunk_stack {
    size_t count;    /* live entries; the thunk decrements it */
    size_t capacity;
    volatile sig_atomic_t blocked; /* no new thunks: an exception is on its way, or the
                                      thread exits */
    bool reset;      /* entries were dropped while their frames stayed: the previous path
                        says nothing about returns */
    size_t tracked;  /* entries after the previous unwind (for visit counting) */
    uintptr_t stack_lo, stack_hi; /* the thread's own stack: the only one thunked */
    hp_thunk_entry entries[];
} hp_thunk_stack;

_Static_assert(offsetof(hp_thunk_stack, count) == 0, "thunks.S reads count at 0");
_Static_assert(offsetof(hp_thunk_stack, entries) == 48, "thunks.S reads entries at 48");

/* Side stack entries per thread: deeper frames are not thunked. */
enum { HP_THUNK_CAPACITY = 256 };

/* The thunk itself (x86_64/thunks.S) and the end of its code. */
void hp__thunk(void);
void hp__thunk_end(void);

/* The calling thread's side stack, read by the thunk. */
extern _Thread_local hp_thunk_stack *hp__thunk_stack __attribute__((tls_model("initial-exec")));

#endif
