#!/bin/sh
# The cost of wait states (`make bench`; doc/bench.md "Wait states", doc/wait-states.md).
#
# Builds bench/mpi-pingpong.c, mpi-rank.c (hp-instrument --nocompiler) and mpi-finalize.c
# (with function hooks) and times, in one run with the variants interleaved:
#   pingpong   10^5 round trips of an 8-byte message between 2 ranks, measured with
#              HP_WAIT_STATES=true vs false: the ratio is the run-time cost of keeping a
#              record of every message end (target <= 1.02)
#   rank       10^6 MPI_Comm_rank calls per rank, on vs off: a call that communicates
#              nothing must not pay anything (ratio ~1)
#   finalize   MPI_Finalize on rank 0 with 2 and 8 ranks (8 oversubscribed on these
#              2 cores), mpi-finalize.c with 200 iterations, on vs off: the replay
#   bytes      bytes kept per message end (the record size, read from summary.txt's
#              coverage line, target <= 32) and the records the ping-pong kept
# Each variant runs REPS times and the minimum counts (the machine is shared).
#
# Usage: run-waitstates-bench.sh BUILDDIR [REPS]   (REPS default 5)
# Environment: MPICC (default mpicc), MPIEXEC (default mpiexec). Exits 0 whatever the
# timings are and when there is no MPI (skipped); 1 when something could not be built
# or run, 2 on bad arguments.

set -u

BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

bench_args "$@"
bench_mpi_start hp-instrument libhpmeasure_mpi.so "Wait states" waitstates
ROUNDTRIPS=100000
RANK_CALLS=1000000
FIN_ITERATIONS=200
TIME_LIMIT=180

bench_workdir waitstates
export HP_SAMPLING_FREQUENCY=0

INSTRUMENT_ENV="HP_INSTRUMENT_LIBDIR=$CORELIBDIR HP_INSTRUMENT_INCLUDEDIR=$SRCDIR/include"
for p in pingpong rank; do
    # shellcheck disable=SC2086 # INSTRUMENT_ENV holds several words on purpose
    build env $INSTRUMENT_ENV "$INSTRUMENT" --nocompiler $MPICC -O2 -o "hp-$p" \
        "$BENCHDIR/mpi-$p.c"
done
# shellcheck disable=SC2086
build env $INSTRUMENT_ENV "$INSTRUMENT" $MPICC -O2 -o hp-finalize "$BENCHDIR/mpi-finalize.c"

# run VARIANT: one run (VARIANT ends in _on or _off: HP_WAIT_STATES); prints the ns
# figure that rank 0 reports.
# shellcheck disable=SC2317 # called through min_of_rounds
run() {
    v=$1
    exp="$WORK/exp-$v"
    rm -rf "$exp"
    case $v in
        *_on) ws=true ;;
        *) ws=false ;;
    esac
    case $v in
        pp_*) set -- 2 ./hp-pingpong "$ROUNDTRIPS" ;;
        rank_*) set -- 2 ./hp-rank "$RANK_CALLS" ;;
        fin2_*) set -- 2 ./hp-finalize "$FIN_ITERATIONS" ;;
        fin8_*) set -- 8 ./hp-finalize "$FIN_ITERATIONS" ;;
    esac
    n=$1
    shift
    out=$(launch "$n" HP_EXPERIMENT_DIRECTORY="$exp" HP_WAIT_STATES="$ws" "$@") ||
        die "$v run failed (exit status $?; see $WORK/run.log)"
    ns=${out#ns=}
    ns=${ns%% *}
    is_count "$ns" || die "$v run printed '$out'"
    if [ "$v" = pp_on ]; then # "coverage: 100.0% of 400000 ... kept (32 bytes each)"
        sed -n 's/^coverage: \([0-9.]*\)% of \([0-9]*\) .*(\([0-9]*\) bytes each).*/\1 \2 \3/p' \
            "$exp/summary.txt" >coverage.txt
    fi
    rm -rf "$exp"
    echo "$ns"
}

min_of_rounds run pp_on pp_off rank_on rank_off fin2_on fin2_off fin8_on fin8_off

read -r cov_percent cov_calls record_bytes <coverage.txt 2>/dev/null || true
# shellcheck disable=SC2154 # the min_* variables are set by keep_min
awk -v reps="$REPS" -v trips="$ROUNDTRIPS" -v calls="$RANK_CALLS" \
    -v ppon="$min_pp_on" -v ppoff="$min_pp_off" -v ron="$min_rank_on" -v roff="$min_rank_off" \
    -v f2on="$min_fin2_on" -v f2off="$min_fin2_off" -v f8on="$min_fin8_on" \
    -v f8off="$min_fin8_off" -v cov="${cov_percent:-?}" -v kept="${cov_calls:-?}" \
    -v bytes="${record_bytes:-?}" '
BEGIN {
    printf "hpmeasure wait states (HP_WAIT_STATES=true vs false), min of %d runs\n\n", reps
    printf "  %-46s %10s %10s %8s\n", "", "on", "off", "ratio"
    printf "  %-46s %10.3f %10.3f %8.3f    (target <= 1.02)\n", "8-byte ping-pong, us per round trip (2 ranks)", \
        ppon / trips / 1000, ppoff / trips / 1000, ppon / ppoff
    printf "  %-46s %10.2f %10.2f %8.3f    (nothing to keep)\n", "MPI_Comm_rank, ns per call (2 ranks)", \
        ron / calls, roff / calls, ron / roff
    printf "  %-46s %10.3f %10.3f %8.3f\n", "MPI_Finalize on rank 0, s (2 ranks)", f2on / 1e9, f2off / 1e9, f2on / f2off
    printf "  %-46s %10.3f %10.3f %8.3f\n", "MPI_Finalize on rank 0, s (8 ranks)", f8on / 1e9, f8off / 1e9, f8on / f8off
    printf "  bytes kept per message end: %s (target <= 32); the ping-pong kept %s%% of %s message ends\n\n", \
        bytes, cov, kept
    printf "bench: waitstates_pingpong_ratio=%.3f\n", ppon / ppoff
    printf "bench: waitstates_comm_rank_ratio=%.3f\n", ron / roff
    printf "bench: waitstates_finalize2_on_s=%.3f\n", f2on / 1e9
    printf "bench: waitstates_finalize2_off_s=%.3f\n", f2off / 1e9
    printf "bench: waitstates_finalize8_on_s=%.3f\n", f8on / 1e9
    printf "bench: waitstates_finalize8_off_s=%.3f\n", f8off / 1e9
    printf "bench: waitstates_bytes_per_message_end=%s\n", bytes
}'
exit 0
