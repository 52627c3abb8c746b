#!/bin/sh
# Exact visits per call path of a known call tree (loops, a call through a function
# pointer, recursion), read back from profile.cubex by the independent reader; time
# consistency (exclusive <= inclusive, children's inclusive <= parent's); the Cube
# checker passes; summary.txt and hp.config are written.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 9

check "build calltree.c with hp-instrument" hp-instrument gcc -O1 -o calltree "$PROGRAMS/calltree.c"
gcc -O1 -o calltree-plain "$PROGRAMS/calltree.c"
HP_EXPERIMENT_DIRECTORY=exp check "run" ./calltree
check_eq "program output unchanged" "$(./calltree-plain)" "$(cat "$WORK/last.out")"
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex

$CUBEDUMP exp/profile.cubex > dump.txt
awk -F'\t' '{ sub("visits=", "", $3); print $1, $3 }' dump.txt > visits.txt
cat > expected.txt <<'END'
calltree 1
calltree/main 1
calltree/main/left 4
calltree/main/left/leaf 12
calltree/main/right 2
calltree/main/right/leaf 2
calltree/main/fact 1
calltree/main/fact/fact 1
calltree/main/fact/fact/fact 1
calltree/main/fact/fact/fact/fact 1
END
check "exact visits per call path" diff -u expected.txt visits.txt

# Every exclusive time is >= 0 and <= inclusive; children's inclusive sum <= parent's.
check "exclusive <= inclusive, children within parent" awk -F'\t' '
    { path = $1; sub("time_incl=", "", $4); sub("time_excl=", "", $5)
      incl[path] = $4
      if ($5 < -1e-9 || $5 > $4 + 1e-9) { print "bad excl", $0; bad = 1 }
      parent = path; sub("/[^/]*$", "", parent)
      if (parent != path) kids[parent] += $4 }
    END { for (p in kids) if (kids[p] > incl[p] + 1e-9) { print "children exceed", p; bad = 1 }
          exit bad }' dump.txt

$CUBEDUMP --regions exp/profile.cubex > regions.txt
check "leaf is a static function with file:line and paradigm compiler" \
    grep -qE "^[0-9]+	leaf	leaf	.*/calltree\.c	7	compiler	function$" regions.txt
check "summary.txt lists left with 4 visits" grep -qE "^ +4 .* left$" exp/summary.txt
check "hp.config records the effective settings" grep -qx "HP_ENABLE_PROFILING=true" exp/hp.config
finish
