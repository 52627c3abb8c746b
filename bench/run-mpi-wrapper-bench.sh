#!/bin/sh
# The MPI wrapper benchmark (`make bench`; doc/bench.md, "MPI wrapper cost", explains it).
#
# What one measured MPI call adds to a plain one: mpi-rank.c (MPI_Comm_rank in a tight
# loop) on 1 rank, built plain (mpicc) and measured (hp-instrument --nocompiler), each
# also with a PMPI tool stacked after us (test/programs/mpi/pmpi_count.c, linked after
# the sources as doc/mpi.md, "Other PMPI tools", says). Variants:
#   plain            mpicc
#   off              measured, sampling off (HP_SAMPLING_FREQUENCY=0)
#   on               measured, sampling at its default 1 kHz; MPI_Comm_rank does not
#                    unwind (HP_MPI_UNWIND_EXCLUDE's default)
#   on_unwind        measured, sampling on, every call unwinds (HP_MPI_UNWIND_EXCLUDE="")
#   tool_plain       mpicc with the tool
#   tool_off         measured with the tool, sampling off
#   tool_on          measured with the tool, sampling on
#   floor            mpicc with bench/mpi-floor-tool.c, a PMPI tool that only reads the
#                    timestamp (rdtsc) before and after the call: what any measuring
#                    wrapper pays at least (the two reads)
# Times: each variant runs REPS times interleaved (mpiexec -n 1), the minimum counts.
# Instructions (the figure to decide by on a shared machine): each variant runs under
# valgrind --tool=cachegrind with CALLS_1 and CALLS_2 calls; the difference of the two
# totals divided by CALLS_2 - CALLS_1 is the instructions per call, free of start-up and
# finalize. Without valgrind the instruction columns say "-".
#
# Usage: run-mpi-wrapper-bench.sh BUILDDIR [REPS]
#   BUILDDIR   top build directory (holds hp-instrument and .libs/libhpmeasure_mpi.so)
#   REPS       repetitions per variant (default 5)
# Environment: MPICC (default mpicc), MPIEXEC (default mpiexec). Exits 0 whatever the
# figures are, and when there is no MPI (skipped); 1 when a build or run fails, 2 on bad
# arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_args "$@"
bench_mpi_start hp-instrument libhpmeasure_mpi.so "MPI wrapper cost" mpi_wrapper

CALLS=1000000   # timed calls per run
CALLS_1=100000  # the two cachegrind runs
CALLS_2=200000
TIME_LIMIT=300  # seconds for one run (cachegrind runs are ~50x slower)

bench_workdir mpi-wrapper

# ---------------------------------------------------------------- build
CFLAGS_BENCH="-O2 -Wall -Wextra"
INSTRUMENT_ENV="HP_INSTRUMENT_LIBDIR=$CORELIBDIR HP_INSTRUMENT_INCLUDEDIR=$SRCDIR/include"
TOOL="-L$WORK -Wl,-rpath,$WORK -lpmpi_count"
build "$MPICC" -O2 -shared -fPIC -o libpmpi_count.so "$SRCDIR/test/programs/mpi/pmpi_count.c"
build "$MPICC" -O2 -shared -fPIC -o libmpi_floor.so "$BENCHDIR/mpi-floor-tool.c"
# shellcheck disable=SC2086 # CFLAGS_BENCH, INSTRUMENT_ENV and TOOL hold several words
{
    build $MPICC $CFLAGS_BENCH -o plain "$BENCHDIR/mpi-rank.c"
    build $MPICC $CFLAGS_BENCH -o plain-tool "$BENCHDIR/mpi-rank.c" $TOOL
    build $MPICC $CFLAGS_BENCH -o plain-floor "$BENCHDIR/mpi-rank.c" \
        -L"$WORK" -Wl,-rpath,"$WORK" -lmpi_floor
    build env $INSTRUMENT_ENV "$INSTRUMENT" --nocompiler $MPICC $CFLAGS_BENCH -o hp \
        "$BENCHDIR/mpi-rank.c"
    build env $INSTRUMENT_ENV "$INSTRUMENT" --nocompiler $MPICC $CFLAGS_BENCH -o hp-tool \
        "$BENCHDIR/mpi-rank.c" $TOOL
}

# ---------------------------------------------------------------- run
# settings NAME, program NAME: the variables and the program of variant NAME.
settings() {
    case $1 in
        off | tool_off) echo "HP_SAMPLING_FREQUENCY=0" ;;
        on_unwind) echo "HP_MPI_UNWIND_EXCLUDE=" ;;
    esac
}
program() {
    case $1 in
        plain) echo "./plain" ;;
        tool_plain) echo "./plain-tool" ;;
        floor) echo "./plain-floor" ;;
        tool_*) echo "./hp-tool" ;;
        *) echo "./hp" ;;
    esac
}

