#!/bin/sh
# The user region API (include/hp/user.h, user.inc): regions, a phase, scopes and
# parameters appear with exact visits in profiles (C, C++, Fortran) and traces; a
# filtered user region disappears and its parameters hang below its parent; without
# HP_USER_ENABLE the program references no hpmeasure symbol.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 19

# "path visits" of every call path with visits, sorted.
visits() {
    $CUBEDUMP "$1" | awk -F'\t' '{ sub("visits=", "", $3); if ($3 > 0) print $1, $3 }' |
        LC_ALL=C sort
}

check "build regions.c with hp-instrument gcc" \
    hp-instrument gcc -O1 -o regions "$PROGRAMS/user/regions.c"
HP_EXPERIMENT_DIRECTORY=exp check "run" ./regions
visits exp/profile.cubex > visits.txt
cat > expected.txt <<'END'
regions 1
regions/main 1
regions/main/init 1
regions/main/solve 1
regions/main/solve/iteration 5
regions/main/solve/iteration/step=0 2
regions/main/solve/iteration/step=0/kind=even 1
regions/main/solve/iteration/step=0/kind=even/scoped 1
regions/main/solve/iteration/step=0/kind=odd 1
regions/main/solve/iteration/step=0/kind=odd/scoped 1
regions/main/solve/iteration/step=1 2
regions/main/solve/iteration/step=1/kind=even 1
regions/main/solve/iteration/step=1/kind=even/scoped 1
regions/main/solve/iteration/step=1/kind=odd 1
regions/main/solve/iteration/step=1/kind=odd/scoped 1
regions/main/solve/iteration/step=2 1
regions/main/solve/iteration/step=2/kind=even 1
regions/main/solve/iteration/step=2/kind=even/scoped 1
END
check "exact visits of regions, phase, scope and parameters" diff -u expected.txt visits.txt
check_eq "paradigm and role of the user regions" \
    "init user phase|iteration user loop|kind=even user parameter|solve user user" \
    "$($CUBEDUMP --regions exp/profile.cubex | awk -F'\t' '$2 ~ /^(init|solve|iteration|kind=even)$/ { print $2, $6, $7 }' | LC_ALL=C sort | paste -sd'|')"
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex

HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=trace check "run with tracing" ./regions
check_eq "the trace enters the user regions as often as the profile visits them" \
    "init 0 1|iteration 0 5|kind=even 0 3|scoped 0 5|solve 0 1|step=0 0 2" \
    "$(trace_enters trace/traces.otf2 | grep -E '^(init|iteration|kind=even|scoped|solve|step=0) ' | paste -sd'|')"

printf 'SCOREP_REGION_NAMES_BEGIN\nEXCLUDE iteration\nSCOREP_REGION_NAMES_END\n' > iter.filt
HP_FILTERING_FILE=iter.filt HP_EXPERIMENT_DIRECTORY=filtered check "run with iteration filtered" ./regions
check_eq "iteration is gone, its parameters hang below solve, closed at its end" \
    "regions/main/solve/step=0 2|regions/main/solve/step=0/kind=even 1|regions/main/solve/step=1 2|regions/main/solve/step=1/kind=even 1|regions/main/solve/step=2 1|regions/main/solve/step=2/kind=even 1|no iteration" \
    "$(visits filtered/profile.cubex | grep -E 'solve/step=[0-9]( |/kind=even )' | paste -sd'|')|$(visits filtered/profile.cubex | grep -q iteration || echo no iteration)"

gcc -O1 -Wall -Wextra -I"$HP_SRCDIR/include" -o plain "$PROGRAMS/user/regions.c" 2>plain.err
check_eq "built without HP_USER_ENABLE: no warnings, no hpmeasure symbol, same output" \
    "|odd=2" "$(cat plain.err; nm -u plain | grep -i 'hp_\|hpf_')|$(./plain)"

g++ -O1 -Wall -Wextra -I"$HP_SRCDIR/include" -o plain_cxx "$PROGRAMS/user/regions.cc" 2>plain.err
gfortran -O1 -Wall -I"$HP_SRCDIR/include" -o plain_f "$PROGRAMS/user/regions.F90" 2>>plain.err
check_eq "C++ and Fortran without HP_USER_ENABLE: no warnings, no hpmeasure symbol" "" \
    "$(cat plain.err; nm -u plain_cxx plain_f | grep -i 'hp_\|hpf_')"

printf '#include <hp/user.h>\nHP_USER_REGION_DEFINE(a);\nint main(void) { HP_USER_SCOPE("x", 0); HP_USER_FUNCTION(); return 0; }\n' > old.c
cp old.c old.cc
for std in c99 c11; do for on in -UHP_USER_ENABLE -DHP_USER_ENABLE; do
    gcc -std=$std -Wall -Wextra $on -I"$HP_SRCDIR/include" -c old.c -o old.o 2>&1 || echo "$std $on failed"
done; done > old.err
for std in c++98 c++17; do for on in -UHP_USER_ENABLE -DHP_USER_ENABLE; do
    g++ -std=$std -Wall -Wextra $on -I"$HP_SRCDIR/include" -c old.cc -o old.o 2>&1 || echo "$std $on failed"
done; done >> old.err
check_eq "C99, C11, C++98, C++17, on and off: no warning, two scopes on one line" "" "$(cat old.err)"

check "build regions.cc with hp-instrument g++" \
    hp-instrument g++ -O1 -o regions_cxx "$PROGRAMS/user/regions.cc"
HP_EXPERIMENT_DIRECTORY=cxx ./regions_cxx >/dev/null 2>&1
check_eq "C++ scope: 4 visits, also when an exception leaves it" "regions_cxx/main/may_throw 4" \
    "$(visits cxx/profile.cubex | grep may_throw)"

check "build regions.F90 with hp-instrument gfortran" \
    hp-instrument gfortran -O1 -o regions_f "$PROGRAMS/user/regions.F90"
HP_EXPERIMENT_DIRECTORY=fortran ./regions_f >/dev/null 2>&1
check_eq "Fortran: exact visits of regions and parameters" \
    "regions_f/main/regions/solve 1|regions_f/main/regions/solve/iteration 4|regions_f/main/regions/solve/iteration/step=0 2|regions_f/main/regions/solve/iteration/step=1 2" \
    "$(visits fortran/profile.cubex | grep solve | paste -sd'|')"

check "compile the module hp_user.f90 with plain gfortran" \
    gfortran -O1 -Wall -c "$HP_SRCDIR/include/hp/hp_user.f90"
check "build module.f90 with hp-instrument gfortran" \
    hp-instrument gfortran -O1 -Wall -o regions_mod "$PROGRAMS/user/module.f90" hp_user.o
HP_EXPERIMENT_DIRECTORY=module ./regions_mod >/dev/null 2>&1
check_eq "Fortran module: a phase, a loop region and string parameters, exact visits" \
    "regions_mod/main/module_regions/solve 1|regions_mod/main/module_regions/solve/iteration 3|regions_mod/main/module_regions/solve/iteration/kind=even 1|regions_mod/main/module_regions/solve/iteration/kind=odd 2" \
    "$(visits module/profile.cubex | grep solve | paste -sd'|')"
finish
