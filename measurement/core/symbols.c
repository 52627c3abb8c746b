/*
 * Address -> function symbolization (see symbols.h for the contract). One libdwfl
 * session describes this process: its modules come from /proc/self/maps and are
 * re-reported when the dynamic loader's object count changes (dlopen/dlclose), so code
 * loaded after init is found. A lookup takes the name and start from the ELF symbol
 * table, the definition's file and line from DWARF when there is any, and demangles C++
 * names through the process' own __cxa_demangle, found at run time so that this library
 * never links libstdc++. Fortran names are shown as Fortran users read them: a module
 * procedure as "module::procedure", the main program under its PROGRAM name (DWARF's
 * name of MAIN__). Every returned string is copied into an interning pool owned
 * here, because libdwfl frees its module data when a module disappears on re-report.
 */
#include "symbols.h"

#include "util/fortran_names.h"
#include "util/hash.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- string pool: interned copies that live until fini ---------------------------- */

enum { POOL_CHUNK_SIZE = 16384, INTERN_MIN_SLOTS = 256 };

struct pool_chunk {
    struct pool_chunk *next;
    size_t used, cap;
    char data[];
};

struct string_pool {
    struct pool_chunk *chunks;
    const char **slots; /* open-addressing set of the strings stored in chunks */
    size_t nslots, count;
};

static char *pool_alloc(struct string_pool *p, size_t n)
{
    struct pool_chunk *c = p->chunks;
    if (c == NULL || c->cap - c->used < n) {
        /* A string longer than a chunk (long C++ template names) gets a chunk of its own. */
        size_t cap = n > POOL_CHUNK_SIZE ? n : POOL_CHUNK_SIZE;
        c = malloc(sizeof(*c) + cap);
        if (c == NULL)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = p->chunks;
        p->chunks = c;
    }
    char *s = c->data + c->used;
    c->used += n;
    return s;
}

/* Returns the slot holding s, or the empty slot where s belongs. */
static const char **intern_slot(const char **slots, size_t nslots, const char *s)
{
    size_t i = (size_t)hp_hash_str(HP_HASH_SEED, s) & (nslots - 1);
    while (slots[i] != NULL && strcmp(slots[i], s) != 0)
        i = (i + 1) & (nslots - 1);
    return &slots[i];
}

static int intern_grow(struct string_pool *p)
{
    size_t n = p->nslots ? p->nslots * 2 : INTERN_MIN_SLOTS;
    const char **slots = calloc(n, sizeof(*slots));
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i < p->nslots; i++)
        if (p->slots[i] != NULL)
            *intern_slot(slots, n, p->slots[i]) = p->slots[i];
    free(p->slots);
    p->slots = slots;
    p->nslots = n;
    return 0;
}

/* Returns the pool's copy of s (one copy per distinct string: many functions share a
 * file and a module), or NULL when memory ran out. */
static const char *pool_intern(struct string_pool *p, const char *s)
{
    if (2 * (p->count + 1) > p->nslots && intern_grow(p) != 0)
        return NULL;
    const char **slot = intern_slot(p->slots, p->nslots, s);
    if (*slot != NULL)
        return *slot;
    size_t n = strlen(s) + 1;
    char *copy = pool_alloc(p, n);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, n);
    *slot = copy;
    p->count++;
    return copy;
}

static void pool_release(struct string_pool *p)
{
    while (p->chunks != NULL) {
        struct pool_chunk *next = p->chunks->next;
        free(p->chunks);
        p->chunks = next;
    }
    free(p->slots);
    memset(p, 0, sizeof(*p));
}

/* ---- session state -------------------------------------------------------------- */

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static struct {
    Dwfl *dwfl;
    cxa_demangle_fn demangler;          /* NULL while no C++ runtime is loaded */
    bool demangler_stale;               /* modules reported since it was looked for */
    bool have_generation;               /* the loader's adds/subs counters are readable */
    unsigned long long reported_generation; /* their sum when the maps were last reported */
    struct string_pool strings;
} S;

/* ---- module reporting ----------------------------------------------------------- */

static void find_demangler(void);

/* True when the ELF file open on fd carries the build id bits[0..len). */
static bool file_has_build_id(int fd, const unsigned char *bits, int len)
{
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf == NULL)
        return false;
    const void *id;
    ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
    bool same = n == len && memcmp(id, bits, (size_t)len) == 0;
    elf_end(elf);
    return same;
}

