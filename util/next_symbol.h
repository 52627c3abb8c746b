/*
 * The next definition of a symbol after ours (dlsym(RTLD_NEXT)), for the interposers of
 * the adapters: pthread_create, the unwinder's entry points, MPI in preload mode, the
 * Fortran 2008 MPI binding, libgomp.
 *
 * RTLD_NEXT searches the objects loaded after the one that calls dlsym. This file is
 * linked into each libhpmeasure flavour (through libhpcore), so that object is always the
 * library that holds the interposer.
 */
#ifndef HP_UTIL_NEXT_SYMBOL_H
#define HP_UTIL_NEXT_SYMBOL_H

/* Where to look when RTLD_NEXT finds nothing: returns the definition of name, or NULL. */
typedef void *(*hp_next_symbol_fallback)(const char *name);

/* The next definition of name, looked up at the first call and kept in *cache (a static
 * pointer of the caller, NULL at first). When RTLD_NEXT has none, fallback (may be NULL)
 * is asked; when that has none either, the symbol is reported missing on stderr once and
 * NULL is returned, now and on later calls, without looking again. No locks: threads that
 * race on the first call look up the same address. Not async-signal-safe (dlsym). */
void *hp_next_symbol(void **cache, const char *name, hp_next_symbol_fallback fallback);

/* In an interposer: declares the local `type var`, the next definition of the function
 * name (an identifier), with a static cache of its own. */
#define HP_NEXT_SYMBOL(type, var, name)                                                    \
    static void *var##_of_##name;                                                          \
    type var = (type)hp_next_symbol(&var##_of_##name, #name, NULL)

#endif
