/*
 * Private declarations of hp-instrument's parts: the compiler probe
 * (compiler_probe.c), the choice of instrumentation flags (instrument_flags.c) and the
 * run with a fallback when instrumentation makes the compiler fail (fallback.c).
 */
#ifndef HP_INSTRUMENTER_INTERNAL_H
#define HP_INSTRUMENTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- compiler_probe.c ---- */

enum hp_compiler_family {
    HP_COMPILER_GCC,   /* __GNUC__ without __clang__ */
    HP_COMPILER_CLANG, /* __clang__ */
    HP_COMPILER_OTHER  /* neither */
};

struct hp_compiler_id {
    enum hp_compiler_family family;
    char version[32]; /* GCC's "12.2.0"; "" for the other families */
};

enum hp_probe_result {
    HP_PROBE_OK = 0,
    HP_PROBE_FAILED = -1,   /* the reason is in err */
    HP_PROBE_NOT_FOUND = -2 /* the compiler is not on PATH: running it will say so */
};

/* Runs `<compiler> -E -dM -x c /dev/null` and fills id from the predefined macros.
 * Returns an enum hp_probe_result; on HP_PROBE_FAILED, err holds a one-line reason. */
int hp__compiler_probe(const char *compiler, struct hp_compiler_id *id, char *err,
                       size_t size);

/* ---- instrument_flags.c ---- */

/* What the user asked for, and where things are. */
struct hp_instrument_request {
    const char *compiler;    /* the compiler word, as given */
    const char *libdir;      /* where libhpmeasure is; the plug-in is in <libdir>/hpmeasure */
    const char *filter_file; /* --instrument-filter=FILE, or NULL */
    bool inline_functions;   /* --instrument-inline */
    bool no_plugin;          /* --no-plugin */
    bool quiet;              /* say nothing about the choice: the command compiles no
                                source, or --no-plugin said the user knows */
};

enum { HP_MAX_INSTRUMENT_WORDS = 4 };

/* The words that turn instrumentation on, in order (after -g); words[] is
 * NULL-terminated and may point into owned[]. With the plug-in, lesser[] are the words
 * of the fallback when it fails (fallback.c): -fplugin=... in its note-only mode, whose
 * argument that says what failed is made at that time (its prefix is note_prefix; its
 * place in lesser[] holds hp__note_placeholder), then -finstrument-functions with the
 * system headers excluded; NULL otherwise. what names the instrumentation in messages. */
struct hp_instrument_flags {
    const char *words[HP_MAX_INSTRUMENT_WORDS + 1];
    char *owned[HP_MAX_INSTRUMENT_WORDS];
    const char *lesser[HP_MAX_INSTRUMENT_WORDS + 1];
    char *note_prefix;
    const char *what;
    /* What the probe found (HP_COMPILER_OTHER when it failed), and GCC's major version
     * (0 for the others): which diagnostics options the compiler takes. */
    enum hp_compiler_family family;
    int gcc_major;
    /* clang's after-inlining hooks were chosen: a program link adds the marker that
     * names them in the profile's note (instrumenter/clang_marker.c). */
    bool clang_after_inlining;
};

extern const char hp__note_placeholder[];

enum hp_flags_result {
    HP_FLAGS_OK = 0,
    HP_FLAGS_BAD_INPUT = -1, /* reported on stderr: unreadable filter or plug-in file */
    HP_FLAGS_NO_MEMORY = -2  /* not reported */
};

/* Chooses the plug-in, the fallback (-finstrument-functions with system headers
 * excluded) or clang's after-inlining hooks, probing the compiler once. Unless
 * req->quiet, says on stderr in one line which hooks were chosen instead of the plug-in,
 * and why. Returns an enum
 * hp_flags_result; f needs hp__instrument_flags_release() in every case. */
int hp__instrument_flags_init(struct hp_instrument_flags *f,
                              const struct hp_instrument_request *req);
void hp__instrument_flags_release(struct hp_instrument_flags *f);

/* ---- fallback.c ---- */

enum { HP_FALLBACK_LESSER = 2 };

/* The commands of one compilation, most instrumented first, each NULL-terminated. */
struct hp_fallback_plan {
    char **primary;       /* as chosen: plug-in, -finstrument-functions, clang's hooks */
    char **plain;         /* the same without instrumentation */
    char **lesser[HP_FALLBACK_LESSER]; /* tried in order after the primary failed and
                                          the plain one succeeded; NULL ends the list */
    const char *note_prefix; /* lesser[0] takes "<note_prefix><what failed>" ... */
    size_t note_slot;        /* ... as its word note_slot; unused when note_prefix is NULL */
    const char *what;     /* the primary's instrumentation, for messages */
    const char *files;    /* the sources, for messages */
    bool verbose;         /* print each command on stderr before running it */
    bool stdin_source;    /* a source is read from standard input ("-") */
    bool stdout_output;   /* the output goes to standard output ("-o -") */
};

/* Runs the plan (see fallback.c) and returns the exit status to exit with; a compiler
 * stopped by a signal ends this process with that signal. */
int hp__run_with_fallback(const struct hp_fallback_plan *plan);

/* Prints cmd as one shell-quoted line; returns 0, or -1 if the write failed
 * (hp-instrument.c). */
int hp__print_command(FILE *out, char *const *cmd);

#endif
