#!/bin/sh
# The MPI overhead benchmark (`make bench`; doc/bench.md, "MPI overhead", explains it).
#
# Builds three small MPI programs plain (mpicc) and measured (hp-instrument mpicc) and
# times them side by side in one run:
#   rank       mpi-rank.c: 10^6 MPI_Comm_rank calls in a tight loop on 2 ranks, plain,
#              measured (--nocompiler) and measured with HP_MPI_EXCLUDE=MPI_Comm_rank
#              (the call is only counted), measured with HP_METRIC_PERF=page-faults
#              (one counter read at the call's begin and end; doc/counters.md); accounting
#              only (HP_ENABLE_PROFILING=false HP_SITE_LOG); with a no-op plug-in
#              (HP_PLUGINS) that selects another function, and one that selects MPI_Comm_rank;
#              the plain program with hp-run's preloaded library (LD_PRELOAD, as hp-run)
#   pingpong   mpi-pingpong.c: 10^5 round trips of an 8-byte message between 2 ranks,
#              plain and measured (--nocompiler)
#   finalize   mpi-finalize.c: MPI_Finalize as rank 0 sees it, 32 ranks oversubscribed
#              (fewer when 32 cannot start here), plain and measured (with compiler
#              instrumentation, so the ranks have a few call paths to unify)
# Each variant runs REPS times, interleaved, and the minimum counts (the machine is
# shared and noisy). Prints a table, then one `bench: name=value` line per figure.
#
# Usage: run-mpi-bench.sh BUILDDIR [REPS]
#   BUILDDIR   top build directory (holds hp-instrument and .libs/libhpmeasure_mpi.so)
#   REPS       repetitions per variant (default 5)
# Environment: MPICC (default mpicc) compiles the programs; it must be a compiler that
# hp-instrument accepts. MPIEXEC (default mpiexec) starts them; it is given `-n N`.
# HP_BENCH_MPI_RANKS (default 32) is the number of ranks of the finalize run.
#
# Timing runs never use more than 2 ranks: MPICH busy-polls, and these machines have 2
# cores. Exits 0 whatever the timings are, and also when there is no MPI (the benchmark
# is then skipped); 1 when something could not be built or run, 2 on bad arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_args "$@"
bench_mpi_start hp-instrument libhpmeasure_mpi.so "MPI overhead" mpi
FIN_RANKS=${HP_BENCH_MPI_RANKS:-32}
is_count "$FIN_RANKS" || die "HP_BENCH_MPI_RANKS must be a positive count"

RANK_CALLS=1000000  # MPI_Comm_rank calls per rank
ROUNDTRIPS=100000   # ping-pong round trips
TIME_LIMIT=120      # seconds for one mpiexec; a hang must not stall `make bench`

# Inside bench/work (which `make clean` removes); run-bench.sh empties bench/work
# when it starts, so `make bench` runs it before this script.
bench_workdir mpi
# These figures are the MPI adapter's own cost: --nocompiler builds would otherwise sample
# at 1 kHz and unwind in every MPI call (that cost is run-sampling-bench.sh's subject).
export HP_SAMPLING_FREQUENCY=0

# ---------------------------------------------------------------- build
CFLAGS_BENCH="-O2 -Wall -Wextra"
INSTRUMENT_ENV="HP_INSTRUMENT_LIBDIR=$CORELIBDIR HP_INSTRUMENT_INCLUDEDIR=$SRCDIR/include"
for p in rank pingpong finalize; do
    # shellcheck disable=SC2086 # CFLAGS_BENCH holds several words on purpose
    build $MPICC $CFLAGS_BENCH -o "plain-$p" "$BENCHDIR/mpi-$p.c"
done
# MPI call overhead alone: no function hooks.
for p in rank pingpong; do
    # shellcheck disable=SC2086
    build env $INSTRUMENT_ENV "$INSTRUMENT" --nocompiler $MPICC $CFLAGS_BENCH \
        -o "hp-$p" "$BENCHDIR/mpi-$p.c"
