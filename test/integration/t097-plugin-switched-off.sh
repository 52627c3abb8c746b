#!/bin/bash
# What the GCC plug-in compiles for a function that the run time switched off
# (hpmeasure_gcc.cc): a short loop function that GCC does not inline gets a hook-free
# copy of its body, an integer function's parameters and result pass through memory
# around its hooks, a local function gets its descriptor's address only when compiled
# as a function of its own. Every visit stays exact with HP_OVERHEAD_BUDGET=0, through
# recursion and exceptions; a tight budget switches the hot functions off, recursion
# included, and the tree stays balanced; every build computes what the plain build does.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 12

SRC="$PROGRAMS/plugin/switched.cpp"
if [ ! -f "$HP_INSTRUMENT_LIBDIR/hpmeasure/hpmeasure_gcc.so" ]; then
    for i in $(seq 12); do echo "ok $i # SKIP the GCC plug-in was not built (gcc-12-plugin-dev)"; done
    exit 0
fi

# "path visits" of every call path, sorted; the root is called "sw".
tree_of() {
    $CUBEDUMP "$1" | awk -F'\t' '{ sub("visits=", "", $3); sub(/^[^\/]*/, "sw", $1)
                                   if ($3 > 0) print $1, $3 }' | LC_ALL=C sort
}
# Sum of the visits of paths ending in FUNCTION.
visits_of() {
    awk -v f="$1" '{ v = $NF; p = $0; sub(/ [0-9]+$/, "", p)
                     n = split(p, part, "/"); if (part[n] == f) s += v } END { print s + 0 }' "$2"
}

g++ -O2 -o sw-plain "$SRC"
check "build with the plug-in" hp-instrument g++ -O2 -o sw "$SRC"

# Every visit: 100 steps of 64 cells (two gradients, one mix each), fib(15) = 610 in
# 2 * fib(16) - 1 = 1973 calls, ten calls of counted (a local static: not copied), ten
# calls through(i) of which three throw in checked(i).
HP_OVERHEAD_BUDGET=0 HP_EXPERIMENT_DIRECTORY=exp check "run, every visit" ./sw
check_eq "output unchanged" "$(./sw-plain)" "$(cat "$WORK/last.out")"
R='run_steps(int, double*, long*)'
G='gradient(double const*, double const*, double*, double*)'
M='mix(long, long, long, long, long, long)'
tree_of exp/profile.cubex | grep -v 'fib(int)/' > tree.txt
cat > want.txt <<TREE
sw 1
sw/main 1
sw/main/$R 1
sw/main/$R/$G 12800
sw/main/$R/$M 6400
sw/main/fib(int) 1
sw/main/counted(int) 10
sw/main/through(int) 10
sw/main/through(int)/checked(int) 10
TREE
LC_ALL=C sort -o want.txt want.txt
check "exact tree: the local function once, the short ones every call, exceptions balanced" \
    diff want.txt tree.txt
tree_of exp/profile.cubex > tree-all.txt
check_eq "fib(int): 1973 visits over its recursion" 1973 "$(visits_of 'fib(int)' tree-all.txt)"
check "no exit mismatches" sh -c "! grep -q 'closed by the exit' exp/summary.txt"
check "profile passes cubecheck" $CUBECHECK exp/profile.cubex

# Switched off the short function costs a load and a branch: gradient's first
# instructions compare its descriptor's word and branch, with no register saved before.
objdump -d --no-show-raw-insn -C sw | awk '/^[0-9a-f]+ <gradient\(/ { on = 1; next }
    on && /\tj/ { exit } on { print }' > gradient-head.txt
check "gradient: the check comes before any push or stack frame" \
    sh -c "grep -q 'cmpq *\\\$0x0,.*__hp_region' gradient-head.txt && ! grep -q 'push\|sub *\\\$.*,%rsp' gradient-head.txt"

# A tight budget on a longer run: gradient, mix and fib (while deep in its recursion)
# are switched off; the results are the plain build's and the rest stays exact.
HP_OVERHEAD_BUDGET=50 HP_EXPERIMENT_DIRECTORY=exp-budget ./sw 3000 25 >budget.out 2>budget.err
check_eq "budget: output unchanged" "$(./sw-plain 3000 25)" "$(cat budget.out)"
check "budget: gradient, mix and fib(int) switched off" \
    sh -c "grep -A4 'overhead budget: 50%' exp-budget/summary.txt | grep -c ' gradient(\| mix(\| fib(int)$' | grep -qx 3"
tree_of exp-budget/profile.cubex > tree-budget.txt
check "budget: the rest of the tree is exact and balanced" \
    diff <(grep -v -F -e "$G" -e "$M" want.txt) \
    <(grep -v -F -e "$G" -e "$M" -e 'fib(int)/' tree-budget.txt)
check "budget: no exit mismatches, cubecheck passes" \
    sh -c "! grep -q 'closed by the exit' exp-budget/summary.txt && $CUBECHECK exp-budget/profile.cubex"
finish
