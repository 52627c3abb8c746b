# Helpers shared by the MPI integration tests (t021-t025), sourced after
# test/integration/lib.sh:   . "$PROGRAMS/mpi/mpi-lib.sh"

MPIPROGS="$PROGRAMS/mpi"

# mpirun4 [VAR=VALUE]... PROGRAM [ARG]... : runs PROGRAM on 4 ranks with the variables set
# (mpiexec passes the environment on to the ranks), under a time limit: a hang must fail
# the test, not stall `make check` (status 124 on time-out). 4 ranks on 2 cores
# busy-poll; the programs take well under a second uninstrumented.
HP_MPI_TIMEOUT=${HP_MPI_TIMEOUT:-60}
mpirun4() {
    mpirun_n 4 "$@"
}

# mpirun_n N [VAR=VALUE]... PROGRAM [ARG]... : the same on N ranks. MPIEXEC_EXTRA=...
# among the variables adds options of mpiexec's own (e.g. -disable-auto-cleanup).
mpirun_n() {
    timeout -k 10 "$HP_MPI_TIMEOUT" sh -c '
        n=$1
        shift
        while [ $# -gt 0 ]; do
            case $1 in
            *=*) export "$1"; shift ;;
            *) break ;;
            esac
        done
        exec mpiexec ${MPIEXEC_EXTRA:-} -n "$n" "$@"' mpirun_n "$@"
}

# skip "description" "reason": a TAP test point that is skipped (counts as passed).
skip() {
    hp_count=$((hp_count + 1))
    echo "ok $hp_count - $1 # SKIP $2"
}

# metric_rows DUMPFILE NAME... : for each line of a cubedump value dump, prints
# "PATH LOCATION VALUE..." with the values of the named metrics in the order given
# ("visits", "bytes_sent", ...; "missing" when the line has no such metric).
metric_rows() {
    _f=$1
    shift
    awk -F'\t' -v names="$*" '
        BEGIN { n = split(names, want, " ") }
        {
            split("", val)
            for (i = 3; i <= NF; i++) {
                k = $i; sub(/=.*/, "", k)
                v = $i; sub(/^[^=]*=/, "", v)
                val[k] = v
            }
            line = $1 " " $2
            for (j = 1; j <= n; j++)
                line = line " " ((want[j] in val) ? val[want[j]] : "missing")
            print line
        }' "$_f"
}

# expand_table K : reads a table "PATH a0 a1 a2 a3 [b0 b1 b2 b3 ...]" with K groups of 4
# per-rank values (comment lines starting with # and blank lines are skipped) and prints
# one line per path and rank: "PATH RANK a_rank b_rank ...", the format of metric_rows.
expand_table() {
    awk -v k="$1" '
        /^[ \t]*(#|$)/ { next }
        {
            if (NF != 1 + 4 * k) { print "expand_table: bad row: " $0 > "/dev/stderr"; exit 1 }
            for (r = 0; r < 4; r++) {
                line = $1 " " r
                for (g = 0; g < k; g++) line = line " " $(2 + 4 * g + r)
                print line
            }
        }'
}

# sorted FILE : the file sorted bytewise (call-path order is not part of the contract).
sorted() {
    LC_ALL=C sort "$1"
}

# expect_fail_words "description" "WORD..." COMMAND [ARG]... : ok when the command fails
# (not by the time-out, status 124/137) and its stderr contains every WORD (fixed strings,
# anywhere, any order). Output goes to $WORK/last.out, last.err; last status in $last_rc.
expect_fail_words() {
    _desc=$1
    _words=$2
    shift 2
    "$@" >"$WORK/last.out" 2>"$WORK/last.err"
    last_rc=$?
    if [ "$last_rc" -eq 0 ]; then
        not_ok "$_desc (command succeeded)"
        return
    fi
    if [ "$last_rc" -eq 124 ] || [ "$last_rc" -eq 137 ]; then
        not_ok "$_desc (timed out)"
        return
    fi
    for _w in $_words; do
        if ! grep -qF -- "$_w" "$WORK/last.err"; then
            not_ok "$_desc (stderr lacks '$_w')"
            sed 's/^/# /' "$WORK/last.err" | head -20
            return
        fi
    done
    ok "$_desc"
}

# cubecheck FILE : the Cube checker, which also fails when FILE does not exist
# (run_deep.py exits 0 when the script it runs dies of an uncaught exception, such as
# the checker's FileNotFoundError).
cubecheck() {
    if [ ! -f "$1" ]; then
        echo "cubecheck: no file $1" >&2
        return 1
    fi
    $CUBECHECK "$1"
}

# ws_value DUMP PATH RANK METRIC : the exclusive value of metric METRIC (an inclusive
# metric such as mpi_latesender) at call path PATH and rank RANK of a cubedump value dump;
# 0 when the dump has no such row (t110-t114). Printed with 9 decimals, as cubedump does.
ws_value() {
    awk -F'\t' -v p="$2" -v r="$3" -v k="$4_excl=" '
        $1 == p && $2 == r { for (i = 3; i <= NF; i++) if (index($i, k) == 1) v = substr($i, length(k) + 1) }
        END { printf "%.9f\n", v + 0 }' "$1"
}

# ws_sum DUMP METRIC SKIP : the sum of METRIC's exclusive values over every row whose
# call path does not match the extended regular expression SKIP.
ws_sum() {
    awk -F'\t' -v k="$2_excl=" -v skip="$3" '
        $1 !~ skip { for (i = 3; i <= NF; i++) if (index($i, k) == 1) s += substr($i, length(k) + 1) }
        END { printf "%.9f\n", s }' "$1"
}

# in_range "description" VALUE LOW HIGH : ok when LOW <= VALUE <= HIGH.
in_range() {
    if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'; then
        ok "$1"
    else
        not_ok "$1"
        echo "# $2 is outside [$3, $4]"
    fi
}
