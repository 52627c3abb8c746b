#!/bin/sh
# A Fortran program built with hp-instrument gfortran is profiled: main program,
# module procedure and external function with exact visits.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 4

check "build fortran.f90 with hp-instrument gfortran" hp-instrument gfortran -O1 -o sim "$PROGRAMS/fortran.f90"
HP_EXPERIMENT_DIRECTORY=exp check "run" ./sim
$CUBEDUMP exp/profile.cubex | awk -F'\t' '{ sub("visits=", "", $3); print $1, $3 }' > visits.txt
cat > expected.txt <<'END'
sim 1
sim/main 1
sim/main/MAIN__ 1
sim/main/MAIN__/__physics_MOD_step 7
sim/main/MAIN__/energy_ 7
END
check "exact visits of the Fortran call tree" diff -u expected.txt visits.txt
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex
finish