done
# HP_PLUGINS: begin() and end() that do nothing, to time the dispatch.
build cc -O2 -Wall -Wextra -shared -fPIC -I"$SRCDIR/include" -o libnoop.so \
    "$BENCHDIR/mpi-plugin-noop.c"
# Unification: with function hooks, so the call paths run through user functions.
# shellcheck disable=SC2086
build env $INSTRUMENT_ENV "$INSTRUMENT" $MPICC $CFLAGS_BENCH -o hp-finalize \
    "$BENCHDIR/mpi-finalize.c"

# ---------------------------------------------------------------- run
# check_summary AWK-PROGRAM FILE MESSAGE: a sanity check of an experiment's summary.txt.
# It only warns: the timing figures stay valid, but what was measured may not be what
# this benchmark claims.
# shellcheck disable=SC2317 # called by run, through min_of_rounds
check_summary() {
    _cond=$1 _file=$2 _msg=$3
    if ! awk "$_cond" "$_file" 2>/dev/null; then
        echo "bench: warning: $_msg ($_file)" >&2
    fi
}

# run VARIANT: runs it once and prints the time in ns that its rank 0 reports; stops the
# script on failure. Every measured run writes its experiment to exp-VARIANT, which is
# checked and deleted.
# shellcheck disable=SC2317 # called through min_of_rounds
run() {
    exp="$WORK/exp-$1"
    rm -rf "$exp"
    case $1 in
        rank_plain) out=$(launch 2 ./plain-rank "$RANK_CALLS") ;;
        rank_measured) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" ./hp-rank "$RANK_CALLS") ;;
        rank_excluded) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" \
            HP_MPI_EXCLUDE=MPI_Comm_rank ./hp-rank "$RANK_CALLS") ;;
        rank_counters) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" \
            HP_METRIC_PERF=page-faults ./hp-rank "$RANK_CALLS") ;;
        rank_account) out=$(launch 2 HP_ENABLE_PROFILING=false HP_SITE_LOG="$WORK/site.jsonl" \
            ./hp-rank "$RANK_CALLS") ;;
        rank_plugin_off) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" HP_PLUGINS="$WORK/libnoop.so" \
            HP_BENCH_PLUGIN_CALL=MPI_Send ./hp-rank "$RANK_CALLS") ;;
        rank_preload) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" \
            LD_PRELOAD="$CORELIBDIR/libhpmeasure_mpi_preload.so" ./plain-rank "$RANK_CALLS") ;;
        rank_plugin_on) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" HP_PLUGINS="$WORK/libnoop.so" \
            HP_BENCH_PLUGIN_CALL=MPI_Comm_rank ./hp-rank "$RANK_CALLS") ;;
        pp_plain) out=$(launch 2 ./plain-pingpong "$ROUNDTRIPS") ;;
        pp_measured) out=$(launch 2 HP_EXPERIMENT_DIRECTORY="$exp" ./hp-pingpong "$ROUNDTRIPS") ;;
        fin_plain) out=$(launch "$FIN_RANKS" ./plain-finalize) ;;
        fin_measured) out=$(launch "$FIN_RANKS" HP_EXPERIMENT_DIRECTORY="$exp" ./hp-finalize) ;;
    esac || die "$1 run failed (exit status $?; see $WORK/run.log)"
    ns=${out#ns=}
    ns=${ns%% *}
    is_count "$ns" || die "$1 run printed '$out'"
    # The measured runs must have measured (or, excluded, counted) what they claim.
    s="$exp/summary.txt"
    case $1 in
        rank_measured | rank_preload)
            check_summary "/^MPI calls counted but not measured/ { exit }
                \$NF == \"MPI_Comm_rank\" && \$1 >= 2 * $RANK_CALLS { ok = 1 }
                END { exit !ok }" "$s" "MPI_Comm_rank was not measured $RANK_CALLS times per rank" ;;
        rank_excluded)
            check_summary "/^MPI calls counted but not measured/ { in_counted = 1 }
                in_counted && \$NF == \"MPI_Comm_rank\" && \$1 >= 2 * $RANK_CALLS { ok = 1 }
                END { exit !ok }" "$s" "excluded MPI_Comm_rank was not counted as unmeasured" ;;
        rank_counters)
            check_summary "/^Counters per rank/ { ok = 1 } END { exit !ok }" "$s" \
                "the run with HP_METRIC_PERF recorded no counters" ;;
        pp_measured)
            check_summary "\$NF == \"MPI_Send\" && \$1 >= 2 * $ROUNDTRIPS { ok = 1 }
                END { exit !ok }" "$s" "the ping-pong's MPI_Send calls were not measured" ;;
        fin_measured)
            check_summary "/^processes:/ && \$2 == $FIN_RANKS { ok = 1 } END { exit !ok }" \
                "$s" "the profile does not hold $FIN_RANKS ranks"
            # "regions:     23, call paths: 26": what the unification merged.
            sed -n 's/^regions: *\([0-9]*\), call paths: *\([0-9]*\).*/\1 \2/p' "$s" \
                >fin-size.txt 2>/dev/null ;;
    esac
    rm -rf "$exp"
    echo "$ns"
}

