#!/bin/sh
# How hp-instrument chooses the instrumentation flags: it asks each compiler what it is
# (gcc, g++, gfortran and the MPI wrappers are GCC here; clang is clang), uses the GCC
# plug-in for a GCC of the plug-in's version, else falls back to -finstrument-functions
# without system headers and says why once; clang instruments after inlining. Exact
# command lines with --dry-run (the plug-in file only has to exist for that), then real
# compiles with gcc and clang.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 27

: "${HP_INSTRUMENT_INCLUDEDIR:=$HP_SRCDIR/include}"
export HP_INSTRUMENT_INCLUDEDIR
unset HP_INSTRUMENT_PLUGIN HP_WRAPPER HP_WRAPPER_ARGS
INC="-I/hp/include -DHP_USER_ENABLE"
FALLBACK="-g -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include,/usr/lib/gcc"
NOTICE_TAIL="; instrumenting with -finstrument-functions, which also instruments inline functions and can slow C++ programs down many times (--no-plugin silences this)"
CLANG_NOTE="hp-instrument: 'clang++' is clang, which the GCC plug-in cannot instrument; instrumenting with -finstrument-functions-after-inlining: the functions that remain calls after inlining (--no-plugin silences this)"
# The GCC version the plug-in is built for, as configure found it.
PLUGIN_GCC=$(sed -n 's/^HP_PLUGIN_GCC_VERSION = //p' "$HP_BUILDDIR/Makefile")
GCC_VERSION=$(gcc -dumpfullversion)

# dry [env assignments...] -- hp-instrument arguments: the command on stdout, stderr in
# $WORK/dry.err; libdir /hp/lib (no plug-in there) unless the caller sets it.
dry() {
    env HP_INSTRUMENT_LIBDIR=/hp/lib HP_INSTRUMENT_INCLUDEDIR=/hp/include "$@" 2>"$WORK/dry.err"
}

mkdir -p plug lib/hpmeasure bin
: >plug/hpmeasure_gcc.so
: >plug/other.so
: >lib/hpmeasure/hpmeasure_gcc.so
printf -- '-*\n' >app.filt
P="$WORK/plug/hpmeasure_gcc.so"

# ---- the plug-in for every GCC-based compiler ---------------------------------------------
for cc in gcc g++ gfortran mpicc mpicxx mpifort; do
    if ! command -v "$cc" >/dev/null; then
        ok "# SKIP $cc: not installed"
        continue
    fi
    check_eq "$cc is a GCC: -fplugin, nothing on stderr" "$cc -g -fplugin=$P -c a.c $INC|" \
        "$(dry HP_INSTRUMENT_PLUGIN="$P" hp-instrument --dry-run "$cc" -c a.c)|$(cat dry.err)"
done
check_eq "--instrument-filter and --instrument-inline: plug-in arguments, filter absolute" \
    "g++ -g -fplugin=$P -fplugin-arg-hpmeasure_gcc-filter=$WORK/app.filt -fplugin-arg-hpmeasure_gcc-inline -O2 -c a.cc $INC" \
    "$(dry HP_INSTRUMENT_PLUGIN="$P" hp-instrument --dry-run --instrument-filter=app.filt --instrument-inline g++ -O2 -c a.cc)"
check_eq "plug-in arguments carry the plug-in's name (its file name up to the first dot)" \
    "gcc -g -fplugin=$WORK/plug/other.so -fplugin-arg-other-inline -c a.c $INC" \
    "$(dry HP_INSTRUMENT_PLUGIN=plug/other.so hp-instrument --dry-run --instrument-inline gcc -c a.c)"
check_eq "default plug-in: <libdir>/hpmeasure/hpmeasure_gcc.so" \
    "gcc -g -fplugin=$WORK/lib/hpmeasure/hpmeasure_gcc.so -c a.c $INC" \
    "$(dry HP_INSTRUMENT_LIBDIR="$WORK/lib" hp-instrument --dry-run gcc -c a.c)"
check_eq "link step: plug-in flags and the core" \
    "mpicc -g -fplugin=$P -L/hp/lib -Wl,-rpath,/hp/lib -Wl,--push-state,--no-as-needed -lhpmeasure_mpi -o app a.o $INC -Wl,--pop-state" \
    "$(dry HP_INSTRUMENT_PLUGIN="$P" hp-instrument --dry-run mpicc -o app a.o)"

