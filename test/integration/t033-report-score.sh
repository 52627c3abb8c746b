#!/bin/sh
# hp-report score on programs with known visit counts: visits per region from the
# source of test/programs/report/tiny_calls.cpp, the trace model (24 bytes per visit of
# a user function, 40 per MPI_Sendrecv, 48 per MPI_Allreduce), region types (USR; COM
# for user functions on a call path to MPI), the memory advice, a Score-P sample file,
# and bad input (exit status 2 and a one-line message naming the file or option).
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 19
REPORT="$PROGRAMS/report"

# row NAME FILE: "type max_buf trace visits" of the region row NAME (names start at
# column 91 of the fixed-width table and may contain blanks).
row() {
    awk -v n="$1" 'length($0) > 90 && substr($0, 91) == n { print $1, $2, $3, $4 }' "$2"
}
# expect_status2 "description" PATTERN COMMAND... : exit status exactly 2, and one line on
# stderr matching PATTERN.
expect_status2() {
    _d=$1
    _p=$2
    shift 2
    "$@" >"$WORK/last.out" 2>"$WORK/last.err"
    _rc=$?
    if [ "$_rc" -eq 2 ] && [ "$(wc -l < "$WORK/last.err")" -eq 1 ] &&
        grep -Eq -- "$_p" "$WORK/last.err"; then
        ok "$_d"
    else
        not_ok "$_d (status $_rc)"
        sed 's/^/# /' "$WORK/last.err" | head -5
    fi
}

check "build tiny_calls.cpp" hp-instrument g++ -O1 -o tiny "$REPORT/tiny_calls.cpp"
# Exact visits: the default overhead budget would switch the tiny functions off.
HP_OVERHEAD_BUDGET=0 HP_EXPERIMENT_DIRECTORY=exp check "run it" ./tiny
check "hp-report score exp" sh -c 'hp-report score exp > score.txt'
check_eq "vec::dot: USR, 100000 visits, 24 bytes each" "USR 2400000 2400000 100000" \
    "$(row 'vec::dot(double, double)' score.txt)"
check_eq "Grid::at: 200000 visits" "USR 4800000 4800000 200000" "$(row 'Grid::at(int)' score.txt)"
check_eq "kernel: 20 visits" "USR 480 480 20" "$(row 'kernel(Grid&)' score.txt)"
check_eq "main: 1 visit" "USR 24 24 1" "$(row 'main' score.txt)"
check "ALL: trace bytes = 24 x visits (no MPI)" awk '$1 == "ALL" && substr($0, 91) == "ALL" { found = 1; ok = ($3 == 24 * $4) } END { exit !(found && ok) }' score.txt
check "memory advice names HP_TOTAL_MEMORY" grep -q 'set HP_TOTAL_MEMORY=[0-9][0-9]*M' score.txt

if command -v mpicc >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1; then
    check "build halo.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o halo "$REPORT/halo.c" -lm
    check "run it on 4 ranks" mpirun4 HP_EXPERIMENT_DIRECTORY=mexp ./halo
    hp-report score mexp > mscore.txt 2>&1
    check_eq "MPI_Sendrecv: 4 ranks x 80 calls, 40 bytes each" "MPI 3200 12800 320" \
        "$(row MPI_Sendrecv mscore.txt)"
    check_eq "MPI_Allreduce: 4 x 40 calls, 48 bytes each" "MPI 1920 7680 160" \
        "$(row MPI_Allreduce mscore.txt)"
    check_eq "user functions calling MPI are COM, the others USR" "COM COM COM USR" \
        "$(for f in main exchange_halos residual relax; do row "$f" mscore.txt | cut -d' ' -f1; done | tr '\n' ' ' | sed 's/ $//')"
else
    for d in build run sendrecv allreduce types; do skip "MPI $d" "no mpicc/mpiexec"; done
fi

SAMPLE="$HP_SRCDIR/test/data/cube/time_p4_profile.cubex"
check "a Score-P profile scores (USR, COM and MPI rows)" sh -c \
    "hp-report score '$SAMPLE' > sample.txt && grep -q '^  COM ' sample.txt && grep -q '^  MPI ' sample.txt && grep -q '^  USR ' sample.txt"

echo "not a cube" > bad.cubex
expect_status2 "a file that is not a Cube4 profile" 'bad\.cubex' hp-report score bad.cubex
expect_status2 "a missing directory" 'no-such-dir' hp-report score no-such-dir
expect_status2 "an unknown option" "unknown option '--bogus'" hp-report score --bogus exp
expect_status2 "a bad threshold" "--min-share: 'lots'" hp-report score --suggest-filter --min-share lots exp
finish