# Find the largest number of ranks (32, 16, ... 2) for which the plain finalize program
# starts and ends here, before any timing.
want_ranks=$FIN_RANKS
while :; do
    if out=$(launch "$FIN_RANKS" ./plain-finalize) && is_count "$(echo "${out#ns=}" | cut -d' ' -f1)"; then
        break
    fi
    [ "$FIN_RANKS" -gt 2 ] || die "the finalize program does not run on 2 ranks (see $WORK/run.log)"
    FIN_RANKS=$((FIN_RANKS / 2))
    echo "bench: note: $((FIN_RANKS * 2)) ranks did not start or end here; trying $FIN_RANKS" >&2
done

min_of_rounds run rank_plain rank_measured rank_excluded rank_counters rank_account \
    rank_plugin_off rank_plugin_on rank_preload pp_plain pp_measured fin_plain fin_measured

# ---------------------------------------------------------------- report
read -r fin_regions fin_paths 2>/dev/null <fin-size.txt || true
# shellcheck disable=SC2154 # the min_* variables are set by eval
awk -v reps="$REPS" -v calls="$RANK_CALLS" -v trips="$ROUNDTRIPS" \
    -v ranks="$FIN_RANKS" -v want_ranks="$want_ranks" \
    -v rp="$min_rank_plain" -v rm="$min_rank_measured" -v rx="$min_rank_excluded" \
    -v rc="$min_rank_counters" \
    -v ra="$min_rank_account" -v rpo="$min_rank_plugin_off" -v rps="$min_rank_plugin_on" \
    -v rpl="$min_rank_preload" \
    -v pp="$min_pp_plain" -v pm="$min_pp_measured" \
    -v fp="$min_fin_plain" -v fm="$min_fin_measured" \
    -v fin_regions="${fin_regions:-?}" -v fin_paths="${fin_paths:-?}" '
BEGIN {
    rank_plain = rp / calls; rank_meas = rm / calls; rank_excl = rx / calls
    add_meas = rank_meas - rank_plain; add_excl = rank_excl - rank_plain
    rank_acct = ra / calls; rank_poff = rpo / calls; rank_pon = rps / calls
    rank_pre = rpl / calls
    pp_plain = pp / trips / 1000; pp_meas = pm / trips / 1000
    pp_ratio = pp_plain > 0 ? pp_meas / pp_plain : 0
    pp_added = (pm - pp) / trips
    fin_plain = fp / 1e9; fin_meas = fm / 1e9

    printf "hpmeasure MPI overhead: 2 ranks (unification: %d ranks), min of %d runs\n\n", ranks, reps
    printf "  %-44s %12s %12s\n", "MPI_Comm_rank loop (" calls " calls per rank)", "ns/call", "added ns"
    printf "  %-44s %12.2f %12s\n", "plain (mpicc)", rank_plain, "-"
    printf "  %-44s %12.2f %12.2f    (target <= 35)\n", "measured (hp-instrument --nocompiler)", rank_meas, add_meas
    printf "  %-44s %12.2f %12.2f    (target <= 5)\n", "unmeasured (HP_MPI_EXCLUDE=MPI_Comm_rank)", rank_excl, add_excl
    printf "  %-44s %12.2f %12.2f\n", "measured with 1 perf counter (page-faults)", rc / calls, rc / calls - rank_plain
    printf "  %-44s %12.2f %12.2f\n", "accounting only (HP_SITE_LOG, no profile)", rank_acct, rank_acct - rank_plain
    printf "  %-44s %12.2f %12.2f\n", "measured, plug-in selects another function", rank_poff, rank_poff - rank_plain
    printf "  %-44s %12.2f %12.2f\n", "measured, plug-in selects MPI_Comm_rank", rank_pon, rank_pon - rank_plain
    printf "  %-44s %12.2f %12.2f\n", "measured through hp-run (preloaded library)", rank_pre, rank_pre - rank_plain
    printf "  for scale, Score-P 8.4 adds ~69 ns per measured MPI_Comm_rank\n\n"
    printf "  %-44s %12s %12s\n", "8-byte ping-pong (" trips " round trips)", "us/trip", "ratio"
    printf "  %-44s %12.3f %12s\n", "plain", pp_plain, "-"
    printf "  %-44s %12.3f %12.3f    (target <= 1.05)\n", "measured", pp_meas, pp_ratio
    printf "\n  %-44s %12s %12s\n", "MPI_Finalize on rank 0 (" ranks " ranks)", "s", "added s"
    printf "  %-44s %12.3f %12s\n", "plain", fin_plain, "-"
    printf "  %-44s %12.3f %12.3f    (target <= 1 s measured)\n", "measured (unification + writing)", fin_meas, fin_meas - fin_plain
    printf "  (the unified profile: %s regions, %s call paths)\n", fin_regions, fin_paths
    if (ranks != want_ranks)
        printf "  (%d ranks did not start here; %d is the largest count that did)\n", want_ranks, ranks
    printf "\n"

    printf "bench: mpi_repetitions=%d\n", reps
    printf "bench: mpi_comm_rank_calls=%d\n", calls
    printf "bench: mpi_comm_rank_plain_ns=%.2f\n", rank_plain
    printf "bench: mpi_comm_rank_measured_ns=%.2f\n", rank_meas
    printf "bench: mpi_comm_rank_unmeasured_ns=%.2f\n", rank_excl
    printf "bench: mpi_added_ns_per_measured_call=%.2f\n", add_meas
    printf "bench: mpi_added_ns_per_unmeasured_call=%.2f\n", add_excl
    printf "bench: mpi_comm_rank_counter_ns=%.2f\n", rc / calls
    printf "bench: mpi_comm_rank_accounting_ns=%.2f\n", rank_acct
    printf "bench: mpi_comm_rank_plugin_unselected_ns=%.2f\n", rank_poff
    printf "bench: mpi_comm_rank_plugin_selected_ns=%.2f\n", rank_pon
    printf "bench: mpi_comm_rank_preload_ns=%.2f\n", rank_pre
    printf "bench: pingpong_roundtrips=%d\n", trips
    printf "bench: pingpong_plain_us=%.3f\n", pp_plain
    printf "bench: pingpong_measured_us=%.3f\n", pp_meas
    printf "bench: pingpong_added_ns_per_roundtrip=%.1f\n", pp_added
    printf "bench: pingpong_ratio=%.3f\n", pp_ratio
    printf "bench: unify_ranks=%d\n", ranks
    printf "bench: finalize_plain_s=%.3f\n", fin_plain
    printf "bench: finalize_measured_s=%.3f\n", fin_meas
    printf "bench: finalize_added_s=%.3f\n", fin_meas - fin_plain
    printf "bench: unify_call_paths=%s\n", fin_paths
}'
exit 0
