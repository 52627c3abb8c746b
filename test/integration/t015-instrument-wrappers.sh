#!/bin/sh
# The one-word compilers hp-gcc, hp-g++, ..., hp-mpifort, hp-mpif77, hp-mpif90: each is
# `hp-instrument <compiler>` (same command line, exactly), takes its options from
# HP_WRAPPER_ARGS and becomes the plain compiler with HP_WRAPPER=off. A real C++ build through hp-g++ shows
# what the fallback instruments: the program's functions, not std::vector's.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 15

: "${HP_INSTRUMENT_INCLUDEDIR:=$HP_SRCDIR/include}"
HP_INSTRUMENT_PLUGIN=
export HP_INSTRUMENT_INCLUDEDIR HP_INSTRUMENT_PLUGIN
unset HP_WRAPPER HP_WRAPPER_ARGS

# ---- the same command as hp-instrument <compiler> -------------------------------------------
same=yes
for cc in gcc g++ gfortran clang clang++ mpicc mpicxx mpifort mpif77 mpif90; do
    for args in "-O2 -c a.c -o a.o" "-o app a.o -lm" "-E a.c"; do
        # shellcheck disable=SC2086 # the words are split on purpose
        want=$(hp-instrument --dry-run "$cc" $args 2>/dev/null)
        # shellcheck disable=SC2086
        got=$(HP_WRAPPER_ARGS=--dry-run "hp-$cc" $args 2>/dev/null)
        [ -n "$want" ] && [ "$got" = "$want" ] || same="no (hp-$cc $args: '$got', want '$want')"
    done
done
check_eq "hp-<compiler> runs exactly what hp-instrument <compiler> runs (10 wrappers)" yes "$same"
# MPICH's Fortran 77 and 90 names: programs that link the MPI flavour of the core.
printf '      program f77\n      print *, 77\n      end\n' >f77.f
printf 'program f90\n  print *, 90\nend program\n' >f90.f90
hp-mpif77 -o f77 f77.f && hp-mpif90 -o f90 f90.f90
check_eq "hp-mpif77 and hp-mpif90 build MPI programs (fixed and free form) that run" \
    "77|90|libhpmeasure_mpi|libhpmeasure_mpi" \
    "$(./f77 | tr -d ' ')|$(./f90 | tr -d ' ')|$(readelf -d f77 | grep -o 'libhpmeasure_mpi' | head -1)|$(readelf -d f90 | grep -o 'libhpmeasure_mpi' | head -1)"
check_eq "hp-gcc's arguments reach gcc in order, untouched" \
    "$(hp-instrument --dry-run gcc -c 'a b.c' -DX='"1 2"' -o x.o)" \
    "$(HP_WRAPPER_ARGS=--dry-run hp-gcc -c 'a b.c' -DX='"1 2"' -o x.o)"
check_eq "hp-gcc --version is gcc --version" "$(gcc --version)" "$(hp-gcc --version)"

# ---- HP_WRAPPER_ARGS ----------------------------------------------------------------------
printf 'int main(void) { return 0; }\n' >p.c
HP_WRAPPER_ARGS="  --verbose	--nocompiler " hp-gcc -c p.c -o p.o 2>verbose.err
check_eq "HP_WRAPPER_ARGS=\"--verbose --nocompiler\": the command on stderr, no hooks" \
    "gcc -g -c p.c -o p.o -I$HP_INSTRUMENT_INCLUDEDIR -DHP_USER_ENABLE|no hooks" \
    "$(cat verbose.err)|$(nm -u p.o | grep -q __cyg_profile || echo no hooks)"
expect_fail "HP_WRAPPER_ARGS with an unknown option: exit 2 and the accepted ones" \
    "^hp-instrument: accepted in HP_WRAPPER_ARGS: --verbose --dry-run --nocompiler --no-plugin --instrument-filter=FILE --instrument-inline$" \
    env HP_WRAPPER_ARGS="--verbose --fast" hp-gcc -c p.c
cp "$WORK/last.err" badopt.err # check below overwrites last.err
check "HP_WRAPPER_ARGS with a bad option names it" \
    grep -qx "hp-instrument: unknown option '--fast' in HP_WRAPPER_ARGS" badopt.err
expect_fail "HP_WRAPPER_ARGS=--help is refused (hp-gcc --help is gcc's help)" \
    "unknown option '--help' in HP_WRAPPER_ARGS" env HP_WRAPPER_ARGS=--help hp-gcc -c p.c

# ---- HP_WRAPPER=off ------------------------------------------------------------------------
rm -f p.o
HP_WRAPPER=off HP_WRAPPER_ARGS="--dry-run --verbose" hp-gcc -o p p.c 2>off.err
check_eq "HP_WRAPPER=off: plain gcc (HP_WRAPPER_ARGS ignored, nothing on stderr)" "|built" \
    "$(cat off.err)|$(test -x p && echo built)"
check "HP_WRAPPER=off: the program does not link libhpmeasure" \
    sh -c '! readelf -d p | grep -q libhpmeasure'
HP_WRAPPER=on hp-gcc -o p2 p.c
check "HP_WRAPPER=on: instrumented" sh -c 'readelf -d p2 | grep -q "NEEDED.*libhpmeasure"'
expect_fail "HP_WRAPPER with another value: exit 2, the accepted values" \
    "^hp-instrument: HP_WRAPPER=maybe: unknown value; accepted: on, off \(or true/false, yes/no, 1/0\)$" \
    env HP_WRAPPER=maybe hp-gcc -c p.c

# ---- a C++ program through hp-g++: std:: code in system headers is not instrumented ---------
cat >vec.cc <<'EOF'
#include <vector>
static int total(const std::vector<int> &v)
{
    int s = 0;
    for (std::size_t i = 0; i < v.size(); i++)
        s += v[i];
    return s;
}
int main()
{
    std::vector<int> v(5, 2);
    return total(v) == 10 ? 0 : 1;
}
EOF
check "hp-g++ builds a C++ program" hp-g++ -O0 -o vec vec.cc
check "it runs" ./vec
check_eq "its profile: main and total, no std::vector functions" \
    "vec visits=1|vec/main visits=1|vec/main/total(std::vector<int, std::allocator<int> > const&) visits=1" \
    "$($CUBEDUMP hp-vec-*/profile.cubex | cut -f1,3 | tr '\t' ' ' | paste -sd'|')"

finish
