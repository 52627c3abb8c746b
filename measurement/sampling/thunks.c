/*
 * The thunk stack (thunks.h): per-thread side stacks, putting return addresses back, and
 * the start-up checks. Setting thunks is the unwinder's job (unwind.c), since it is the
 * one that knows where each return address slot is.
 */
#include "thunks.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/log.h"

_Thread_local hp_thunk_stack *hp__thunk_stack __attribute__((tls_model("initial-exec")));

static bool enabled;

bool hp_thunks_enabled(void)
{
    return enabled;
}

/* The functions through which the program's unwinders start: ours must be the ones it
 * calls, or a thunked return address would end an exception's search (std::terminate). */
static const char *const guarded[] = {
    "_Unwind_RaiseException", "_Unwind_Resume", "_Unwind_Resume_or_Rethrow",
    "_Unwind_ForcedUnwind",   "__cxa_begin_catch", "pthread_exit",
    "backtrace",
};

/* True when every guarded name resolves to this library's definition. */
static bool guards_interpose(void)
{
    Dl_info self;
    if (dladdr((void *)hp_thunks_setup, &self) == 0 || self.dli_fname == NULL)
        return false;
    void *handle = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (handle == NULL)
        return false;
    bool ok = true;
    for (size_t i = 0; i < sizeof(guarded) / sizeof(guarded[0]); i++) {
        void *ours = dlsym(handle, guarded[i]);
        if (ours == NULL || dlsym(RTLD_DEFAULT, guarded[i]) != ours) {
            hp_warn("HP_UNWIND_THUNKS is off: %s does not reach "
                    "hpmeasure's guard (link order or a static unwinder)",
                    guarded[i]);
            ok = false;
            break;
        }
    }
    dlclose(handle);
    return ok;
}

int hp_thunks_setup(void)
{
    if (!guards_interpose())
        return -1;
    enabled = true;
    return 0;
}

hp_thunk_stack *hp_thunks_thread_start(hp_arena *arena, hp_thunk_stack *reuse)
{
    if (!enabled)
        return NULL;
    hp_thunk_stack *t = reuse;
    if (t == NULL)
        t = hp_arena_alloc(arena, sizeof(hp_thunk_stack) +
                                      HP_THUNK_CAPACITY * sizeof(hp_thunk_entry));
    if (t == NULL)
        return NULL;
    /* the ended thread's entries pointed into its own stack, now gone */
    t->count = t->tracked = 0;
    t->blocked = 0;
    t->reset = false;
    t->capacity = HP_THUNK_CAPACITY;
    pthread_attr_t attr;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return NULL;
    int rc = pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return NULL;
    t->stack_lo = (uintptr_t)lo;
    t->stack_hi = (uintptr_t)lo + size;
    hp__thunk_stack = t;
    return t;
}

bool hp_thunks_restore(void)
{
    hp_thunk_stack *t = hp__thunk_stack;
    if (t == NULL)
        return true;
    bool was_blocked = t->blocked != 0;
    t->blocked = 1;
    /* a sampling signal now only reads the side stack, and sees the count shrink one
       entry at a time: each state is valid, the entries below the count are intact */
    atomic_signal_fence(memory_order_seq_cst);
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (sp < t->stack_lo || sp >= t->stack_hi) { /* another stack: its unwinding does not */
        t->reset = true;                          /* reach the thunked frames */
        return was_blocked;
    }
    for (size_t i = t->count; i-- > 0;) {
        uintptr_t *slot = (uintptr_t *)t->entries[i].slot;
        /* an entry below the stack pointer may name memory now used otherwise: it is only
           written back when it still holds the thunk */
        if ((uintptr_t)slot > sp &&
            *slot == (uintptr_t)hp__thunk)
            *slot = t->entries[i].ra;
        t->count = i;
        atomic_signal_fence(memory_order_seq_cst);
    }
    t->reset = true;
    return was_blocked;
}

void hp_thunks_unblock(void)
{
    hp_thunk_stack *t = hp__thunk_stack;
    if (t != NULL && t->blocked) {
        t->reset = true;
        t->blocked = 0;
    }
}

/* Reached by the thunk when the side stack has no entry for the slot it returned
 * through: the original return address is lost, the program cannot continue. */
__attribute__((noreturn, used, visibility("hidden"))) void hp__thunk_lost(void);

void hp__thunk_lost(void)
{
    hp_log_safe(HP_LOG_ERROR, "HP_UNWIND_THUNKS: a return through a thunk has no side "
                              "stack entry (stack switched?); aborting");
    abort();
}