# run_time NAME: the loop's time in ns for CALLS calls (rank 0's figure).
# shellcheck disable=SC2317 # called through min_of_rounds
run_time() {
    rm -rf "$WORK/exp"
    # shellcheck disable=SC2046 # the variant's words are separate arguments
    out=$(launch 1 HP_EXPERIMENT_DIRECTORY="$WORK/exp" $(settings "$1") $(program "$1") "$CALLS") ||
        die "$1 run failed (exit status $?; see $WORK/run.log)"
    ns=${out#ns=}
    ns=${ns%% *}
    is_count "$ns" || die "$1 run printed '$out'"
    echo "$ns"
}

# run_instructions NAME N: the instructions of a whole run with N calls (cachegrind).
run_instructions() {
    rm -rf "$WORK/exp"
    # shellcheck disable=SC2046
    # shellcheck disable=SC2086 # CACHEGRIND is a command line
    launch 0 HP_EXPERIMENT_DIRECTORY="$WORK/exp" $(settings "$1") $CACHEGRIND \
        $(program "$1") "$2" >/dev/null || die "$1 under cachegrind failed (see $WORK/run.log)"
    cachegrind_count "$1"
}

VARIANTS="plain floor off on on_unwind tool_plain tool_off tool_on"
# shellcheck disable=SC2086 # VARIANTS is a list of words
min_of_rounds run_time $VARIANTS
have_cg=0
if command -v valgrind >/dev/null 2>&1; then
    have_cg=1
    for v in $VARIANTS; do
        a=$(run_instructions "$v" "$CALLS_1") || exit 1
        b=$(run_instructions "$v" "$CALLS_2") || exit 1
        eval "ir_$v=$((b - a))"
    done
fi
rm -rf "$WORK/exp"

# ---------------------------------------------------------------- report
# shellcheck disable=SC2154 # min_* and ir_* are set by keep_min and eval
{
    for v in $VARIANTS; do
        eval "echo $v \$min_$v \${ir_$v:-0}"
    done
} | awk -v calls="$CALLS" -v dcalls="$((CALLS_2 - CALLS_1))" -v reps="$REPS" \
    -v have_cg="$have_cg" '
{ name[NR] = $1; ns[$1] = $2 / calls; ir[$1] = $3 / dcalls }
function base(v) { return v ~ /^tool_/ ? "tool_plain" : "plain" }
END {
    printf "hpmeasure MPI wrapper cost: MPI_Comm_rank on 1 rank, --nocompiler, min of %d runs\n\n", reps
    printf "  %-46s %9s %9s %11s %11s\n", "variant", "ns/call", "added ns", "instr/call", "added instr"
    label["plain"] = "plain (mpicc)"
    label["floor"] = "floor: rdtsc before and after (PMPI tool)"
    label["off"] = "measured, sampling off"
    label["on"] = "measured, sampling on (call not unwound)"
    label["on_unwind"] = "measured, sampling on, every call unwound"
    label["tool_plain"] = "plain with a PMPI tool after it"
    label["tool_off"] = "measured + PMPI tool, sampling off"
    label["tool_on"] = "measured + PMPI tool, sampling on"
    for (i = 1; i <= NR; i++) {
        v = name[i]; b = base(v)
        add = v == b ? "-" : sprintf("%.2f", ns[v] - ns[b])
        if (have_cg) {
            ic = sprintf("%.1f", ir[v])
            ia = v == b ? "-" : sprintf("%.1f", ir[v] - ir[b])
        } else {
            ic = "-"; ia = "-"
        }
        printf "  %-46s %9.2f %9s %11s %11s%s\n", label[v], ns[v], add, ic, ia, \
            (v == "off" || v == "on" || v == "tool_off") ? "   (target <= 15 ns)" : ""
    }
    # The measured call against the floor, per added ns (and per added instruction).
    floor_ns = ns["floor"] - ns["plain"]
    floor_ir = ir["floor"] - ir["plain"]
    off_over_floor = floor_ns > 0 ? (ns["off"] - ns["plain"]) / floor_ns : 0
    printf "\n  measured (sampling off) / floor, added ns %25.2f", off_over_floor
    if (have_cg && floor_ir > 0)
        printf "   (added instructions: %.1f)", (ir["off"] - ir["plain"]) / floor_ir
    printf "\n\n"
    printf "bench: mpi_wrapper_off_over_floor=%.2f\n", off_over_floor
    for (i = 1; i <= NR; i++) {
        v = name[i]; b = base(v)
        printf "bench: mpi_wrapper_%s_ns=%.2f\n", v, ns[v]
        if (v != b)
            printf "bench: mpi_wrapper_%s_added_ns=%.2f\n", v, ns[v] - ns[b]
        if (have_cg) {
            printf "bench: mpi_wrapper_%s_instructions=%.1f\n", v, ir[v]
            if (v != b)
                printf "bench: mpi_wrapper_%s_added_instructions=%.1f\n", v, ir[v] - ir[b]
        }
    }
}'
exit 0
