/*
 * The user code of the unwind benchmark (bench/bench-unwind.c): a recursion of a given
 * depth whose innermost call runs a callback, as a user function calls an MPI function.
 *
 * It is built as a shared library of its own on purpose. bench-unwind links the core
 * statically, so the unwinder takes the whole executable for hpmeasure's own code and
 * skips its frames; these frames must lie outside it to be unwound like a program's.
 */
#define _POSIX_C_SOURCE 200809L /* clockid_t in bench.h */
#include "bench.h"

/* Written after each call returns, so that no call is a tail call (a tail call would
 * leave its frame off the stack). */
volatile int bench_depth_sink;

BENCH_KEEP void bench_descend(int depth, void (*at_bottom)(void *), void *arg);

/* depth frames of bench_descend, then at_bottom(arg) from the innermost one. */
BENCH_KEEP void bench_descend(int depth, void (*at_bottom)(void *), void *arg)
{
    if (depth <= 1)
        at_bottom(arg);
    else
        bench_descend(depth - 1, at_bottom, arg);
    bench_depth_sink = depth;
}
