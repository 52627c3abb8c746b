/*
 * OpenMP with LLVM's libomp (clang -fopenmp): the entry points that clang emits for
 * parallel regions, barriers and critical sections, interposed like libgomp's
 * (omp_gomp.c) and forwarded to libomp's definitions (dlsym(RTLD_NEXT), or libomp.so.5
 * loaded when the link dropped it). The regions and the tree are the same as with
 * libgomp: each team thread's work under "!$omp parallel @file:line" under the forking
 * thread's call path (omp_team.c), "!$omp barrier", "!$omp implicit barrier" (the
 * region's end, and worksharing ends), "!$omp critical" with "!$omp critical sblock".
 *
 * Why interposing and not OMPT (ompt_start_tool and its callbacks): the same mechanism
 * as for libgomp gives the same tree from the same code (omp_team.c), the record of a
 * fork lives on the forking thread's stack for exactly as long as the fork, where OMPT
 * would need one kept across callbacks of several threads, and a program pays for the
 * constructs it uses only, not for OMPT's callbacks on every barrier and lock. The
 * price is __kmpc_fork_call's variable argument
 * list: the wrapper copies the outlined function's arguments (pointers to shared
 * variables and by-value integers, all of them pointer-sized) and calls it from the
 * trampoline with MAX_ARGS of them, of which it reads its own (the caller cleans up the
 * stack on x86-64, as gen-f08.py's wrappers rely on too). A region with more arguments
 * is forwarded unchanged with __builtin_apply and not measured.
 *
 * Not covered yet (their code is measured as the calling thread's): tasks
 * (__kmpc_omp_task*), `parallel if(0)` (__kmpc_serialized_parallel), `teams` on the
 * host (__kmpc_fork_teams).
 */
#include <stdarg.h>
#include <stdint.h>

#include "adapters/openmp/internal.h"
#include "util/compiler.h"
#include "util/next_symbol.h"

/* libomp's ident_t (kmp.h): the source location of a construct. */
typedef struct kmp_ident {
    int32_t reserved_1;
    int32_t flags; /* KMP_IDENT_* */
    int32_t reserved_2;
    int32_t reserved_3;
    const char *psource;
} kmp_ident;

enum { KMP_IDENT_BARRIER_EXPL = 0x20 }; /* an explicit `#pragma omp barrier` */

typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);

enum { MAX_ARGS = 64 };
#define P4 void *, void *, void *, void *
#define P16 P4, P4, P4, P4
#define P64 P16, P16, P16, P16
#define A4(a, i) a[i], a[i + 1], a[i + 2], a[i + 3]
#define A16(a, i) A4(a, i), A4(a, i + 4), A4(a, i + 8), A4(a, i + 12)
#define A64(a) A16(a, 0), A16(a, 16), A16(a, 32), A16(a, 48)
_Static_assert(MAX_ARGS == 64, "P64 and A64 pass MAX_ARGS arguments");

typedef void (*micro_fixed)(int32_t *, int32_t *, P64);
typedef void (*fork_fn)(kmp_ident *, int32_t, kmpc_micro, ...);
typedef void (*fork_fixed)(kmp_ident *, int32_t, kmpc_micro, P64);
typedef void (*barrier_fn)(kmp_ident *, int32_t);
typedef void (*critical_fn)(kmp_ident *, int32_t, void *);
typedef void (*critical_hint_fn)(kmp_ident *, int32_t, void *, uint32_t);

static HP_COLD void *from_libomp(const char *name)
{
    static void *libomp;
    return hp__omp_from_library(&libomp, "libomp.so.5", name);
}

static void *kmp_next(void **cache, const char *name)
{
    return hp_next_symbol(cache, name, from_libomp);
}

