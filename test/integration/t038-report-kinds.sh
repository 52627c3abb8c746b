#!/bin/sh
# Reports that explain themselves (text): hp-report score's rows share one definition of
# max_buf (the largest trace one process writes for the row's regions), so no type row
# exceeds ALL, and the table says so; a maximum (recursion_depth) is shown as "max" and
# "subtree max" per call path, without the excl %/incl % shares that only a sum has.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
export HP_OVERHEAD_BUDGET=0
plan 11

# field N of the score row whose region column (from column 91) is NAME
row() {
    awk -v n="$1" -v f="$2" 'length($0) > 90 && substr($0, 91) == n { print $f }' "$3"
}

if command -v mpicc >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; then
    check "build split_ranks.c" hp-instrument mpicc -O1 -o split "$PROGRAMS/report/split_ranks.c"
    check "run it on 2 ranks" timeout -k 10 60 mpiexec -n 2 env HP_EXPERIMENT_DIRECTORY=mexp ./split
    hp-report score mexp > score.txt 2>&1
    check_eq "even_work and odd_work: 1000 visits of 24 bytes, each on one process" \
        "24000 24000" "$(row even_work 2 score.txt) $(row odd_work 2 score.txt)"
    # The two peak on different processes: the USR row is one process's 24,000, not 48,000.
    check_eq "USR max_buf: one process's trace, not the sum of the regions' peaks" "24000" \
        "$(row USR 2 score.txt)"
    check "no type row has a larger max_buf than ALL" awk '
        length($0) > 90 && substr($0, 91) == "ALL" { all = $2 }
        length($0) > 90 && substr($0, 91) ~ /^(USR|COM|MPI|ART|OMP)$/ { if ($2 > max) max = $2 }
        END { exit !(all > 0 && max <= all) }' score.txt
else
    for d in build run regions USR ALL; do skip "MPI $d" "no mpicc/mpiexec"; done
fi
check "the table defines max_buf" sh -c \
    "hp-report score '$HP_SRCDIR/test/data/cube/time_p4_profile.cubex' |
     grep -q '^max_buf: the largest trace one process writes for the row.s regions (ALL: all regions, so no row exceeds it'"

check "build recursion.c" hp-instrument gcc -O1 -o recursion "$PROGRAMS/recursion.c"
HP_PROFILING_RECURSION=collapse HP_EXPERIMENT_DIRECTORY=exp check "run it, recursion collapsed" \
    ./recursion 1000
hp-report exp --metric recursion_depth > depth.txt
check_eq "recursion_depth: max and subtree max, no percentages, and why" \
    "visits max subtree max region|(recursion_depth is a maximum per call path and thread, not a sum: a region's value is the largest over its call paths, with no percentages)|visits subtree max max call path" \
    "$(grep -E '^ +visits|^\(recursion_depth' depth.txt | sed 's/^ *//; s/  */ /g' | tr '\n' '|' | sed 's/|$//')"
check_eq "dive's flat row: 1001 visits, recursion depth 1000" "1001 1000.000000 1000.000000 dive" \
    "$(awk '$NF == "dive" && NF == 4 { print $1, $2, $3, $4; exit }' depth.txt)"
check_eq "CSV: the flat profile of a maximum has no percentage columns" "visits,excl,incl,region" \
    "$(hp-report exp --metric recursion_depth --format csv | sed -n '/^# flat/{n;p;q}')"
finish