# ---- fallback ------------------------------------------------------------------------------
check_eq "no plug-in installed: fallback flags, one line on stderr naming where it looked" \
    "g++ $FALLBACK -c a.cc $INC|hp-instrument: not using the GCC plug-in: no plug-in at /hp/lib/hpmeasure/hpmeasure_gcc.so (not built or not installed)$NOTICE_TAIL" \
    "$(dry hp-instrument --dry-run g++ -c a.cc)|$(cat dry.err)"
check_eq "--no-plugin: fallback, silently; HP_INSTRUMENT_PLUGIN= : fallback, one line says why" \
    "gcc $FALLBACK -c a.c $INC||gcc $FALLBACK -c a.c $INC|hp-instrument: not using the GCC plug-in: HP_INSTRUMENT_PLUGIN is set and empty$NOTICE_TAIL" \
    "$(dry HP_INSTRUMENT_PLUGIN="$P" hp-instrument --dry-run --no-plugin gcc -c a.c)|$(cat dry.err)|$(dry HP_INSTRUMENT_PLUGIN= hp-instrument --dry-run gcc -c a.c)|$(cat dry.err)"
check_eq "--instrument-filter without the plug-in: a warning naming the run-time filter" \
    "gcc $FALLBACK -c a.c $INC|hp-instrument: warning: --instrument-filter=app.filt needs the GCC plug-in: not applied at compile time (filter at run time with HP_FILTERING_FILE=app.filt)" \
    "$(dry hp-instrument --dry-run --no-plugin --instrument-filter=app.filt gcc -c a.c)|$(cat dry.err)"

# A gcc that says it is another version (probe calls only), else the real gcc.
cat >bin/gcc <<'EOF'
#!/bin/sh
case " $* " in
*" -dM "*) printf '#define __GNUC__ 11\n#define __GNUC_MINOR__ 1\n#define __GNUC_PATCHLEVEL__ 0\n'
           echo "$*" >>"${PROBE_LOG:-/dev/null}"; exit 0 ;;
esac
exec gcc "$@"
EOF
# A compiler whose probe fails.
printf '#!/bin/sh\ncase " $* " in *" -dM "*) exit 3 ;; esac\nexec gcc "$@"\n' >bin/mpicc
chmod +x bin/gcc bin/mpicc
if [ -n "$PLUGIN_GCC" ] && [ "$PLUGIN_GCC" != 11.1.0 ]; then
    check_eq "another GCC version than the plug-in's: fallback, the message names both" \
        "$WORK/bin/gcc $FALLBACK -c a.c $INC|hp-instrument: not using the GCC plug-in: '$WORK/bin/gcc' is GCC 11.1.0, the plug-in was built for GCC $PLUGIN_GCC$NOTICE_TAIL" \
        "$(dry HP_INSTRUMENT_PLUGIN="$P" hp-instrument --dry-run "$WORK/bin/gcc" -c a.c)|$(cat dry.err)"
else
    ok "# SKIP hpmeasure was configured without a GCC (HP_PLUGIN_GCC_VERSION='$PLUGIN_GCC')"
fi
check_eq "the compiler's probe fails: fallback, the message says what failed" \
    "$WORK/bin/mpicc $FALLBACK -c a.c $INC|hp-instrument: not using the GCC plug-in: cannot tell which compiler '$WORK/bin/mpicc' is: '$WORK/bin/mpicc -E -dM -x c /dev/null' failed with exit status 3$NOTICE_TAIL" \
    "$(dry HP_INSTRUMENT_PLUGIN="$P" hp-instrument --dry-run "$WORK/bin/mpicc" -c a.c)|$(cat dry.err)"
for args in "-E a.c" "--version" "-dumpversion" "-M a.c"; do
    # shellcheck disable=SC2086 # the words are split on purpose
    dry PROBE_LOG="$WORK/probe.log" hp-instrument --dry-run "$WORK/bin/gcc" $args >/dev/null
done
dry PROBE_LOG="$WORK/probe.log" hp-instrument --dry-run --nocompiler "$WORK/bin/gcc" -c a.c >/dev/null
check "no probe for -E, --version, -dumpversion, -M, or --nocompiler" test ! -e probe.log
dry PROBE_LOG="$WORK/probe.log" hp-instrument --dry-run "$WORK/bin/gcc" -o app a.c b.c >/dev/null
check_eq "one probe per compile-and-link" "-E -dM -x c /dev/null" "$(cat probe.log)"

