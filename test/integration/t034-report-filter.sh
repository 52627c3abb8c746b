#!/bin/sh
# hp-report score --suggest-filter on a C++ program with many tiny functions
# (test/programs/report/tiny_calls.cpp): the suggestion is a Score-P filter that our
# parser accepts (HP_FILTERING_FILE), it names the tiny functions and none of the ones
# that do the work, and a second run with it has no visits of the filtered functions,
# fewer call paths, and unchanged visits of the functions kept.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 12

check "build tiny_calls.cpp" hp-instrument g++ -O1 -o tiny "$PROGRAMS/report/tiny_calls.cpp"
# Every visit counted: the default overhead budget would switch the tiny functions off
# itself, and the suggestion is what a user does without it.
HP_OVERHEAD_BUDGET=0 HP_EXPERIMENT_DIRECTORY=exp check "run without a filter" ./tiny
check "hp-report score --suggest-filter" sh -c 'hp-report score --suggest-filter exp > app.filt'
sed 's/^/# /' app.filt | head -12

# The functions the suggestion must name (mangled: no blanks, overloads apart) and the
# ones it must leave alone (few, long visits).
check "the tiny functions are suggested" sh -c '
    for m in _ZN3vec3dotEdd _ZN3vec4axpyIdEET_S1_S1_S1_ _Z7clamp01d _Z4wrapii _ZN4Grid2atEi; do
        grep -q "^  EXCLUDE MANGLED $m\$" app.filt || { echo "missing $m"; exit 1; }
    done'
# Each rule follows a comment "  # NAME: N visits, ...".
check "main, step, kernel, norm and medium are not" sh -c '
    ! grep -Eq "^  # (main|step\(Grid&\)|kernel\(Grid&\)|norm\(Grid const&\)|medium\(Grid const&\)):" app.filt'
check "the predicted cut is given as comments" grep -Eq '^# Predicted cut: [0-9]+ regions, [0-9]+ of [0-9]+ Enter/Leave events' app.filt

HP_OVERHEAD_BUDGET=0 HP_FILTERING_FILE=app.filt HP_EXPERIMENT_DIRECTORY=exp2 check "run with the suggested filter (our parser accepts it)" ./tiny
check_eq "the program's output is unchanged" "$(./tiny 2>/dev/null | grep norm=)" "$(grep norm= "$WORK/last.out")"

$CUBEDUMP --paths exp/profile.cubex > paths1.txt
$CUBEDUMP --paths exp2/profile.cubex > paths2.txt
$CUBEDUMP exp2/profile.cubex > dump2.txt
check "no visits of the filtered functions are left" sh -c '
    ! grep -Eq "vec::dot|vec::axpy|clamp01|wrap\(int, int\)|Grid::at\(int\)" dump2.txt'
n1=$(wc -l < paths1.txt)
n2=$(wc -l < paths2.txt)
check "the number of call paths went down ($n1 -> $n2)" test "$n2" -lt "$n1"
visits() {
    $CUBEDUMP "$1" | awk -F'\t' -v p="$2" '$1 == p { sub("visits=", "", $3); print $3 }'
}
check_eq "kernel keeps its 20 visits" "20 20" \
    "$(visits exp/profile.cubex 'tiny/main/step(Grid&)/kernel(Grid&)') $(visits exp2/profile.cubex 'tiny/main/step(Grid&)/kernel(Grid&)')"
check "a second suggestion on the filtered run proposes nothing" sh -c \
    'hp-report score --suggest-filter exp2 > again.filt && grep -q "no region meets the thresholds" again.filt'
finish
