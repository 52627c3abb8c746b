#!/bin/sh
# Sampling accuracy and exact accounting (issue: hybrid call-path profiling). split.c
# spends ~60% of each rank's time in f1, ~30% in f2 and the rest computing alone on
# rank 0 or waiting in MPI_Barrier, and measures that truth itself. Built with
# --nocompiler (sampling at 1 kHz by default), the sampled profile must match the truth
# within 5 points, as well as the instrumented profile does (each against its own run's
# truth: see sampling_check.py), and per rank sampled + MPI time must add up to wall time. With instrumentation and sampling together, samples add the C
# library's clock_gettime below the instrumented `now`. Two ranks: these are timings.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 12

SPLIT="$PROGRAMS/sampling/split.c"
check "build split.c with --nocompiler" hp-instrument --nocompiler mpicc -O1 -o split-nc "$SPLIT"
check "build split.c instrumented" hp-instrument mpicc -O1 -o split "$SPLIT"

HP_EXPERIMENT_DIRECTORY=nc check "sampled run (default 1000 Hz for --nocompiler builds)" \
    timeout 120 mpiexec -n 2 ./split-nc truth-nc.txt
# The instrumented runs keep every visit (HP_OVERHEAD_BUDGET=0): the default budget
# would switch the hot, short now() off, and the hybrid checks look below it.
HP_OVERHEAD_BUDGET=0 HP_EXPERIMENT_DIRECTORY=in check "instrumented run, no sampling" \
    timeout 120 mpiexec -n 2 ./split truth-in.txt
HP_OVERHEAD_BUDGET=0 HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=hy check "instrumented run with sampling" \
    timeout 120 mpiexec -n 2 ./split truth-hy.txt
for e in nc in hy; do $CUBEDUMP $e/profile.cubex > $e.dump 2>/dev/null; done

check "sampled shares match truth and the instrumented profile; time adds up per rank" \
    $PY "$HP_SRCDIR/test/tools/sampling_check.py" truth-nc.txt nc.dump truth-in.txt in.dump 1
check "summary.txt: sampling at 1000 Hz, with the interval histogram" sh -c \
    "grep -q '^Sampling: 1000 Hz per thread' nc/summary.txt &&
     grep -q '^Effective sample intervals' nc/summary.txt &&
     grep -Eq '^ +90-100% +[1-9]' nc/summary.txt"
check "hp.config records the sampling frequency in force" grep -qx "HP_SAMPLING_FREQUENCY=1000" nc/hp.config
# Call paths found by sampling alone: f1 and f2 below main, spin below each.
check "sampled paths main/f1/spin and main/f2/spin on both ranks" sh -c \
    "grep -Eq '^split-nc/main/f1/spin	0	visits=[1-9]' nc.dump &&
     grep -Eq '^split-nc/main/f2/spin	1	visits=[1-9]' nc.dump"
check_eq "instrumented visits stay exact with sampling on (f1, f2 per rank)" \
    "200 200 200 200" \
    "$(grep -E '^split/main/f[12]	' hy.dump | sed 's/.*visits=\([0-9]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')"
# In a sanitizer build the preloaded ASan runtime intercepts clock_gettime: its
# interceptor is the one frame allowed between now and the C library's function.
asan_frame=
[ -n "${HP_ASAN_RUNTIME:-}" ] && asan_frame='(__interceptor_clock_gettime[^/	]*/)?'
check "hybrid: the C library's clock_gettime shows below the instrumented now" \
    grep -Eq "^split/main/f[12]/spin/now/${asan_frame}clock_gettime	" hy.dump
check "cubecheck.py passes on all three profiles" sh -c \
    "$CUBECHECK nc/profile.cubex && $CUBECHECK in/profile.cubex && $CUBECHECK hy/profile.cubex"
finish
