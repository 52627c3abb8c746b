#!/bin/sh
# Unwind cost with and without the thunk stack (HP_UNWIND_THUNKS), by call depth.
#
# Builds bench/thunk-depth.c with `hp-instrument --nocompiler mpicc` and runs each mode
# (steady, churn, mpi: see the program) at each depth for SECONDS of CPU time three
# ways: sampling off (HP_SAMPLING_FREQUENCY=0: no samples, no unwinding in MPI wrappers),
# 1 kHz sampling without thunks, 1 kHz with thunks. The loop iterations done in the same
# CPU time give the cost: for steady and churn, CPU time lost per sample; for mpi, CPU
# time per MPI call above the run without unwinding (1 kHz samples included). Each
# configuration runs REPS times and the best counts (the machine is shared).
#
# Usage: run-thunk-bench.sh INSTALLDIR [SECONDS [REPS [DEPTHS]]]
#   INSTALLDIR  hpmeasure's install prefix (bin/hp-instrument)
#   SECONDS     CPU seconds per run (default 2); REPS (default 2); DEPTHS (default
#               "10 50 100 200")
# Prints one line per mode and depth. Exits 0 whatever the timings are, 1 when something
# could not be built or run.
set -u
[ $# -ge 1 ] || { echo "usage: $0 INSTALLDIR [SECONDS [REPS [DEPTHS]]]" >&2; exit 2; }
PATH="$1/bin:$PATH"
SECONDS_PER_RUN=${2:-2}
REPS=${3:-2}
DEPTHS=${4:-10 50 100 200}
SRC=$(cd "$(dirname "$0")" && pwd)/thunk-depth.c
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
hp-instrument --nocompiler mpicc -O1 -o thunk-depth "$SRC" || exit 1

# run FREQ THUNKS DEPTH MODE: prints "iterations samples unwinds_walked_frames"
run() {
    rm -rf exp
    HP_SAMPLING_FREQUENCY=$1 HP_UNWIND_THUNKS=$2 HP_EXPERIMENT_DIRECTORY=exp \
        mpiexec -n 1 ./thunk-depth "$3" "$4" "$SECONDS_PER_RUN" > out 2> err || exit 1
    it=$(sed -n 's/^iterations //p' err)
    samples=$(sed -n 's/^Sampling: .* Hz per thread, \([0-9]*\) samples$/\1/p' exp/summary.txt 2>/dev/null)
    walked=$(sed -n 's/^Thunks.* \([0-9]*\) frames walked$/\1/p' exp/summary.txt 2>/dev/null)
    echo "$it ${samples:-0} ${walked:-0}"
}

# best FREQ THUNKS DEPTH MODE: the run with the most iterations of REPS
best() {
    b=""
    for r in $(seq "$REPS"); do
        line=$(run "$@")
        if [ -z "$b" ] || [ "${line%% *}" -gt "${b%% *}" ]; then b=$line; fi
    done
    echo "$b"
}

printf '%-7s %5s  %14s %14s  %s\n' mode depth "without thunks" "with thunks" "(per sample; mpi: per call)"
for mode in steady churn mpi; do
    for depth in $DEPTHS; do
        set -- $(best 0 false "$depth" "$mode"); n0=$1
        set -- $(best 1000 false "$depth" "$mode"); n1=$1 s1=$2
        set -- $(best 1000 true "$depth" "$mode"); n2=$1 s2=$2 w2=$3
        awk -v m="$mode" -v d="$depth" -v t="$SECONDS_PER_RUN" -v n0="$n0" -v n1="$n1" \
            -v s1="$s1" -v n2="$n2" -v s2="$s2" -v w2="$w2" 'BEGIN {
            if (m == "mpi") {   # CPU per call minus CPU per call without unwinding
                c1 = (t / n1 - t / n0) * 1e6; c2 = (t / n2 - t / n0) * 1e6
            } else {            # CPU time lost per sample
                c1 = t * (1 - n1 / n0) / (s1 > 0 ? s1 : 1) * 1e6
                c2 = t * (1 - n2 / n0) / (s2 > 0 ? s2 : 1) * 1e6
            }
            printf "%-7s %5d  %11.2f us %11.2f us  (samples %d / %d, thunk walk %d frames)\n",
                   m, d, c1, c2, s1, s2, w2 }'
    done
done
