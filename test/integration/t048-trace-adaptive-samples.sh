#!/bin/sh
# Samples in the adaptive trace buffer (HP_TRACE_ADAPTIVE=true, doc/tracing.md): a
# sampled run far longer than its trace buffer holds ends with no flush, its sampling
# frequency halved k times, and the samples the trace keeps are exactly the multiples of
# 2^k of the sample numbers, without a gap: 2^k, 2*2^k, 3*2^k, ... (the "sample number"
# attribute), on generator k ("sampling timer, halved k times", period 2^k start
# periods). Checked for one thread (halved), three threads and a 2-rank MPI job (each
# location halved or not), where every message is kept and matched. The trace passes otf2check.py at every stage.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 15

OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py --strict"
SAMPLES="$PY $HP_SRCDIR/test/tools/trace_samples.py"
ADAPTIVE="HP_ENABLE_TRACING=true HP_TRACE_ADAPTIVE=true HP_TRACE_BUFFER=256K HP_SAMPLING_FREQUENCY=10000"

# multiples_check SAMPLES-FILE START-PERIOD MIN-K: per location, every sample's period is
# START << k for the location's k >= MIN-K, and its numbers are 1*2^k, 2*2^k, ... in
# order. Prints "location k kept" per location; fails on the first violation.
multiples_check() {
    unsanitized awk -F'\t' -v start="$2" -v mink="$3" '
        { loc = $1; if (!(loc in k)) { p = $6 / start; kk = 0; while (p > 1) { p /= 2; kk++ }
                                        if (p != 1 || kk < mink) { print "period " $6; bad = 1; exit }
                                        k[loc] = kk; step[loc] = 2 ^ kk; order[++nl] = loc }
          if ($6 != start * step[loc]) { print "location " loc ": period " $6; bad = 1; exit }
          n[loc]++
          if ($5 != n[loc] * step[loc]) { print "location " loc ": sample " n[loc] " is number " $5; bad = 1; exit } }
        END { if (bad || nl == 0) exit 1; for (i = 1; i <= nl; i++) print order[i], k[order[i]], n[order[i]] }' "$1"
}

check "build busy_paths.c with --nocompiler -pthread" \
    hp-instrument --nocompiler gcc -O1 -g -pthread -o busy "$PROGRAMS/sampling/busy_paths.c"
# 20 kHz for 1.5 s of the thread's CPU time (busy_paths.c's "cpu"): 256 KiB hold 8192
# samples, which must arrive for a halving. A descheduled thread misses its ticks (at 10
# kHz for 2 s of wall-clock time too few arrived under a parallel test run), a running
# one takes them: 30000 ticks in 1.5 s of CPU time, however loaded the machine is.
check "1.5 s of CPU time at 20 kHz in a 256 KiB trace buffer" \
    env $ADAPTIVE HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=one ./busy 1500 1 cpu
check "no flush: no TRACE BUFFER FLUSH in the trace" sh -c \
    '! otf2-print one/traces.otf2 | grep -q "TRACE BUFFER FLUSH"'
check "otf2check.py passes, no warnings" $OTF2CHECK one/traces.otf2
$SAMPLES one/traces.otf2 > one.samples
check "kept samples: exactly the multiples of 2^k in order, on generator k >= 1" \
    multiples_check one.samples 50000 1
read -r loc k kept < "$WORK/last.out"
check "summary.txt names the halvings ($k times)" \
    grep -q "sampling frequency was halved on 1 locations ($k times in all" one/summary.txt
# A sample record takes 32 bytes: 256 KiB hold at most 8192, and a halving leaves at least
# half of the buffer's samples (the levels above the one given back).
check "kept samples fill the buffer's share: between 1024 and 8192 (got $kept)" \
    test "$kept" -ge 1024 -a "$kept" -le 8192

# 20 kHz: three threads share 2 cores, and a thread that does not run misses its ticks.
# 1.5 s of CPU time each, so that each thread takes more than the 8,192 samples its
# 256 KiB hold, and must halve, however the scheduler shares the cores.
check "3 threads, 1.5 s of CPU time at 20 kHz each" env $ADAPTIVE HP_SAMPLING_FREQUENCY=20000 \
    HP_EXPERIMENT_DIRECTORY=thr ./busy 1500 3 cpu
check "threads: otf2check.py passes, no warnings" $OTF2CHECK thr/traces.otf2
$SAMPLES thr/traces.otf2 > thr.samples
check "threads: each location keeps the multiples of its own 2^k" multiples_check thr.samples 50000 0
cp "$WORK/last.out" thr.levels
check "threads: 3 locations, each halved at least once" \
    awk '{ n++; if ($2 < 1) bad = 1 } END { exit !(n == 3 && !bad) }' thr.levels

check "build busy_ring.c with --nocompiler" \
    hp-instrument --nocompiler mpicc -O1 -g -o ring "$PROGRAMS/sampling/busy_ring.c"
check "MPI: 2 ranks at 10 kHz in 256 KiB" \
    timeout 120 env $ADAPTIVE HP_EXPERIMENT_DIRECTORY=mpi mpiexec -n 2 ./ring
check "MPI: otf2check.py passes, 20 sends all matched" sh -c \
    "$OTF2CHECK mpi/traces.otf2 > mpi.check && grep -q 'p2p: 20 sends, 20 receives, 20 matched pairs' mpi.check"
$SAMPLES mpi/traces.otf2 > mpi.samples
check "MPI: each rank keeps the multiples of its own 2^k" multiples_check mpi.samples 100000 0
finish
