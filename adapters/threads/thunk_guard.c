/*
 * Guards of the thunk stack (measurement/sampling/thunks.h): every way a program unwinds its own
 * stack reads return addresses, and a thunked one has no unwind information (C++ would
 * call std::terminate). These interposers put the original addresses back first and keep
 * new thunks away until the unwinding is over: a C++ exception until it is caught
 * (__cxa_begin_catch), a thread exit for good, glibc's backtrace for its duration.
 *
 * They are defined whether thunks are on or not, and only forward when they are off.
 * hp_thunks_setup refuses thunks when the program does not reach them (hpmeasure linked
 * after libgcc_s, or a statically linked unwinder). pthread_cancel'ed threads unwind
 * through glibc's private handle on libgcc_s, which no interposer reaches: see thunks.h.
 */
#include <pthread.h>
#include <stdbool.h>

#include "measurement/sampling/thunks.h"
#include "util/compiler.h"
#include "util/next_symbol.h"

/* The unwinder's types, declared here: the unwind.h that comes first on the include path
 * may be libunwind's. The reason codes are an enum, passed as an int. */
struct _Unwind_Exception;
struct _Unwind_Context;
typedef int (*stop_fn)(int, int, uint64_t, struct _Unwind_Exception *,
                       struct _Unwind_Context *, void *);
typedef int (*raise_fn)(struct _Unwind_Exception *);
typedef void (*resume_fn)(struct _Unwind_Exception *);
typedef int (*forced_fn)(struct _Unwind_Exception *, stop_fn, void *);
typedef void *(*catch_fn)(void *);
typedef void (*exit_fn)(void *);
typedef int (*backtrace_fn)(void **, int);

int _Unwind_RaiseException(struct _Unwind_Exception *e);
void _Unwind_Resume(struct _Unwind_Exception *e);
int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e);
int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, stop_fn stop, void *arg);
void *__cxa_begin_catch(void *e);
int backtrace(void **buffer, int size);

HP_API int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
    HP_NEXT_SYMBOL(raise_fn, real, _Unwind_RaiseException);
    hp_thunks_restore();
    return real(e);
}

HP_API void _Unwind_Resume(struct _Unwind_Exception *e)
{
    HP_NEXT_SYMBOL(resume_fn, real, _Unwind_Resume);
    hp_thunks_restore(); /* a cleanup ran meanwhile: a sample may have set thunks */
    real(e);
    __builtin_unreachable();
}

HP_API int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
    HP_NEXT_SYMBOL(raise_fn, real, _Unwind_Resume_or_Rethrow);
    hp_thunks_restore();
    return real(e);
}

HP_API int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, stop_fn stop, void *arg)
{
    HP_NEXT_SYMBOL(forced_fn, real, _Unwind_ForcedUnwind);
    hp_thunks_restore();
    return real(e, stop, arg);
}

HP_API void *__cxa_begin_catch(void *e)
{
    HP_NEXT_SYMBOL(catch_fn, real, __cxa_begin_catch);
    hp_thunks_unblock();
    return real(e);
}

HP_API void pthread_exit(void *value)
{
    HP_NEXT_SYMBOL(exit_fn, real, pthread_exit);
    hp_thunks_restore(); /* it unwinds the thread's stack (forced unwind) */
    real(value);
    __builtin_unreachable();
}

HP_API int backtrace(void **buffer, int size)
{
    HP_NEXT_SYMBOL(backtrace_fn, real, backtrace);
    bool was_blocked = hp_thunks_restore();
    int n = real(buffer, size);
    if (!was_blocked)
        hp_thunks_unblock();
    return n;
}