# ---- clang ---------------------------------------------------------------------------------
if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    check_eq "clang, clang++: -finstrument-functions-after-inlining, plug-in or not, and one line says so" \
        "clang -g -finstrument-functions-after-inlining -c a.c $INC|clang++ -g -finstrument-functions-after-inlining -c a.cc $INC|$CLANG_NOTE" \
        "$(dry HP_INSTRUMENT_PLUGIN="$P" hp-instrument --dry-run clang -c a.c)|$(dry hp-instrument --dry-run clang++ -c a.cc)|$(cat dry.err)"
    check_eq "clang --instrument-inline: hooks before inlining" \
        "clang -g -finstrument-functions -c a.c $INC" \
        "$(dry hp-instrument --dry-run --instrument-inline clang -c a.c)"
    check_eq "clang --instrument-filter: the warning (--no-plugin: without the line on clang)" \
        "hp-instrument: warning: --instrument-filter=app.filt needs the GCC plug-in: not applied at compile time (filter at run time with HP_FILTERING_FILE=app.filt)" \
        "$(dry hp-instrument --dry-run --no-plugin --instrument-filter=app.filt clang -c a.c >/dev/null; cat dry.err)"
else
    for i in 1 2 3; do ok "# SKIP clang or clang++ not installed"; done
fi

# ---- bad input -----------------------------------------------------------------------------
expect_fail "unreadable filter file: exit 2, names the file" \
    "^hp-instrument: --instrument-filter=nofile.filt: cannot read the filter file: No such file or directory$" \
    hp-instrument --dry-run --instrument-filter=nofile.filt gcc -c a.c
expect_fail "a directory as the filter file" "cannot read the filter file: not a regular file" \
    hp-instrument --dry-run --instrument-filter=plug gcc -c a.c
expect_fail "HP_INSTRUMENT_PLUGIN naming a missing file: exit 2" \
    "^hp-instrument: HP_INSTRUMENT_PLUGIN=/no/such.so: No such file or directory$" \
    env HP_INSTRUMENT_PLUGIN=/no/such.so hp-instrument --dry-run gcc -c a.c
expect_fail "--instrument-filter with --nocompiler: exit 2" \
    "^hp-instrument: --instrument-filter needs compiler instrumentation, which --nocompiler turns off$" \
    hp-instrument --dry-run --nocompiler --instrument-filter=app.filt gcc -c a.c

# ---- real compiles: what each mode instruments -----------------------------------------------
# sq is inlined at -O2: -finstrument-functions still calls the hooks for it (visits 4),
# clang's after-inlining hooks see only main.
cat >inl.c <<'EOF'
static inline int sq(int x) { return x * x; }
int main(void)
{
    volatile int s = 0;
    for (int i = 0; i < 4; i++)
        s += sq(i);
    return s == 14 ? 0 : 1;
}
EOF
regions() { # program: "path visits" of its profile, one line each
    rm -rf "hp-$1-"*
    "./$1" && $CUBEDUMP "hp-$1-"*/profile.cubex | cut -f1,3 | tr '\t' ' '
}
HP_INSTRUMENT_PLUGIN= hp-instrument gcc -O2 -o inl_gcc inl.c
check_eq "gcc fallback: the inlined function is measured (visits=4)" \
    "inl_gcc visits=1 inl_gcc/main visits=1 inl_gcc/main/sq visits=4" "$(regions inl_gcc | tr '\n' ' ' | sed 's/ $//')"
if command -v clang >/dev/null; then
    hp-instrument clang -O2 -o inl_clang inl.c
    check_eq "clang after inlining: only main" \
        "inl_clang visits=1 inl_clang/main visits=1" "$(regions inl_clang | tr '\n' ' ' | sed 's/ $//')"
else
    ok "# SKIP clang not installed"
fi
printf 'int f(void);\nint main(void) { return f(); }\n' >sys.c
HP_INSTRUMENT_PLUGIN= hp-instrument gcc -c sys.c -o sys.o 2>sys.err
check_eq "gcc fallback real compile: HP_INSTRUMENT_PLUGIN= said once, object has hooks" \
    "hp-instrument: not using the GCC plug-in: HP_INSTRUMENT_PLUGIN is set and empty$NOTICE_TAIL|yes" \
    "$(cat sys.err)|$(nm -u sys.o | grep -qw __cyg_profile_func_enter && echo yes)"

finish
