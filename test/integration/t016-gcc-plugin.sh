#!/bin/bash
# The GCC plug-in (hp-instrument's default for g++): a C++ code with in-class accessors,
# std::vector loops, an inline helper, a template, exceptions and threads shows its
# out-of-line functions with exact visits and none of the inline ones;
# --instrument-inline brings those back; the compile-time filter removes exactly the
# named regions and files (and an INCLUDE that names an inline function brings it back);
# HP_OVERHEAD_BUDGET switches a hot, short function off while threads run it, keeps the
# tree balanced and writes a filter that removes it at the next build, and is on by
# default (runs that check exact visits of hot functions set HP_OVERHEAD_BUDGET=0);
# without the plug-in hp-instrument falls back to -finstrument-functions and says so.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 33
# The checks count visits per thread: one location each, as the threads overlap or not.
export HP_THREAD_LOCATIONS=each

SRC="$PROGRAMS/plugin/mesh.cpp $PROGRAMS/plugin/mesh_check.cpp"
if [ ! -f "$HP_INSTRUMENT_LIBDIR/hpmeasure/hpmeasure_gcc.so" ]; then
    for i in $(seq 33); do echo "ok $i # SKIP the GCC plug-in was not built (gcc-12-plugin-dev)"; done
    exit 0
fi

# "path location visits" of every call path a location visited, sorted; the root (the
# program's name) is called "mesh" whatever the executable is named.
tree_of() {
    $CUBEDUMP "$1" | awk -F'\t' '{ sub("visits=", "", $3); sub(/^[^\/]*/, "mesh", $1)
                                   if ($3 > 0) print $1, $2, $3 }' | LC_ALL=C sort
}
# "Instrumentation" counts from summary.txt: "instrumented units inline filtered".
counts_of() {
    sed -n 's/^  GCC plug-in: \([0-9]*\) functions instrumented in \([0-9]*\) translation units*; left out: \([0-9]*\) declared inline, [0-9]* compiler-generated, [0-9]* in system headers, \([0-9]*\) by the compile-time filter$/\1 \2 \3 \4/p' "$1"
}

g++ -O2 -pthread -o mesh-plain $SRC
check "build with the plug-in (default)" hp-instrument g++ -O2 -pthread -o mesh $SRC
check "no fallback message" test ! -s "$WORK/last.err"
HP_EXPERIMENT_DIRECTORY=exp check "run" ./mesh
check_eq "output unchanged" "$(./mesh-plain)" "$(cat "$WORK/last.out")"

N='double norm<double>(std::vector<double, std::allocator<double> > const&)'
tree_of exp/profile.cubex > tree.txt
cat > want.txt <<TREE
mesh 0 1
mesh 1 1
mesh 2 1
mesh/main 0 1
mesh/main/$N 0 1
mesh/main/guarded(int) 0 9
mesh/main/guarded(int)/checked(int) 0 9
mesh/main/pthread_create 0 2
mesh/main/pthread_join 0 2
mesh/main/sweep(Mesh&) 0 10
mesh/main/sweep(Mesh&)/Mesh::relax(int) 0 1000
mesh/worker(void*) 1 1
mesh/worker(void*) 2 1
mesh/worker(void*)/sweep(Mesh&) 1 10
mesh/worker(void*)/sweep(Mesh&) 2 10
mesh/worker(void*)/sweep(Mesh&)/Mesh::relax(int) 1 1000
mesh/worker(void*)/sweep(Mesh&)/Mesh::relax(int) 2 1000
TREE
LC_ALL=C sort -o want.txt want.txt
check "exact call tree: out-of-line functions, no inline ones, balanced through exceptions" \
    diff want.txt tree.txt
check "profile passes cubecheck" $CUBECHECK exp/profile.cubex
check "no exit mismatches" sh -c "! grep -q 'closed by the exit' exp/summary.txt"
read -r n_instr n_units n_inline n_filtered <<EOF2
$(counts_of exp/summary.txt)
EOF2
check_eq "instrumentation note: 7 functions in 2 units, none filtered" "7 2 0" \
    "$n_instr $n_units ${n_filtered:-}"
check "instrumentation note: at least the 4 inline functions left out" test "${n_inline:-0}" -ge 4
check "hp-report shows the note" sh -c "hp-report exp/profile.cubex | grep -q '^  estimated dilation: '"
check "the dilation is a share of the run time" \
    grep -q '^  estimated dilation: [0-9.]*% of the measured run time went into probes' exp/summary.txt

hp-instrument g++ -O2 -c -fno-instrument-functions -o off.o "$PROGRAMS/plugin/mesh_check.cpp"
check "a later -fno-instrument-functions wins: no hooks" sh -c "! nm off.o | grep -q __hp_plugin"

# --instrument-inline: the accessors, the inline helper and the constructor come back.
check "build with --instrument-inline" hp-instrument --instrument-inline g++ -O2 -pthread -o mesh-inl $SRC
HP_OVERHEAD_BUDGET=0 HP_EXPERIMENT_DIRECTORY=exp-inl ./mesh-inl >/dev/null
tree_of exp-inl/profile.cubex > tree-inl.txt
check "Mesh::at(int): 2000 visits below relax in every thread" \
    test "$(grep -c '/Mesh::relax(int)/Mesh::at(int) [012] 2000$' tree-inl.txt)" = 3
check "Mesh::size() const: 1010 visits below sweep in every thread" \
    test "$(grep -c '/sweep(Mesh&)/Mesh::size() const [012] 1010$' tree-inl.txt)" = 3
