#!/bin/bash
# C++ shapes on which the GCC plug-in once stopped the compiler (issue 22: an internal
# compiler error in GCC's size estimate, called on a destructor's body, which holds a
# "must not throw" region): test/programs/plugin/cxx_faults.cpp has destructors that
# delete members, a recursive one, one long enough for the hook-free copy, virtual and
# multiple inheritance, exceptions through instrumented frames, noreturn functions,
# lambdas and OpenMP in a member function; transactions.cpp has a transaction_safe
# function (-fgnu-tm), which may call only "transaction_pure" hooks. Built with the plug-in alone
# (HP_INSTRUMENT_STRICT=1: no fallback) at -O0, -O2 and -O3, each build computes what
# the plain one does and shows the same exact visits with HP_OVERHEAD_BUDGET=0; switched
# off at run time (the hook-free copies run), the results stay the plain build's.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 15

SRC="$PROGRAMS/plugin/cxx_faults.cpp"
if [ ! -f "$HP_INSTRUMENT_LIBDIR/hpmeasure/hpmeasure_gcc.so" ]; then
    for i in $(seq 15); do echo "ok $i # SKIP the GCC plug-in was not built (gcc-12-plugin-dev)"; done
    exit 0
fi
export HP_INSTRUMENT_STRICT=1 HP_OVERHEAD_BUDGET=0 OMP_NUM_THREADS=2

# "path location visits" of every call path a location visited, sorted; the root is
# called "faults".
tree_of() {
    $CUBEDUMP "$1" | awk -F'\t' '{ sub("visits=", "", $3); sub(/^[^\/]*/, "faults", $1)
                                   if ($3 > 0) print $1, $2, $3 }' | LC_ALL=C sort
}

# runs ./PROGRAM into experiment EXP: its output and exit status (finish() exits with 3).
run_into() {
    HP_EXPERIMENT_DIRECTORY=$2 "./$1" >"$1.out" 2>"$1.err"
    echo "status $?" >>"$1.out"
}

g++ -O2 -fopenmp -o faults-plain "$SRC"
./faults-plain >plain.out
echo "status $?" >>plain.out

P='faults/main'
D='descend(int)'
G="$P/guarded(int)/rethrow(int)/$D/$D/$D/$D"
N="$P/Node::~Node()"
C="$P/Node::Node(int)"
A="$P/lambdas(int)/apply_twice(std::function<int (int)> const&, int)"
O="$P/Grid::sum(int) const/!\$omp parallel @cxx_faults.cpp:154"
cat > want.txt <<TREE
faults 0 1
faults 1 1
$P 0 1
$P/Buffers::Buffers() 0 4
$P/Buffers::~Buffers() 0 4
$P/Grid::sum(int) const 0 1
$O 0 1
$O 1 1
$O/!\$omp implicit barrier @cxx_faults.cpp:154 0 1
$O/!\$omp implicit barrier @cxx_faults.cpp:154 1 1
$C 0 1
$C/Node::Node(int) 0 2
$C/Node::Node(int)/Node::Node(int) 0 4
$C/Node::Node(int)/Node::Node(int)/Node::Node(int) 0 8
$N 0 1
$N/Node::~Node() 0 2
$N/Node::~Node()/Node::~Node() 0 4
$N/Node::~Node()/Node::~Node()/Node::~Node() 0 8
$P/Square::Square(double) 0 2
$P/Square::area() const 0 2
$P/Square::name() const 0 1
$P/Square::~Square() 0 1
$P/Square::~Square()/Square::~Square() 0 1
$P/Square::~Square()/Square::~Square()/Named::~Named() 0 1
$P/Square::~Square()/Square::~Square()/Shape::~Shape() 0 1
$P/finish(int) 0 1
$P/guarded(int) 0 1
$P/guarded(int)/rethrow(int) 0 1
$P/guarded(int)/rethrow(int)/$D 0 1
$P/guarded(int)/rethrow(int)/$D/$D 0 1
$P/guarded(int)/rethrow(int)/$D/$D/$D 0 1
$G 0 1
$G/fail(int) 0 1
$P/lambdas(int) 0 1
$A 0 2
$A/offset(int, int) 0 2
TREE
LC_ALL=C sort -o want.txt want.txt