/* Declares `real`, libomp's definition of name, of type `type`. */
#define KMP_NEXT(type, name)                                                               \
    static void *name##_next;                                                              \
    type real = (type)kmp_next(&name##_next, #name)

typedef struct kmp_fork_record {
    kmpc_micro fn;
    kmp_ident *ident;
    void *args[MAX_ARGS]; /* the outlined function's, then zeros */
    hp_omp_fork fork;
} kmp_fork_record;

/* The barrier at the end of the region, made explicit so that it is measured (libomp's
 * own then finds the team there). Every team thread calls it, measuring or not. */
static void implicit_barrier(hp_location *loc, const kmp_fork_record *rec, int32_t gtid,
                             uintptr_t trampoline)
{
    KMP_NEXT(barrier_fn, __kmpc_barrier);
    bool measured = loc != NULL && !hp_location_ignores_events(loc) &&
                    hp__omp_enter_at(loc, HP_OMP_IMPLICIT_BARRIER, (uintptr_t)rec->fn,
                                     trampoline);
    if (likely(real != NULL))
        real(rec->ident, gtid);
    if (measured)
        hp__omp_leave_at(trampoline);
}

/* What libomp runs in every team thread in place of the outlined function. */
static void team_thread(int32_t *gtid, int32_t *btid, kmp_fork_record *rec)
{
    hp_omp_team team;
    hp__omp_team_begin(&team, &rec->fork);
    ((micro_fixed)(void (*)(void))rec->fn)(gtid, btid, A64(rec->args));
    implicit_barrier(team.loc, rec, *gtid, (uintptr_t)team_thread);
    hp__omp_team_end(&team);
}

HP_API void __kmpc_fork_call(kmp_ident *loc, int32_t argc, kmpc_micro fn, ...);

void __kmpc_fork_call(kmp_ident *loc, int32_t argc, kmpc_micro fn, ...)
{
    void *incoming = __builtin_apply_args(); /* for regions with more than MAX_ARGS */
    KMP_NEXT(fork_fn, __kmpc_fork_call);
    if (unlikely(real == NULL))
        return; /* unreachable: clang's code calls libomp elsewhere too, so it is loaded */
    hp_runtime_call_begin(); /* the threads libomp creates are its own */
    if (unlikely(argc < 0 || argc > MAX_ARGS)) {
        size_t on_stack = argc > 3 ? (size_t)(argc - 3) * sizeof(void *) : 0;
        __builtin_apply((void (*)())real, incoming, on_stack);
        hp_runtime_call_end();
        return;
    }
    kmp_fork_record rec = { .fn = fn, .ident = loc };
    va_list ap;
    va_start(ap, fn);
    for (int32_t i = 0; i < argc; i++)
        rec.args[i] = va_arg(ap, void *);
    va_end(ap);
    if (hp__omp_fork_begin(&rec.fork, (uintptr_t)fn, (uintptr_t)real)) {
        real(loc, 1, (kmpc_micro)(void (*)(void))team_thread, &rec);
        hp__omp_fork_end(&rec.fork);
    } else {
        ((fork_fixed)(void (*)(void))real)(loc, argc, fn, A64(rec.args));
    }
    hp_runtime_call_end();
}

/* ---- synchronization -------------------------------------------------------------- */

HP_API void __kmpc_barrier(kmp_ident *loc, int32_t gtid);
HP_API void __kmpc_critical(kmp_ident *loc, int32_t gtid, void *crit);
HP_API void __kmpc_critical_with_hint(kmp_ident *loc, int32_t gtid, void *crit, uint32_t hint);
HP_API void __kmpc_end_critical(kmp_ident *loc, int32_t gtid, void *crit);

/* An explicit barrier, or the end barrier of a worksharing construct without nowait
 * (clang leaves it out at the end of a parallel region, where ours follows). */
void __kmpc_barrier(kmp_ident *loc, int32_t gtid)
{
    KMP_NEXT(barrier_fn, __kmpc_barrier);
    hp_omp_kind kind = loc != NULL && (loc->flags & KMP_IDENT_BARRIER_EXPL)
                           ? HP_OMP_BARRIER
                           : HP_OMP_IMPLICIT_BARRIER;
    bool measured = hp__omp_enter(hp__omp_location(), kind, HP_OMP_CALL_SITE());
    if (likely(real != NULL))
        real(loc, gtid);
    if (measured)
        hp__omp_leave(kind);
}

/* "!$omp critical" from asking for the lock to releasing it, "!$omp critical sblock"
 * (the protected code) inside, as for libgomp. */
void __kmpc_critical(kmp_ident *loc, int32_t gtid, void *crit)
{
    KMP_NEXT(critical_fn, __kmpc_critical);
    hp_location *self = hp__omp_location();
    uintptr_t site = HP_OMP_CALL_SITE();
    bool measured = hp__omp_enter(self, HP_OMP_CRITICAL, site);
    if (likely(real != NULL))
        real(loc, gtid, crit);
    if (measured)
        hp__omp_enter(self, HP_OMP_CRITICAL_SBLOCK, site);
}

void __kmpc_critical_with_hint(kmp_ident *loc, int32_t gtid, void *crit, uint32_t hint)
{
    KMP_NEXT(critical_hint_fn, __kmpc_critical_with_hint);
    hp_location *self = hp__omp_location();
    uintptr_t site = HP_OMP_CALL_SITE();
    bool measured = hp__omp_enter(self, HP_OMP_CRITICAL, site);
    if (likely(real != NULL))
        real(loc, gtid, crit, hint);
    if (measured)
        hp__omp_enter(self, HP_OMP_CRITICAL_SBLOCK, site);
}

void __kmpc_end_critical(kmp_ident *loc, int32_t gtid, void *crit)
{
    KMP_NEXT(critical_fn, __kmpc_end_critical);
    hp__omp_leave(HP_OMP_CRITICAL_SBLOCK);
    if (likely(real != NULL))
        real(loc, gtid, crit);
    hp__omp_leave(HP_OMP_CRITICAL);
}