check "square(double): 50 visits below norm" grep -qx "mesh/main/$N/square(double) 0 50" tree-inl.txt
check "no code from system headers" \
    sh -c "! $CUBEDUMP --regions exp-inl/profile.cubex | cut -f4 | grep -q '^/usr/'"

# The compile-time filter: a file rule and region rules; INCLUDE names an inline function.
cat > compile.filter <<'FILTER'
SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */mesh_check.cpp
SCOREP_FILE_NAMES_END
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE Mesh::relax*
  INCLUDE MANGLED _ZN4Mesh2atEi
SCOREP_REGION_NAMES_END
FILTER
check "build with --instrument-filter" hp-instrument --instrument-filter=compile.filter g++ -O2 -pthread -o mesh-filt $SRC
HP_OVERHEAD_BUDGET=0 HP_EXPERIMENT_DIRECTORY=exp-filt ./mesh-filt >/dev/null
tree_of exp-filt/profile.cubex > tree-filt.txt
sed -e '/checked(int)/d' -e 's|/Mesh::relax(int) \([012]\) 1000|/Mesh::at(int) \1 2000|' want.txt > want-filt.txt
check "filter: relax and mesh_check.cpp gone, Mesh::at(int) back below sweep" diff want-filt.txt tree-filt.txt
read -r n_instr n_units n_inline n_filtered <<EOF2
$(counts_of exp-filt/summary.txt)
EOF2
check_eq "filter: 2 functions left out by it, 6 instrumented" "6 2" "$n_instr ${n_filtered:-}"

# The overhead budget, with three threads running the hot function (3000 sweeps of 100
# relax calls each: enough visits that a preempted call cannot keep its mean long).
HP_OVERHEAD_BUDGET=50 HP_EXPERIMENT_DIRECTORY=exp-budget ./mesh 3000 >/dev/null 2>budget.err
tree_of exp-budget/profile.cubex > tree-budget.txt
check "budget: Mesh::relax(int) listed as switched off" \
    sh -c "grep -A3 'overhead budget: 50%' exp-budget/summary.txt | grep -q ' Mesh::relax(int)$'"
check "budget: said once on stderr" test "$(grep -c 'switched off' budget.err)" = 1
relax=$(awk '/Mesh::relax\(int\)/ { v += $NF } END { print v + 0 }' tree-budget.txt)
# The budget is checked at every 1024th visit of a thread's node, against the node's mean
# inclusive time; a thread preempted inside relax during a window sees a long mean and
# keeps it on until a later check (a loaded run: 4096). Bound: 8 checks per thread, far
# below the 300,000 visits (or more) of a budget that never switches it off.
check "budget: relax visits stop after 1024 in some thread, within 8 checks per thread ($relax)" \
    test "$relax" -ge 1024 -a "$relax" -le $((3 * 8 * 1024))
check "budget: the rest of the tree is exact and balanced" \
    diff <(grep -v 'relax' want.txt | sed 's/ 10$/ 3000/') <(grep -v relax tree-budget.txt)
check "budget: demoted.filter names relax" grep -qx '  EXCLUDE MANGLED _ZN4Mesh5relaxEi' exp-budget/demoted.filter
hp-instrument --instrument-filter=exp-budget/demoted.filter g++ -O2 -pthread -o mesh-next $SRC
HP_EXPERIMENT_DIRECTORY=exp-next ./mesh-next >/dev/null
check "the next build leaves relax out" sh -c "! $CUBEDUMP --regions exp-next/profile.cubex | grep -q relax"

# The budget is on by default (5%): the same run without HP_OVERHEAD_BUDGET switches
# relax off too (and sweep, short once relax costs nothing), and says how to keep every
# visit.
HP_EXPERIMENT_DIRECTORY=exp-default ./mesh 3000 >/dev/null 2>default.err
check "default budget: Mesh::relax(int) listed as switched off" \
    sh -c "grep -A3 'overhead budget: 5%' exp-default/summary.txt | grep -q ' Mesh::relax(int)$'"
check "default budget: stderr names HP_OVERHEAD_BUDGET=0 for exact visits" \
    grep -q 'HP_OVERHEAD_BUDGET=5% switched off [12] hot, short regions* .*HP_OVERHEAD_BUDGET=0 counts every visit' default.err
check "default budget: the rest of the tree is exact and balanced" \
    diff <(grep -v 'relax\|sweep' want.txt) \
    <(tree_of exp-default/profile.cubex | grep -v 'relax\|sweep')

# Without the plug-in (--no-plugin; t014 checks the message when it is missing):
# -finstrument-functions, with code from system headers excluded.
check "build with --no-plugin" hp-instrument --no-plugin g++ -O2 -pthread -o mesh-fallback $SRC
HP_EXPERIMENT_DIRECTORY=exp-fallback ./mesh-fallback >/dev/null
tree_of exp-fallback/profile.cubex > tree-fallback.txt
check "fallback: accessors instrumented" grep -q '/Mesh::relax(int)/Mesh::at(int) 0 2000$' tree-fallback.txt
check "fallback: no overhead budget line (it cannot switch these functions off)" \
    sh -c "! grep -Eq '^ *(overhead budget:|- HP_OVERHEAD_BUDGET=)' exp-fallback/summary.txt"
check "fallback: no code from system headers" \
    sh -c "! $CUBEDUMP --regions exp-fallback/profile.cubex | cut -f4 | grep -q '^/usr/'"
finish
