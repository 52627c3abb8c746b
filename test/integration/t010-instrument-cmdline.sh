#!/bin/sh
# hp-instrument's command line: which flags each kind of compiler call gets (checked
# exactly with --dry-run), its errors and exit statuses, and that the user's words reach
# the compiler untouched. The GCC plug-in is turned off here (HP_INSTRUMENT_PLUGIN=):
# t014 checks how the instrumentation flags are chosen.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 34

# Fixed directories make the --dry-run lines exact; real compiles use the harness's.
dry() {
    HP_INSTRUMENT_LIBDIR=/hp/lib HP_INSTRUMENT_INCLUDEDIR=/hp/include \
        hp-instrument --dry-run "$@"
}
: "${HP_INSTRUMENT_INCLUDEDIR:=$HP_SRCDIR/include}"
HP_INSTRUMENT_PLUGIN=
export HP_INSTRUMENT_INCLUDEDIR HP_INSTRUMENT_PLUGIN
HOOKS="-g -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include,/usr/lib/gcc"
INC="-I/hp/include -DHP_USER_ENABLE"
LINK="-L/hp/lib -Wl,-rpath,/hp/lib -Wl,--push-state,--no-as-needed -lhpmeasure -Wl,--pop-state"
# MPI programs: the MPI flavour first, so that a PMPI tool the user links comes after it,
# and --no-as-needed over the user's arguments, so that the linker keeps that tool.
MPIFIRST="-L/hp/lib -Wl,-rpath,/hp/lib -Wl,--push-state,--no-as-needed -lhpmeasure_mpi"
MPILAST="-Wl,--pop-state"

# expect_status "description" status pattern command args... : ok when the command
# exits with exactly that status and its stderr matches the grep -E pattern.
expect_status() {
    desc=$1
    want=$2
    pattern=$3
    shift 3
    "$@" >"$WORK/last.out" 2>"$WORK/last.err"
    got=$?
    if [ "$got" -eq "$want" ] && grep -Eq -- "$pattern" "$WORK/last.err"; then
        ok "$desc"
    else
        not_ok "$desc (status $got, want $want; stderr should match /$pattern/)"
        sed 's/^/# /' "$WORK/last.err" | head -20
    fi
}

# ---- modes, exactly --------------------------------------------------------------------
check_eq "-c: hooks and -I, no link flags" \
    "gcc $HOOKS -O2 -c a.c -o a.o $INC" "$(dry gcc -O2 -c a.c -o a.o)"
check_eq "-S and -fsyntax-only: hooks and -I, no link flags" \
    "gcc $HOOKS -S a.c $INC|gcc $HOOKS -fsyntax-only a.c $INC" \
    "$(dry gcc -S a.c)|$(dry gcc -fsyntax-only a.c)"
check_eq "-E: untouched" "gcc -E -DX=1 a.c" "$(dry gcc -E -DX=1 a.c)"
check_eq "-M and -MM: untouched" "gcc -M a.c|gcc -MM -MT a.o a.c" \
    "$(dry gcc -M a.c)|$(dry gcc -MM -MT a.o a.c)"
check_eq "-MD -MF with -c is a compile, dependency words kept" \
    "gcc $HOOKS -MD -MF a.d -c a.c $INC" "$(dry gcc -MD -MF a.d -c a.c)"
check_eq "-shared: hooks, no core library" \
    "gcc $HOOKS -shared -fPIC -o libx.so x.c $INC" "$(dry gcc -shared -fPIC -o libx.so x.c)"
check_eq "-r: hooks, no core library" \
    "gcc $HOOKS -r a.o b.o -o ab.o $INC" "$(dry gcc -r a.o b.o -o ab.o)"
check_eq "link-only: link flags after the user's objects and libraries" \
    "gcc $HOOKS a.o b.o libz.a -lm -o app $INC $LINK" "$(dry gcc a.o b.o libz.a -lm -o app)"
check_eq "compile+link of several sources: -o stays in the middle" \
    "gcc $HOOKS -O2 -o app main.c util.c -lm $INC $LINK" \
    "$(dry gcc -O2 -o app main.c util.c -lm)"