/* The .gnu_debuglink part of dwfl_standard_find_debuginfo for a module with a build id:
 * the link's name (or the file's name plus ".debug") next to the file, in the .debug
 * directory beside it, and below /usr/lib/debug; the candidate must carry the module's
 * build id and not be the file itself. Returns an open descriptor (its path in *name)
 * or -1. */
static int find_debuglink(const char *file, const char *debuglink, const unsigned char *bits,
                          int len, char **name)
{
    const char *slash = strrchr(file, '/');
    if (slash == NULL || (debuglink != NULL && strchr(debuglink, '/') != NULL))
        return -1; /* a link names a file, not a path (it must not climb out of the dirs) */
    int dirlen = (int)(slash - file);
    char link[PATH_MAX];
    if (debuglink == NULL) {
        if (snprintf(link, sizeof(link), "%s.debug", slash + 1) >= (int)sizeof(link))
            return -1;
        debuglink = link;
    }
    struct stat self;
    if (stat(file, &self) != 0)
        return -1;
    static const char *const formats[] = { "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s" };
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), formats[i], dirlen, file, debuglink) >=
            (int)sizeof(path))
            continue;
        /* Non-blocking: a FIFO planted under the name must not stall the program. */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            !(st.st_dev == self.st_dev && st.st_ino == self.st_ino) &&
            file_has_build_id(fd, bits, len) && (*name = strdup(path)) != NULL)
            return fd;
        close(fd);
    }
    return -1;
}

/*
 * Local-only debuginfo search: the build-id lookup under the debug directories (how
 * distributions install -dbg/-dbgsym packages), then the .gnu_debuglink search. Not
 * dwfl_standard_find_debuginfo, which ends by asking the debuginfod servers named in
 * DEBUGINFOD_URLS (that could stall a measured program on network downloads) and, with
 * no servers named, still loads libdebuginfod with libcurl and its TLS libraries: about
 * 20 million instructions and a thousand page faults for the first stripped library
 * that a sample lands in. Only a module without a build id, which our own search
 * cannot check a candidate against, still goes there when DEBUGINFOD_URLS is unset.
 */
static int find_debuginfo_locally(Dwfl_Module *mod, void **userdata, const char *modname,
                                  Dwarf_Addr base, const char *file, const char *debuglink,
                                  GElf_Word crc, char **debuginfo_file_name)
{
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file, debuglink,
                                          crc, debuginfo_file_name);
    if (fd >= 0)
        return fd;
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(mod, &bits, &vaddr);
    if (len > 0)
        return file != NULL ? find_debuglink(file, debuglink, bits, len, debuginfo_file_name)
                            : -1;
    const char *urls = secure_getenv("DEBUGINFOD_URLS");
    if (urls != NULL && urls[0] != '\0')
        return -1;
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file, debuglink,
                                        crc, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = find_debuginfo_locally,
    .debuginfo_path = NULL, /* the default search path */
};

static int read_generation_of_first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    unsigned long long *generation = data;
    /* dlpi_adds/dlpi_subs exist only when the loader passes a large enough struct. */
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
        *generation = info->dlpi_adds + info->dlpi_subs;
    return 1; /* every object reports the same counters: stop after the first */
}

/* Sets *generation to a number that changes whenever an object is loaded or unloaded;
 * returns false when the loader does not provide it. */
static bool loaded_objects_generation(unsigned long long *generation)
{
    unsigned long long g = ~0ull;
    dl_iterate_phdr(read_generation_of_first_object, &g);
    if (g == ~0ull)
        return false;
    *generation = g;
    return true;
}

/* (Re)reports the modules of this process. Modules still mapped at the same place keep
 * their loaded ELF/DWARF data; the others are freed by libdwfl. */
static int report_process_modules(void)
{
    /* Read the counter before the maps: a dlopen racing with us then shows up as a
     * changed generation at the next lookup, never as a missed one. */
    S.have_generation = loaded_objects_generation(&S.reported_generation);
    dwfl_report_begin(S.dwfl);
    int err = dwfl_linux_proc_report(S.dwfl, getpid());
    if (dwfl_report_end(S.dwfl, NULL, NULL) != 0 || err != 0)
        return -1;
    S.demangler_stale = true; /* looked for at the next mangled name (demangle) */
    return 0;
}

