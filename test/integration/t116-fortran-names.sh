#!/bin/sh
# Fortran names as a Fortran user reads them (doc/hp-instrument.md, "Fortran names"): the
# main program under its PROGRAM name (heat_demo, not gfortran's MAIN__; the executable
# is fnames), module procedures as module::procedure (core::evolve, not gfortran's
# __core_MOD_evolve), alike with the GCC plug-in (from the compiler's declaration), with
# -finstrument-functions and with sampling (from the symbol table and DWARF). gfortran's
# C main stays above the program, as in C programs. The compile-time filter matches the
# new names; MANGLED rules still match the symbols.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 8

SRC="$PROGRAMS/heat.f90"
# "path visits" of each call path of an experiment, in the dump's order.
tree_of() {
    $CUBEDUMP "$1/profile.cubex" | awk -F'\t' '{ sub("visits=", "", $3); print $1, $3 }'
}
cat >expected.txt <<'END'
fnames 1
fnames/main 1
fnames/main/heat_demo 1
fnames/main/heat_demo/heat::parallel_setup 1
fnames/main/heat_demo/core::evolve 5
fnames/main/heat_demo/total_ 1
END

check "build heat.f90 with hp-instrument gfortran (the plug-in where built)" \
    hp-instrument gfortran -O1 -o fnames "$SRC"
HP_EXPERIMENT_DIRECTORY=plugin check "run it" ./fnames
tree_of plugin >plugin.txt
check "exact call tree: heat_demo, heat::parallel_setup, core::evolve" \
    diff -u expected.txt plugin.txt

check "build it with --no-plugin (-finstrument-functions)" \
    hp-instrument --no-plugin gfortran -O1 -o fnames "$SRC"
HP_EXPERIMENT_DIRECTORY=hooks ./fnames >/dev/null 2>&1
tree_of hooks >hooks.txt
check "-finstrument-functions: the same names from the symbols and DWARF" \
    diff -u expected.txt hooks.txt

# Sampling alone: the sampled call stacks name the same regions.
check "build it with --nocompiler" hp-instrument --nocompiler gfortran -O1 -o fsampled "$SRC"
HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=sampled ./fsampled 1000 >/dev/null 2>&1
check_eq "sampled: main/heat_demo/core::evolve, no MAIN__ or _MOD_ anywhere" \
    "fsampled/main/heat_demo/core::evolve|" \
    "$(tree_of sampled | awk '{ print $1 }' | grep -x 'fsampled/main/heat_demo/core::evolve')|$(tree_of sampled | grep -E 'MAIN__|_MOD_')"

if [ -f "$HP_INSTRUMENT_LIBDIR/hpmeasure/hpmeasure_gcc.so" ]; then
    printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE core::evolve\n  EXCLUDE MANGLED __heat_MOD_parallel_setup\nSCOREP_REGION_NAMES_END\n' >names.filt
    hp-instrument --instrument-filter=names.filt gfortran -O1 -o fnames "$SRC"
    HP_EXPERIMENT_DIRECTORY=filtered ./fnames >/dev/null 2>&1
    check_eq "compile-time filter: core::evolve by name, heat::parallel_setup by symbol" \
        "fnames 1|fnames/main 1|fnames/main/heat_demo 1|fnames/main/heat_demo/total_ 1" \
        "$(tree_of filtered | paste -sd'|')"
else
    ok "# SKIP the GCC plug-in was not built (gcc-12-plugin-dev)"
fi
finish
