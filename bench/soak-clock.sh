#!/bin/sh
# soak-clock.sh BUILDDIR [RUNS]: one clock per host, soaked (`make soak-clock`; not in
# `make check`, not in `make bench`; doc/tracing.md, "Clocks").
#
# RUNS times (default 50), a 4-rank traced run of test/programs/mpi/pingpong_pairs.c
# (1200 tight round-trip messages) and one of test/programs/mpi/skew.c (16 messages
# after skewed sleeps), each checked with `otf2check.py --strict` (a message received
# before it was sent is a warning, hence a failure) and its stderr searched for
# "went backwards". Printed: failed runs, corrected-backwards warnings, messages
# received before they were sent, the smallest receive-minus-send margin seen (ns), and
# the largest ClockOffset uncertainty (ns; 0 on one host). With HP_SOAK_CLIQUES=1 the
# runs use MPICH's MPIR_CVAR_ODD_EVEN_CLIQUES=1 (odd and even ranks as two hosts).
# Exits 1 when a run failed, 0 otherwise.
set -u
BENCHDIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$BENCHDIR/lib.sh"

BUILDDIR=$(cd "${1:?usage: soak-clock.sh BUILDDIR [RUNS]}" 2>/dev/null && pwd) ||
    die "no build directory '$1'"
RUNS=${2:-50}
is_count "$RUNS" || die "RUNS must be a positive count, not '$RUNS'"
MPIEXEC=${MPIEXEC:-mpiexec}
TIME_LIMIT=120
SRCDIR=$(dirname "$BENCHDIR")
OTF2CHECK="/usr/bin/python3 $SRCDIR/test/tools/otf2check.py"
CLIQUES=
[ "${HP_SOAK_CLIQUES:-0}" = 1 ] && CLIQUES=MPIR_CVAR_ODD_EVEN_CLIQUES=1

WORK=$BUILDDIR/bench/work/soak-clock
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || die "cannot use $WORK"
unset HP_FILTERING_FILE HP_EXPERIMENT_DIRECTORY HP_SAMPLING_FREQUENCY
export HP_INSTRUMENT_LIBDIR="$BUILDDIR/.libs"
for p in pingpong_pairs skew; do
    build "$BUILDDIR/hp-instrument" "${MPICC:-mpicc}" -O1 -o $p "$SRCDIR/test/programs/mpi/$p.c"
done

failed=0 backwards=0 late=0 margin= worst_sd=0
i=0
while [ $i -lt "$RUNS" ]; do
    i=$((i + 1))
    for p in pingpong_pairs skew; do
        rm -rf exp
        # shellcheck disable=SC2086 # CLIQUES is empty or one VAR=VALUE word
        timeout -k 10 $TIME_LIMIT env $CLIQUES HP_ENABLE_TRACING=true \
            HP_EXPERIMENT_DIRECTORY=exp $MPIEXEC -n 4 ./$p >/dev/null 2>run.err </dev/null
        status=$?
        n=$(grep -c 'went backwards' run.err)
        backwards=$((backwards + n))
        $OTF2CHECK --strict exp/traces.otf2 >check.out 2>&1
        check=$?
        if [ $status -ne 0 ] || [ $check -ne 0 ] || [ "$n" -ne 0 ]; then
            failed=$((failed + 1))
            echo "run $i $p: exit $status, otf2check $check, $n went-backwards warnings"
            cp check.out "fail-$i-$p.out"
        fi
        l=$(sed -n 's/.* \([0-9]*\) matched messages are received before.*/\1/p' check.out)
        late=$((late + ${l:-0}))
        m=$(sed -n 's/.*smallest receive-minus-send margin \(-*[0-9]*\) ticks.*/\1/p' check.out)
        [ -n "$m" ] && keep_min margin "$m"
        sd=$(otf2-print -C exp/traces.otf2 |
            awk '$1 == "CLOCK_OFFSET" { v = $NF + 0; if (v > m) m = v } END { printf "%d", m }')
        [ "$sd" -gt "$worst_sd" ] && worst_sd=$sd
    done
done
echo "soak-clock: $RUNS x 2 traced 4-rank runs${CLIQUES:+ ($CLIQUES)}"
echo "soak-clock: failed=$failed went_backwards=$backwards received_before_sent=$late" \
    "smallest_margin_ns=${margin:-none} largest_uncertainty_ns=$worst_sd"
[ "$failed" -eq 0 ]