/* True when re-reading the maps may change what an address resolves to. */
static bool modules_may_be_stale(bool address_in_known_module)
{
    unsigned long long generation;
    if (!S.have_generation || !loaded_objects_generation(&generation))
        return !address_in_known_module; /* no counter: re-report on a miss only */
    return generation != S.reported_generation;
}

static Dwfl_Module *module_of(uintptr_t addr)
{
    Dwfl_Module *mod = dwfl_addrmodule(S.dwfl, addr);
    if (modules_may_be_stale(mod != NULL)) {
        /* A failed re-report leaves whatever libdwfl could read; the lookup proceeds. */
        (void)report_process_modules();
        mod = dwfl_addrmodule(S.dwfl, addr);
    }
    return mod;
}

/* ---- DWARF: where the function is defined ----------------------------------------- */

/*
 * The compilation unit whose code contains addr, and the module's bias. libdw finds it
 * through .debug_aranges, which clang does not emit (without -gdwarf-aranges), and
 * elfutils before 0.189 has no fallback: then the units' own address ranges are
 * searched, one by one (cold: once per new address).
 */
static bool find_cu(Dwfl_Module *mod, uintptr_t addr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
    Dwarf_Die *cudie = dwfl_module_addrdie(mod, addr, bias);
    if (cudie != NULL) {
        *cu = *cudie;
        return true;
    }
    Dwarf *dw = dwfl_module_getdwarf(mod, bias);
    if (dw == NULL)
        return false;
    Dwarf_Off off = 0, next;
    size_t header;
    while (dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
        if (dwarf_offdie(dw, off + header, cu) != NULL && dwarf_haspc(cu, addr - *bias) > 0)
            return true;
        off = next;
    }
    return false;
}

/* The subprogram DIE whose code contains addr (not an inlined instance inside it). */
static bool find_subprogram(Dwfl_Module *mod, uintptr_t addr, Dwarf_Die *cu, Dwarf_Die *fn)
{
    Dwarf_Addr bias;
    if (!find_cu(mod, addr, cu, &bias))
        return false;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, addr - bias, &scopes);
    bool found = false;
    /* Scopes run from the innermost outwards; inlined bodies are
     * DW_TAG_inlined_subroutine, so the first subprogram is the one that owns the code. */
    for (int i = 0; i < n && !found; i++) {
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
            *fn = scopes[i];
            found = true;
        }
    }
    free(scopes);
    return found;
}

/*
 * Interns file, joined with the CU's compilation directory when the file is relative
 * and the directory absolute. libdw already joins line-table directories, so a relative
 * result usually means a relative comp dir too (distributions map the build directory
 * to "." with -fdebug-prefix-map); joining two relative paths would only mislead.
 */
static const char *intern_source_path(Dwarf_Die *cu, const char *file)
{
    Dwarf_Attribute attr;
    const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
    if (file[0] == '/' || dir == NULL || dir[0] != '/')
        return pool_intern(&S.strings, file);
    size_t ndir = strlen(dir), nfile = strlen(file);
    char *joined = malloc(ndir + 1 + nfile + 1);
    if (joined == NULL)
        return NULL;
    memcpy(joined, dir, ndir);
    joined[ndir] = '/';
    memcpy(joined + ndir + 1, file, nfile + 1);
    const char *interned = pool_intern(&S.strings, joined);
    free(joined);
    return interned;
}

/*
 * True when mod's debug information is a distribution's separate debug file (under
 * /usr/lib/debug, as libc6-dbg installs it). Its source paths name the distribution's
 * build tree ("./math/../sysdeps/ieee754/dbl-64/s_sin.c"), which nothing here can open,
 * and reading them means inflating its compressed DWARF, tens of MB, in every process
 * at finalize: 250 million instructions for libm's sin, most of what sampling cost a
 * half-second job (doc/bench.md, "A short run under hp-run"). Its symbol table, which
 * names the functions, is read without that.
 */
static bool distribution_debug_file(Dwfl_Module *mod)
{
    const char *debugfile = NULL;
    dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
    return debugfile != NULL && strncmp(debugfile, "/usr/lib/debug/", 15) == 0;
}

/* Fills file and line from DWARF; leaves "" and -1 when there is no usable DWARF. A
 * Fortran main program (symbol MAIN__) gets its PROGRAM name from DWARF in *name.
 * Returns -1 only when memory ran out. */
