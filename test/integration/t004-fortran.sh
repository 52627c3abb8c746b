#!/bin/sh
# A Fortran program built with hp-instrument gfortran is profiled: main program (under
# its PROGRAM name, below gfortran's C main), module procedure (module::procedure) and
# external function with exact visits.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 4

check "build fortran.f90 with hp-instrument gfortran" hp-instrument gfortran -O1 -o sim "$PROGRAMS/fortran.f90"
HP_EXPERIMENT_DIRECTORY=exp check "run" ./sim
$CUBEDUMP exp/profile.cubex | awk -F'\t' '{ sub("visits=", "", $3); print $1, $3 }' > visits.txt
cat > expected.txt <<'END'
sim 1
sim/main 1
sim/main/sim 1
sim/main/sim/physics::step 7
sim/main/sim/energy_ 7
END
check "exact visits of the Fortran call tree" diff -u expected.txt visits.txt
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex
finish