check_eq "MPI compilers link the MPI flavour of the core, first" \
    "mpicc $HOOKS $MPIFIRST -O2 -o app main.c -lm $INC $MPILAST|gcc $HOOKS $MPIFIRST -o app main.c -lmpich $INC $MPILAST" \
    "$(dry mpicc -O2 -o app main.c -lm)|$(dry gcc -o app main.c -lmpich)"
check_eq "--nocompiler -c: -g but no -finstrument-functions" \
    "gcc -g -c a.c $INC" "$(dry --nocompiler gcc -c a.c)"
NOCOMPILER_MARK="-Wl,--undefined=hp_nocompiler_build,--export-dynamic-symbol=hp_nocompiler_build -lhpmeasure_nocompiler"
check_eq "--nocompiler link: still links the core, and the marker that turns sampling on" \
    "gcc -g -o app a.c $INC $(echo "$LINK" | sed "s/-Wl,--push/$NOCOMPILER_MARK -Wl,--push/")" \
    "$(dry --nocompiler gcc -o app a.c)"
PROBE_MARK="-Wl,--undefined=hp_configure_probe,--export-dynamic-symbol=hp_configure_probe -lhpmeasure_nocompiler"
check_eq "configure's conftest and CMake's cmTC_* links get the marker that turns measurement off" \
    "gcc $HOOKS -o conftest conftest.c $INC $(echo "$LINK" | sed "s/-Wl,--push/$PROBE_MARK -Wl,--push/")|gcc $HOOKS -o cmTC_1a2b3 cmTC_1a2b3.dir/src.c.o $INC $(echo "$LINK" | sed "s/-Wl,--push/$PROBE_MARK -Wl,--push/")|gcc $HOOKS -c conftest.c $INC" \
    "$(dry gcc -o conftest conftest.c)|$(dry gcc -o cmTC_1a2b3 cmTC_1a2b3.dir/src.c.o)|$(dry gcc -c conftest.c)"
check_eq "--nocompiler conftest link: both markers, the marker library once" \
    "gcc -g -o conftest conftest.c $INC -L/hp/lib -Wl,-rpath,/hp/lib -Wl,--undefined=hp_nocompiler_build,--export-dynamic-symbol=hp_nocompiler_build $PROBE_MARK -Wl,--push-state,--no-as-needed -lhpmeasure -Wl,--pop-state" \
    "$(dry --nocompiler gcc -o conftest conftest.c)"
check_eq "--version, -dumpversion, -dumpmachine, -print-*, -v alone: untouched" \
    "gcc --version|gcc -dumpversion|gcc -dumpmachine|gcc -print-file-name=libc.so|gcc -v" \
    "$(dry gcc --version)|$(dry gcc -dumpversion)|$(dry gcc -dumpmachine)|$(dry gcc -print-file-name=libc.so)|$(dry gcc -v)"
check_eq "words with spaces and quotes are printed shell-quoted" \
    "gcc $HOOKS -c '-DMSG=\"a b\"' '-DQ='\\''x'\\''' a.c $INC" \
    "$(dry gcc -c '-DMSG="a b"' "-DQ='x'" a.c)"

# Which hooks each one gets depends on what it is (t014); here: accepted, words in place.
names_ok=yes
for cc in gcc g++ cc c++ clang clang++ gfortran mpicc mpicxx mpic++ mpifort mpif90 mpif77 \
    /usr/bin/gcc gcc-12 clang-14 g++-12.2 x86_64-linux-gnu-gcc x86_64-linux-gnu-g++-12; do
    out=$(dry "$cc" -c a.c 2>/dev/null) || names_ok="no ($cc failed)"
    case $out in
    "$cc -g -finstrument-functions"*" -c a.c $INC") ;;
    *) names_ok="no ($cc: $out)" ;;
    esac
done
check_eq "accepted compiler names, paths, version suffixes, target prefixes" yes "$names_ok"

# ---- errors -----------------------------------------------------------------------------
expect_status "unknown compiler: exit 2, names the word" 2 \
    "^hp-instrument: unknown compiler 'gcx'$" hp-instrument gcx -c a.c
cp "$WORK/last.err" unknown.err # check below overwrites last.err
check "unknown compiler: lists the accepted compilers" grep -qx \
    "hp-instrument: accepted compilers: gcc g++ cc c++ clang clang++ gfortran mpicc mpicxx mpic++ mpifort mpif90 mpif77" \
    unknown.err