static int lookup_definition(Dwfl_Module *mod, uintptr_t addr, const char **file, int *line,
                             const char **name)
{
    *file = "";
    *line = -1;
    Dwarf_Die cu, fn;
    if (distribution_debug_file(mod) || !find_subprogram(mod, addr, &cu, &fn))
        return 0;
    const char *program = strcmp(*name, HP_FORTRAN_MAIN_SYMBOL) == 0 ? dwarf_diename(&fn) : NULL;
    if (program != NULL && program[0] != '\0' &&
        (*name = pool_intern(&S.strings, program)) == NULL)
        return -1;
    /* Both follow DW_AT_specification/abstract_origin, so an out-of-class C++ member
     * definition without its own decl_file still gets the declaration's. */
    int decl_line;
    if (dwarf_decl_line(&fn, &decl_line) == 0)
        *line = decl_line;
    const char *decl_file = dwarf_decl_file(&fn);
    if (decl_file != NULL && decl_file[0] != '\0') {
        *file = intern_source_path(&cu, decl_file);
        if (*file == NULL)
            return -1;
    }
    return 0;
}

/* ---- demangling ------------------------------------------------------------------ */

/*
 * The demangler is the process' own __cxa_demangle (libstdc++ or libc++abi), found in
 * the symbol tables libdwfl reads, at the first mangled name after a report of the
 * modules (reading the C++ runtime's symbol table costs a C program for nothing). It is
 * never looked up with dlsym or dlopen: those take the loader's lock, and lookups run
 * under the region registry's lock, while a thread inside dlopen runs instrumented
 * constructors that wait for that registry lock; the two would deadlock.
 */
/* True when addr lies in an executable mapping of this process. libdwfl's own private
 * mappings of ELF files it has read show up in the process maps too, and so as modules
 * of the same name, at addresses where nothing can be called. */
static bool address_is_executable(uintptr_t addr)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL)
        return false;
    char line[512];
    bool executable = false;
    while (fgets(line, sizeof(line), maps) != NULL) {
        unsigned long lo, hi;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && addr >= lo && addr < hi) {
            executable = perms[2] == 'x';
            break;
        }
    }
    fclose(maps);
    return executable;
}

static int find_demangler_in_module(Dwfl_Module *mod, void **userdata, const char *name,
                                    Dwarf_Addr start, void *arg)
{
    (void)userdata, (void)start, (void)arg;
    if (name == NULL || (strstr(name, "libstdc++") == NULL && strstr(name, "libc++abi") == NULL))
        return DWARF_CB_OK;
    int n = dwfl_module_getsymtab(mod);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *sname = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
        if (sname != NULL && GELF_ST_TYPE(sym.st_info) == STT_FUNC && addr != 0 &&
            strcmp(sname, "__cxa_demangle") == 0) {
            uintptr_t a = (uintptr_t)addr;
            if (!address_is_executable(a))
                return DWARF_CB_OK;
            memcpy(&S.demangler, &a, sizeof(S.demangler)); /* code address -> function */
            return DWARF_CB_ABORT;
        }
    }
    return DWARF_CB_OK;
}

static void find_demangler(void)
{
    S.demangler = NULL;
    dwfl_getmodules(S.dwfl, find_demangler_in_module, NULL, 0);
}

/* Demangles an Itanium C++ name; returns a malloc'ed string, or NULL when the name is
 * not mangled, not valid, or no demangler is loaded. */
static char *demangle(const char *mangled)
{
    if (strncmp(mangled, "_Z", 2) != 0)
        return NULL;
    if (S.demangler_stale) {
        S.demangler_stale = false;
        find_demangler();
    }
    if (S.demangler == NULL)
        return NULL;
    int status = -1;
    char *demangled = S.demangler(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(demangled);
        return NULL;
    }
    return demangled;
}

/* Interns the displayed name: the demangled form of mangled (C++, or a Fortran module
 * procedure's "module::procedure"), else mangled itself. */
static const char *intern_display_name(const char *mangled)
{
    char module_name[512];
    if (hp_fortran_module_name(mangled, module_name, sizeof(module_name)) > 0)
        return pool_intern(&S.strings, module_name);
    char *demangled = demangle(mangled);
    if (demangled == NULL)
        return pool_intern(&S.strings, mangled);
    const char *name = pool_intern(&S.strings, demangled);
    free(demangled); /* allocated by the demangler with the process' malloc */
    return name;
}

