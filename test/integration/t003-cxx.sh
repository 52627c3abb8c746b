#!/bin/sh
# C++: namespaces, member functions, overloads and templates get demangled names and
# keep their mangled names; a MANGLED filter rule matches the mangled name.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 9

check "build shapes.cpp with hp-instrument g++" hp-instrument g++ -O1 -o shapes "$PROGRAMS/shapes.cpp"
g++ -O1 -o shapes-plain "$PROGRAMS/shapes.cpp"
HP_EXPERIMENT_DIRECTORY=exp check "run" ./shapes
check_eq "program output unchanged" "$(./shapes-plain)" "$(cat "$WORK/last.out")"
$CUBEDUMP --regions exp/profile.cubex | cut -f2,3 > names.txt
check "member function" grep -qx "geo::Circle::area() const	_ZNK3geo6Circle4areaEv" names.txt
check "member function that modifies" grep -qx "geo::Circle::scale(double)	_ZN3geo6Circle5scaleEd" names.txt
check "overload (double)" grep -qx "geo::twice(double)	_ZN3geo5twiceEd" names.txt
check "overload (int)" grep -qx "geo::twice(int)	_ZN3geo5twiceEi" names.txt
check "template instance" grep -qx "double geo::sum3<double>(double, double, double)	_ZN3geo4sum3IdEET_S1_S1_S1_" names.txt

printf 'SCOREP_REGION_NAMES_BEGIN\nEXCLUDE MANGLED _ZN3geo5twice*\nSCOREP_REGION_NAMES_END\n' > m.filt
HP_FILTERING_FILE=m.filt HP_EXPERIMENT_DIRECTORY=exp2 ./shapes >/dev/null 2>&1
check "MANGLED rule removes both overloads" sh -c "! $CUBEDUMP --regions exp2/profile.cubex | grep -q twice"
finish