for level in -O0 -O2 -O3; do
    check "build with the plug-in at $level" hp-instrument g++ $level -fopenmp -o faults$level "$SRC"
done
check "no fallback, no warning" test ! -s "$WORK/last.err"
run_into faults-O2 exp-O2
check_eq "-O2: output and exit status unchanged" "$(cat plain.out)" "$(cat faults-O2.out)"
tree_of exp-O2/profile.cubex > tree-O2.txt
check "-O2: exact tree through destructors, inheritance, exceptions, lambdas, OpenMP" \
    diff want.txt tree-O2.txt
check "-O2: no exit mismatches, cubecheck passes" \
    sh -c "! grep -q 'closed by the exit' exp-O2/summary.txt && $CUBECHECK exp-O2/profile.cubex"
for level in -O0 -O3; do
    run_into faults$level exp$level
    tree_of exp$level/profile.cubex > tree$level.txt
    check "$level: output unchanged, the same exact tree" \
        sh -c "cmp -s plain.out faults$level.out && diff want.txt tree$level.txt"
done

# The long destructor and fail(int) get the hook-free copy of their body (one holds a
# "must not throw" region, the other a try/catch); switched off at run time, the copies
# run: same results, and the tree lacks just them.
hp-instrument g++ -O2 -fopenmp -c -o dump.o -fdump-tree-omplower=dump.txt "$SRC"
copied=$(awk '/^;; Function / { f = $3 } /hp_off.* != 0\) goto/ { print f }' dump.txt | sort | tr '\n' ' ')
check_eq "the hook-free copies: the long destructor and fail" "Buffers::~Buffers fail " "$copied"
cat > off.filter <<'FILTER'
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE Buffers::~Buffers() fail(int)
FILTER
echo 'SCOREP_REGION_NAMES_END' >>off.filter
HP_FILTERING_FILE=off.filter run_into faults-O2 exp-off
check_eq "switched off: output and exit status unchanged" "$(cat plain.out)" "$(cat faults-O2.out)"
check "switched off: the rest of the tree is exact" \
    diff <(grep -v 'Buffers::~Buffers\|fail(int)' want.txt) <(tree_of exp-off/profile.cubex)

# Transactional memory: the hooks are pure for it, at every level.
TM="$PROGRAMS/plugin/transactions.cpp"
g++ -O2 -fgnu-tm -o tm-plain "$TM"
check "transaction_safe functions build at -O0, -O2, -O3" sh -c \
    "for l in -O0 -O2 -O3; do hp-instrument g++ \$l -fgnu-tm -o tm\$l '$TM' || exit 1; done"
tm_trees() {
    for level in -O0 -O2 -O3; do
        HP_EXPERIMENT_DIRECTORY=exp-tm$level ./tm$level | cmp -s - <(./tm-plain) || echo "$level: output differs"
        tree_of exp-tm$level/profile.cubex | sed "s/^faults/tm/"
    done | sort | uniq -c | sed 's/^ *//'
}
tm_trees > tm-trees.txt
cat > tm-want.txt <<TREE
3 tm 0 1
3 tm/main 0 1
3 tm/main/transfer(int) 0 1
3 tm/main/transfer(int)/deposit(long) 0 10
3 tm/main/transfer(int)/withdraw(long) 0 10
TREE
check "transactions: output unchanged, exact visits inside transactions at every level" \
    diff tm-want.txt tm-trees.txt

# The smallest program of the issue, at every level.
printf 'struct E { E *child; ~E(); };\nE::~E() { delete child; }\n' > smallest.cc
check "the issue's smallest destructor compiles at -O0, -O2, -O3" sh -c \
    'for l in -O0 -O2 -O3; do hp-instrument g++ $l -c smallest.cc || exit 1; done'
finish