/* The module's path as the process maps name it. libdwfl names the vDSO "[vdso: PID]";
 * the pid means nothing in a report, so it becomes the maps' own "[vdso]". */
static const char *module_path(Dwfl_Module *mod)
{
    const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (name == NULL)
        return "";
    if (strncmp(name, "[vdso", 5) == 0)
        return "[vdso]";
    return name;
}

/* ---- public API -------------------------------------------------------------------- */

int hp_symbols_init(void)
{
    if (S.dwfl != NULL)
        return 0;
    S.dwfl = dwfl_begin(&dwfl_callbacks);
    if (S.dwfl == NULL)
        return -1;
    if (report_process_modules() != 0) {
        hp_symbols_fini();
        return -1;
    }
    return 0;
}

int hp_symbols_lookup(uintptr_t addr, hp_symbol *out)
{
    if (S.dwfl == NULL)
        return -1;
    Dwfl_Module *mod = module_of(addr);
    if (mod == NULL)
        return -1;

    GElf_Off offset;
    GElf_Sym sym;
    const char *symname = dwfl_module_addrinfo(mod, addr, &offset, &sym, NULL, NULL, NULL);
    if (symname == NULL || symname[0] == '\0')
        return -1;

    /* ".symtab" names of versioned definitions carry their version
     * ("clock_gettime@@GLIBC_2.17"): users know the function by its plain name */
    char unversioned[512];
    const char *at = strchr(symname, '@');
    if (at != NULL && at > symname && (size_t)(at - symname) < sizeof(unversioned)) {
        memcpy(unversioned, symname, (size_t)(at - symname));
        unversioned[at - symname] = '\0';
        symname = unversioned;
    }

    hp_symbol s;
    s.start = addr - offset;
    s.size = sym.st_size;
    s.mangled = pool_intern(&S.strings, symname);
    s.name = s.mangled != NULL ? intern_display_name(s.mangled) : NULL;
    s.module = pool_intern(&S.strings, module_path(mod));
    if (s.mangled == NULL || s.name == NULL || s.module == NULL)
        return -1;
    if (lookup_definition(mod, addr, &s.file, &s.line, &s.name) != 0)
        return -1;
    *out = s;
    return 0;
}

int hp_symbols_code_line(uintptr_t addr, const char **file, int *line)
{
    if (S.dwfl == NULL)
        return -1;
    Dwfl_Module *mod = module_of(addr);
    Dwfl_Line *l = mod != NULL ? dwfl_module_getsrc(mod, addr) : NULL;
    int lineno;
    const char *src = l != NULL ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
    Dwarf_Die cu;
    Dwarf_Addr bias;
    Dwarf_Line *dl;
    if (src == NULL && mod != NULL && find_cu(mod, addr, &cu, &bias) && /* no aranges */
        (dl = dwarf_getsrc_die(&cu, addr - bias)) != NULL && dwarf_lineno(dl, &lineno) == 0)
        src = dwarf_linesrc(dl, NULL, NULL);
    if (src == NULL || (src = pool_intern(&S.strings, src)) == NULL)
        return -1;
    *file = src;
    *line = lineno;
    return 0;
}

const char *hp_symbols_section(uintptr_t addr)
{
    if (S.dwfl == NULL)
        return NULL;
    Dwfl_Module *mod = module_of(addr);
    Dwarf_Addr offset = addr, bias;
    Elf_Scn *scn = mod != NULL ? dwfl_module_address_section(mod, &offset, &bias) : NULL;
    Elf *elf = mod != NULL ? dwfl_module_getelf(mod, &bias) : NULL;
    size_t names;
    GElf_Shdr header;
    if (scn == NULL || elf == NULL || elf_getshdrstrndx(elf, &names) != 0 ||
        gelf_getshdr(scn, &header) == NULL)
        return NULL;
    const char *name = elf_strptr(elf, names, header.sh_name);
    return name != NULL ? pool_intern(&S.strings, name) : NULL;
}

void hp_symbols_fini(void)
{
    if (S.dwfl != NULL)
        dwfl_end(S.dwfl);
    pool_release(&S.strings);
    memset(&S, 0, sizeof(S));
}
