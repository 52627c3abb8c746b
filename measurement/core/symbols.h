/*
 * Address -> function symbolization for the measurement core, on top of elfutils
 * libdwfl/libdw. The region registry calls it the first time it sees a code address
 * (the function address of a compiler-instrumentation hook, a sampled return address)
 * to learn the function's name, demangled name, source file and line, start address
 * and the ELF object it lives in.
 *
 * Invariants and contracts:
 *  - Not thread-safe and not async-signal-safe: the caller serializes every call
 *    (init, lookup, fini) and never calls from a signal handler. It reads files,
 *    allocates memory and may take the dynamic loader's lock, so it belongs on a cold
 *    path only.
 *  - It never aborts the host program. Missing debug information, unreadable files or
 *    a stripped object only leave fields unknown: the name then comes from the ELF
 *    symbol table (.symtab when present, so static functions are found; else .dynsym),
 *    file is "" and line is -1.
 *  - Separate debug files are looked up locally (build-id under /usr/lib/debug, and the
 *    .gnu_debuglink places) and never downloaded: when DEBUGINFOD_URLS is set only the
 *    build-id lookup is done, because elfutils' standard lookup would ask the network.
 *  - Every string handed out is owned by this module and stays valid until
 *    hp_symbols_fini(), also across re-reports of the process' modules.
 */
#ifndef HP_MEASUREMENT_SYMBOLS_H
#define HP_MEASUREMENT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct hp_symbol {
    const char *name;    /* displayed name: the demangled C++ name with its full signature
                            as c++filt prints it ("ns::Foo<int>::bar(double) const"); a
                            Fortran module procedure as "mymod::compute" (symbol
                            "__mymod_MOD_compute"), the main program by its PROGRAM name
                            (symbol "MAIN__", name from DWARF); else the symbol name */
    const char *mangled; /* symbol name as in the ELF symbol table (same string as name when
                            it is not a mangled C++ or Fortran name) */
    const char *file;    /* source file of the function's definition (DWARF decl_file of its
                            subprogram DIE, absolute or joined with the comp dir), "" when
                            unknown */
    int line;            /* DWARF decl_line of the function, -1 when unknown */
    uintptr_t start;     /* runtime start address of the function */
    size_t size;         /* size in bytes from the symbol table, 0 when it gives none */
    const char *module;  /* path of the ELF object (executable or shared library) as the
                            process maps name it, e.g. "[vdso]" for the vDSO */
} hp_symbol;

/*
 * Starts a symbolization session for this process: reports the modules of
 * /proc/self/maps to libdwfl. ELF and DWARF data are read lazily, on the first lookup
 * into each module. Returns 0, or -1 on failure (then lookups return -1). Calling it
 * again while a session is open is harmless and returns 0.
 */
int hp_symbols_init(void);

/*
 * Resolves a runtime code address (a function address passed to
 * __cyg_profile_func_enter, a return address, ...) in the executable (PIE or not) or in
 * any shared library, including ones dlopen'ed after hp_symbols_init(): when the set of
 * loaded objects changed since the last report, or the address lies in no known module,
 * the process maps are re-reported once before giving up.
 *
 * Returns 0 and fills *out, or -1 when no symbol covers the address, the session is not
 * open, or memory ran out; *out is untouched then. The strings in *out stay valid until
 * hp_symbols_fini().
 */
int hp_symbols_lookup(uintptr_t addr, hp_symbol *out);

/* Source file and line of the code at addr from the line table (the statement there,
 * not the function's declaration): an OpenMP outlined function's first line is its
 * pragma's, and a return address minus one is its call's. Returns 0 and fills *file
 * (valid until hp_symbols_fini()) and *line, or -1 when the line table has no entry. */
int hp_symbols_code_line(uintptr_t addr, const char **file, int *line);

/* Name of the ELF section that holds addr (".plt", ".text", ...), or NULL when unknown.
 * The string stays valid until hp_symbols_fini(). */
const char *hp_symbols_section(uintptr_t addr);

/* Ends the session and frees everything it allocated, including all strings returned by
 * hp_symbols_lookup(). Safe to call when no session is open. */
void hp_symbols_fini(void);

#endif
