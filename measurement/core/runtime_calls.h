/*
 * Calls into a runtime library (MPI, the OpenMP runtime) that the calling thread has in
 * progress, measured or not, counted by the adapters that wrap them: the threads such a
 * call creates and joins are the runtime's own (MPI's progress threads, OpenMP teams),
 * not the program's, so the pthread adapter does not show them as regions. Code of the
 * program that a runtime calls back (an outlined parallel region) runs with the count
 * saved and cleared. Kept apart from the location: threads without one count too, and
 * the generated MPI wrappers include only this.
 */
#ifndef HP_MEASUREMENT_RUNTIME_CALLS_H
#define HP_MEASUREMENT_RUNTIME_CALLS_H

/* Initial-exec, like hp__tls_location: one %fs-relative add per call. */
extern _Thread_local unsigned hp__tls_runtime_calls __attribute__((tls_model("initial-exec")));

static inline void hp_runtime_call_begin(void)
{
    hp__tls_runtime_calls++;
}

static inline void hp_runtime_call_end(void)
{
    hp__tls_runtime_calls--;
}

#endif
