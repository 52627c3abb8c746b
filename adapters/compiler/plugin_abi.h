/*
 * What hpmeasure's GCC plug-in (instrumenter/gcc-plugin/) compiles into a program, and
 * the run-time hooks that code calls (adapters/compiler/plugin_hooks.c). Both sides
 * include this header; the plug-in is C++, the hooks are C.
 *
 * For every instrumented function the plug-in emits one static, writable descriptor of
 * HP_DESC_WORDS pointer-sized words and wraps the body as
 *
 *     entered = NULL;
 *     if (desc[HP_DESC_OFF] == 0)
 *         entered = __hp_plugin_enter(desc);
 *     try { body } finally { if (entered) __hp_plugin_exit(entered); }
 *
 * so a function that the run time switched off (filtered, demoted) costs one load and
 * one branch, and an exit is called exactly when its enter pushed a frame: switching a
 * region off while it is on some thread's stack keeps every thread balanced. Passing the
 * exit hook what the enter hook returned, not the descriptor's address again, keeps that
 * address from living in a register across the body. Around each hook call the
 * parameters and the return value go through volatile locals, and short functions
 * that GCC does not inline run a hook-free copy of their body while desc[HP_DESC_OFF] is
 * not 0 (hpmeasure_gcc.cc says why).
 *
 * Every translation unit also gets a constructor that reports the unit's counts of
 * instrumented and skipped functions to __hp_plugin_unit (the profile's quality note).
 * A unit that hp-instrument compiled again without the plug-in's passes after they
 * failed (its fallback) gets, from the plug-in's note-only mode, a constructor that
 * hands __hp_plugin_fallback the unit's file and what failed instead, so that the
 * profile's note can list the units that fell back.
 * Changing a layout means changing HP_PLUGIN_ABI_VERSION: the hooks then refuse
 * descriptors of the other version instead of misreading them.
 */
#ifndef HP_ADAPTERS_COMPILER_PLUGIN_ABI_H
#define HP_ADAPTERS_COMPILER_PLUGIN_ABI_H

#include <stdint.h>

#define HP_PLUGIN_ABI_VERSION 2

/* Words of a function descriptor. */
enum hp_desc_word {
    HP_DESC_OFF = 0,     /* run time: 0 = call the enter hook, else skip (see below) */
    HP_DESC_REGION = 1,  /* run time: the hp_region, once the function was first entered */
    HP_DESC_FN = 2,      /* the function's address, or 0 when it has none */
    HP_DESC_NAME = 3,    /* displayed name: demangled C++ name, else the symbol name */
    HP_DESC_MANGLED = 4, /* symbol name */
    HP_DESC_FILE = 5,    /* absolute source file of the definition */
    HP_DESC_LINE = 6,    /* line of the definition */
    HP_DESC_VERSION = 7, /* HP_PLUGIN_ABI_VERSION */
    HP_DESC_WORDS = 8
};

/* Values of desc[HP_DESC_OFF] other than 0. */
enum hp_desc_off {
    HP_DESC_OFF_FILTERED = 1, /* excluded by the run-time filter */
    HP_DESC_OFF_DEMOTED = 2,  /* switched off by the overhead budget */
    HP_DESC_OFF_REFUSED = 3   /* unusable (budget used up, other ABI version) */
};

/* Words of a translation unit's report. */
enum hp_unit_word {
    HP_UNIT_VERSION = 0,      /* HP_PLUGIN_ABI_VERSION */
    HP_UNIT_INSTRUMENTED = 1, /* functions given hooks */
    HP_UNIT_INLINE = 2,       /* skipped: declared inline */
    HP_UNIT_ARTIFICIAL = 3,   /* skipped: compiler-generated */
    HP_UNIT_SYSTEM = 4,       /* skipped: defined in a system header */
    HP_UNIT_FILTERED = 5,     /* skipped: excluded by the compile-time filter */
    HP_UNIT_WORDS = 6
};

/* Words of a fallen-back unit's note (strings are NUL-terminated). */
enum hp_fallback_word {
    HP_FALLBACK_VERSION = 0, /* HP_PLUGIN_ABI_VERSION */
    HP_FALLBACK_FILE = 1,    /* absolute path of the unit's main source file */
    HP_FALLBACK_FAILED = 2,  /* what failed with the plug-in, as hp-instrument said it */
    HP_FALLBACK_USED = 3,    /* what was used instead: "-finstrument-functions", ... */
    HP_FALLBACK_WORDS = 4
};

#ifdef __cplusplus
extern "C" {
#endif

/* Returns desc when a frame was pushed (the matching exit must be called with it),
 * else NULL. */
uintptr_t *__hp_plugin_enter(uintptr_t *desc);
void __hp_plugin_exit(uintptr_t *desc);
void __hp_plugin_unit(const uintptr_t *unit);
void __hp_plugin_fallback(const uintptr_t *note);

#ifdef __cplusplus
}
#endif

#endif