expect_status "a name merely ending in gcc is not a compiler" 2 \
    "unknown compiler 'xgcc'" hp-instrument --dry-run xgcc -c a.c
expect_status "missing compiler: exit 2" 2 \
    "^hp-instrument: missing compiler$" hp-instrument --verbose
expect_status "unknown hp-option: exit 2, lists the accepted options" 2 \
    "^hp-instrument: accepted options: --help --version --verbose --dry-run --nocompiler --no-plugin --instrument-filter=FILE --instrument-inline$" \
    hp-instrument --fast gcc -c a.c
expect_status "compiler not on PATH: exit 127" 127 \
    "^hp-instrument: cannot run '/nonexistent/gcc': No such file or directory$" \
    hp-instrument /nonexistent/gcc -c a.c
check "--help: usage on stdout, exit 0" sh -c 'hp-instrument --help | grep -q "^Usage: hp-instrument \[options\] <compiler>"'
check "--version: exit 0" sh -c 'hp-instrument --version | grep -q "^hp-instrument (hpmeasure) [^ ]"'

# ---- real compiles ----------------------------------------------------------------------
printf 'int main(void) { return 0 }\n' >bad.c
gcc -c bad.c -o bad-direct.o 2>/dev/null
direct=$?
hp-instrument gcc -c bad.c -o bad.o 2>bad.err
wrapped=$?
check_eq "syntax error: the compiler's exit status comes through" "$direct nonzero" \
    "$wrapped $([ "$wrapped" -ne 0 ] && echo nonzero)"
check "syntax error: the compiler's message comes through" grep -q "error: expected" bad.err

cat >quote.c <<'EOF'
#include <stdio.h>
static void say(const char *s) { puts(s); }
int main(void) { say(MSG); return 0; }
EOF
hp-instrument --verbose gcc -c '-DMSG="it'\''s  a $HOME `b`"' quote.c -o quote.o 2>verbose.err
check_eq "--verbose: the real command, one line on stderr (after the line on the empty HP_INSTRUMENT_PLUGIN)" \
    "hp-instrument: not using the GCC plug-in: HP_INSTRUMENT_PLUGIN is set and empty; instrumenting with -finstrument-functions, which also instruments inline functions and can slow C++ programs down many times (--no-plugin silences this)
gcc $HOOKS -c '-DMSG=\"it'\\''s  a \$HOME \`b\`\"' quote.c -o quote.o -I$HP_INSTRUMENT_INCLUDEDIR -DHP_USER_ENABLE" \
    "$(cat verbose.err)"
check "-c object references the enter hook" sh -c 'nm -u quote.o | grep -qw __cyg_profile_func_enter'
check "link: program built and linked to libhpmeasure" sh -c \
    'hp-instrument gcc -o quote quote.o && readelf -d quote | grep -q "NEEDED.*libhpmeasure"'
check_eq "argv reaches the compiler untouched (no shell in between)" \
    "it's  a \$HOME \`b\`" "$(./quote)"
hp-instrument --nocompiler gcc -c quote.c -DMSG='"x"' -o plain.o
check "--nocompiler: object has no hook references" sh -c '! nm -u plain.o | grep -q __cyg_profile'
check "--dry-run: nothing is built" sh -c \
    'hp-instrument --dry-run gcc -c quote.c -DMSG=\"x\" -o dry.o >/dev/null && test ! -e dry.o'

# ---- relocatable installation: <bin>/../lib and <bin>/../include -------------------------
self=$(command -v hp-instrument)
if head -c 4 "$self" | grep -q ELF; then
    mkdir -p inst/bin inst/lib inst/include/hp
    cp "$self" inst/bin/hp-instrument
    : >inst/lib/libhpmeasure.so
    prefix=$(cd inst && pwd -P)
    check_eq "relocated install: finds ../lib and ../include next to itself" \
        "gcc $HOOKS -o app a.c -I$prefix/include -DHP_USER_ENABLE -L$prefix/lib -Wl,-rpath,$prefix/lib -Wl,--push-state,--no-as-needed -lhpmeasure -Wl,--pop-state" \
        "$(env -u HP_INSTRUMENT_LIBDIR -u HP_INSTRUMENT_INCLUDEDIR inst/bin/hp-instrument --dry-run gcc -o app a.c)"
else
    ok "# SKIP hp-instrument on PATH is not the binary itself"
fi

finish
