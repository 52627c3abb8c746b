#!/bin/sh
# The short-run benchmark (`make bench`; doc/bench.md, "A short run under hp-run").
#
# What a job of about half a second pays under hp-run, where the fixed costs of
# measurement (start-up, the first samples, resolving the sampled addresses into regions
# at MPI_Finalize) weigh most. bench/mpi-short.c, built plain, runs on 2 ranks:
#   plain      mpiexec -n 2 ./mpi-short
#   sampled    hp-run mpiexec -n 2 ./mpi-short (sampling at hp-run's 1 kHz)
#   unsampled  the same with HP_SAMPLING_FREQUENCY=0
# Times: the wall time of the whole job (mpiexec included, as a user sees it), each
# variant REPS times interleaved, the minimum counts. Instructions (the figure to decide
# by on a shared machine): one process of each variant (MPI's singleton start, no
# mpiexec) under valgrind --tool=cachegrind, with a tenth of the terms; the difference
# to plain is what measurement costs that process in all.
#
# Usage: run-short-run-bench.sh BUILDDIR [REPS]
#   BUILDDIR   top build directory (hp-run, .libs/libhpmeasure_mpi_preload.so)
#   REPS       repetitions per variant (default 5)
# Environment: MPICC (default mpicc), MPIEXEC (default mpiexec). Exits 0 whatever the
# figures are, and when there is no MPI (skipped); 1 when a build or run fails, 2 on bad
# arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_args "$@"
bench_mpi_start hp-run libhpmeasure_mpi_preload.so "Short run under hp-run" short_run

TERMS=24000000    # about 0.5 s on 2 ranks here
CG_TERMS=800000   # the cachegrind runs
TIME_LIMIT=300

bench_workdir short-run
export HP_RUN_LIBDIR="$CORELIBDIR"

build "$MPICC" -O2 -Wall -Wextra -o mpi-short "$BENCHDIR/mpi-short.c" -lm

# settings NAME: the variables of variant NAME; measured NAME: true for hp-run's.
settings() {
    case $1 in
        unsampled) echo "HP_SAMPLING_FREQUENCY=0" ;;
    esac
}
measured() {
    [ "$1" != plain ]
}

# now_ns: CLOCK_MONOTONIC-like nanoseconds (date +%s%N).
# shellcheck disable=SC2317 # called by run_time, through min_of_rounds
now_ns() {
    date +%s%N
}

# run_time NAME: the job's wall time in ns; checks that it printed the plain sum.
# shellcheck disable=SC2317 # called through min_of_rounds
run_time() {
    rm -rf "$WORK/exp"
    t0=$(now_ns)
    if measured "$1"; then
        # shellcheck disable=SC2046 # the settings are separate words
        out=$(launch 0 HP_EXPERIMENT_DIRECTORY="$WORK/exp" $(settings "$1") "$HP_RUN" \
            $MPIEXEC -n 2 ./mpi-short "$TERMS")
    else
        out=$(launch 2 ./mpi-short "$TERMS")
    fi || die "$1 run failed (exit status $?; see $WORK/run.log)"
    t1=$(now_ns)
    [ "$out" = "$(cat sum.txt)" ] || die "$1 printed '$out', plain '$(cat sum.txt)'"
    echo $((t1 - t0))
}

# run_instructions NAME: the instructions of one process of variant NAME.
run_instructions() {
    _variant=$1
    rm -rf "$WORK/exp"
    # As hp-run starts a rank: its frequency and the preload (launch exports in order,
    # so the variant's own setting comes last and wins).
    if measured "$1"; then
        # shellcheck disable=SC2046
        set -- HP_SAMPLING_FREQUENCY=1000 $(settings "$1") \
            LD_PRELOAD="$CORELIBDIR/libhpmeasure_mpi_preload.so"
    else
        set --
    fi
    # shellcheck disable=SC2086 # CACHEGRIND is a command line
    launch 0 HP_EXPERIMENT_DIRECTORY="$WORK/exp" "$@" $CACHEGRIND ./mpi-short "$CG_TERMS" \
        >/dev/null || die "$_variant under cachegrind failed (see $WORK/run.log)"
    cachegrind_count "$_variant"
}

launch 2 ./mpi-short "$TERMS" >sum.txt || die "the plain job failed (see $WORK/run.log)"
VARIANTS="plain sampled unsampled"
# shellcheck disable=SC2086 # VARIANTS is a list of words
min_of_rounds run_time $VARIANTS
have_cg=0
if command -v valgrind >/dev/null 2>&1; then
    have_cg=1
    for v in $VARIANTS; do
        ir=$(run_instructions "$v") || exit 1
        eval "ir_$v=$ir"
    done
fi
rm -rf "$WORK/exp"

# shellcheck disable=SC2154 # min_* and ir_* are set by keep_min and eval
{
    for v in $VARIANTS; do
        eval "echo $v \$min_$v \${ir_$v:-0}"
    done
} | awk -v reps="$REPS" -v have_cg="$have_cg" -v terms="$TERMS" -v cg_terms="$CG_TERMS" '
{ name[NR] = $1; s[$1] = $2 / 1e9; ir[$1] = $3 }
END {
    printf "hpmeasure short run: mpi-short (%d terms) on 2 ranks, whole job, min of %d runs\n", terms, reps
    printf "(instructions: one process, %d terms, under cachegrind)\n\n", cg_terms
    printf "  %-38s %8s %8s %14s %14s\n", "variant", "s", "ratio", "instructions", "added"
    label["plain"] = "plain (mpiexec -n 2)"
    label["sampled"] = "hp-run, sampling at 1 kHz"
    label["unsampled"] = "hp-run, HP_SAMPLING_FREQUENCY=0"
    for (i = 1; i <= NR; i++) {
        v = name[i]
        ic = have_cg ? sprintf("%.0f", ir[v]) : "-"
        ia = have_cg && v != "plain" ? sprintf("%.0f", ir[v] - ir["plain"]) : "-"
        printf "  %-38s %8.3f %8.3f %14s %14s%s\n", label[v], s[v], s[v] / s["plain"], ic, ia, \
            v == "sampled" ? "   (target <= 1.05)" : ""
    }
    printf "\n"
    for (i = 1; i <= NR; i++) {
        v = name[i]
        printf "bench: short_run_%s_s=%.3f\n", v, s[v]
        if (v != "plain")
            printf "bench: short_run_%s_ratio=%.3f\n", v, s[v] / s["plain"]
        if (have_cg) {
            printf "bench: short_run_%s_instructions=%.0f\n", v, ir[v]
            if (v != "plain")
                printf "bench: short_run_%s_added_instructions=%.0f\n", v, ir[v] - ir["plain"]
        }
    }
}'
exit 0
