#!/bin/sh
# Samples in traces (issue 15, part 1): with HP_ENABLE_TRACING=true and sampling on, every
# sample that reached the call tree is an OTF2 CallingContextSample. busy_paths.c
# (--nocompiler: paths learned by sampling only) spends its time in
# main/rounds/outer/spin_deep and main/rounds/spin_shallow. Checked: otf2check.py passes
# without warnings (--strict, which rejects Enter/Leave next to samples); the samples in the trace are
# exactly the samples the profile charged (added + failed); their number is plausible for
# 400 ms of CPU time at 1 kHz: at least half a sample per ms of it, at most one per ms of
# the run (both hold however loaded the machine is); calling context i is Cube call path i
# for every sample; the busy leaves are there; the interrupt generator's period is 1 ms.
# With 3 threads every thread's location has its samples. With a full buffer the samples
# left out are counted (trace + left out = charged). Without sampling the trace has no
# calling contexts at all; instrumented + sampled, the regions are CallingContextEnter/
# Leave events (no Enter/Leave) whose enters equal the visits. An MPI job (busy_ring.c, 2 ranks): the trace stays valid, all 20 sends matched,
# samples on both ranks under main/compute/spin.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 32
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py --strict"
SAMPLES="$PY $HP_SRCDIR/test/tools/trace_samples.py"

# the sum of the summary's "added to call paths", "failed unwinds" and "below an
# inlined instrumented function" lines: the samples charged to a call-tree node (awk runs
# unsanitized: mawk's regex matching over-reads under the preloaded ASan runtime)
charged() {
    unsanitized awk '/added to call paths|failed unwinds|below an inlined/ { n += $1 } END { print n + 0 }' "$1"
}
# every sample's path equals the Cube call path of its context id (line id + 1)
contexts_are_cube_paths() { # $1 = experiment directory
    $CUBEDUMP --paths "$1/profile.cubex" > "$1.paths" &&
        $SAMPLES "$1/traces.otf2" > "$1.samples" &&
        unsanitized awk -F'\t' 'NR == FNR { path[NR - 1] = $0; next }
                    { n++; if (path[$2] != $3) { print "context " $2 ": " $3 " != " path[$2]; bad++ } }
                    END { exit bad > 0 || n == 0 }' "$1.paths" "$1.samples"
}

check "build busy_paths.c with --nocompiler" \
    hp-instrument --nocompiler gcc -O1 -g -o busy "$PROGRAMS/sampling/busy_paths.c"
HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=exp \
    check "run with tracing and sampling at 1 kHz (400 ms of its CPU time)" ./busy 400 1 cpu
check "otf2check.py passes, no warnings" $OTF2CHECK exp/traces.otf2
n=$(otf2-print exp/traces.otf2 | grep -c '^CALLING_CONTEXT_SAMPLE')
check_eq "samples in the trace = samples charged in the profile" "$(charged exp/summary.txt)" "$n"
run_ms=$($PY "$HP_SRCDIR/test/tools/sample_span.py" exp/traces.otf2 | unsanitized awk -F'\t' 'NR == 1 { printf "%d", $5 * 1000 }')
check "between 200 (400 ms of CPU time) and $((${run_ms:-0} + 1)) (one per ms of the run) samples at 1 kHz (got $n)" \
    test "$n" -ge 200 -a "$n" -le "$((${run_ms:-0} + 1))"
check "every sample's calling context is the Cube call path of the same id" \
    contexts_are_cube_paths exp
check "samples in main/rounds/outer/spin_deep and main/rounds/spin_shallow" sh -c \
    "cut -f3 exp.samples | grep -qx 'busy/main/rounds/outer/spin_deep' &&
     cut -f3 exp.samples | grep -qx 'busy/main/rounds/spin_shallow'"
check "one interrupt generator: time, period 1000000 x 10^-9 s" sh -c \
    "otf2-print -G exp/traces.otf2 | grep '^INTERRUPT_GENERATOR' |
     grep 'Mode: TIME' | grep 'Base: DECIMAL' | grep 'Exponent: -9' | grep -q 'Period: 1000000'"

# Threads: main and two pthreads run the same rounds at once, each sampled on its own
# location.
check "build busy_paths.c with --nocompiler -pthread" \
    hp-instrument --nocompiler gcc -O1 -g -pthread -o busy-thr "$PROGRAMS/sampling/busy_paths.c"
HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=thr \
    check "3 threads with tracing and sampling" ./busy-thr 300 3
check "threads: otf2check.py passes, no warnings" $OTF2CHECK thr/traces.otf2
check "threads: every sample on the Cube call path of its context" contexts_are_cube_paths thr
check_eq "threads: samples in rounds/outer/spin_deep on all 3 locations" "0 1 2" \
    "$(unsanitized awk -F'\t' '$3 ~ /rounds\/outer\/spin_deep$/ { print $1 }' thr.samples | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "threads: samples in the trace = samples charged" "$(charged thr/summary.txt)" \
    "$(wc -l < thr.samples)"

# A full flushing buffer (HP_TRACE_ADAPTIVE=false; with sampling the adaptive buffer is
# the default, t048/t049): the signal handler does not flush, and busy_paths.c has no
# events that would; the samples that do not fit are counted, never half-written. The
# smallest budget holds 1000-2000 samples; 3 s at 20 kHz overflow it even on a loaded
# machine (4% of the nominal 60000 samples suffice).
HP_TRACE_ADAPTIVE=false HP_TOTAL_MEMORY=256K HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=20000 \
    HP_EXPERIMENT_DIRECTORY=full ./busy 3000 > /dev/null 2> full.err
lost=$(sed -n 's/^  - \([0-9]*\) samples are not in the trace.*/\1/p' full/summary.txt)
n=$(otf2-print full/traces.otf2 | grep -c '^CALLING_CONTEXT_SAMPLE')
check "full buffer: samples left out, said in summary.txt and on stderr" sh -c \
    "[ '${lost:-0}' -gt 0 ] && grep -q 'samples are not in the trace' full.err"
check_eq "full buffer: samples in the trace + left out = samples charged" \
    "$(charged full/summary.txt)" "$((n + ${lost:-0}))"
check "full buffer: otf2check.py passes" $OTF2CHECK full/traces.otf2

HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=0 HP_EXPERIMENT_DIRECTORY=nosamp \
    check "run with tracing, sampling off" ./busy 100
check "without sampling: no calling contexts, no interrupt generator, no samples" sh -c \
    "otf2-print -G nosamp/traces.otf2 > nosamp.defs && otf2-print nosamp/traces.otf2 > nosamp.events &&
     ! grep -Eq '^(CALLING_CONTEXT|INTERRUPT_GENERATOR)' nosamp.defs &&
     ! grep -q CALLING_CONTEXT nosamp.events"

# Instrumented and sampled: region events and samples side by side (now_ms filtered:
# it is called for every 1000 iterations).
printf 'SCOREP_REGION_NAMES_BEGIN\nEXCLUDE now_ms\nSCOREP_REGION_NAMES_END\n' > busy.filt
check "build busy_paths.c instrumented" hp-instrument gcc -O1 -g -o busy-in "$PROGRAMS/sampling/busy_paths.c"
HP_FILTERING_FILE=busy.filt HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=1000 \
    HP_EXPERIMENT_DIRECTORY=hy check "instrumented run with tracing and sampling" ./busy-in 200
check "hybrid: otf2check.py passes, no warnings" $OTF2CHECK hy/traces.otf2
# the instrumented functions (now_ms is filtered; what sampling found below has lower
# bounds of visits in the profile and no Enter events)
instrumented='^(busy-in|main|rounds|outer|spin_deep|spin_shallow) '
expected_enters="busy-in 0 1
main 0 1
outer 0 4
rounds 0 1
spin_deep 0 4
spin_shallow 0 4"
check "hybrid: no ENTER or LEAVE events, CALLING_CONTEXT_ENTER/LEAVE instead" sh -c \
    "otf2-print hy/traces.otf2 > hy.events && ! grep -Eq '^(ENTER|LEAVE) ' hy.events &&
     grep -q '^CALLING_CONTEXT_LEAVE ' hy.events"
check_eq "hybrid: CallingContextEnter events of the instrumented functions" "$expected_enters" \
    "$(trace_enters hy/traces.otf2)"
check_eq "hybrid: the same visits in the profile" "$expected_enters" \
    "$(profile_visits hy/profile.cubex | grep -E "$instrumented")"
check "hybrid: samples, each on its Cube call path" contexts_are_cube_paths hy

check "build busy_ring.c with --nocompiler" \
    hp-instrument --nocompiler mpicc -O1 -g -o ring "$PROGRAMS/sampling/busy_ring.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=mpi check "mpiexec -n 2 with tracing and sampling" \
    timeout 120 mpiexec -n 2 ./ring
check "MPI: otf2check.py passes (20 sends, all matched), no warnings" sh -c \
    "$OTF2CHECK mpi/traces.otf2 > mpi.check && grep -q 'p2p: 20 sends, 20 receives, 20 matched pairs' mpi.check"
check "MPI: every sample on the Cube call path of its context" contexts_are_cube_paths mpi
check_eq "MPI: samples below main/compute/spin on both ranks" "0 4294967296" \
    "$(unsanitized awk -F'\t' '$3 == "ring/main/compute/spin" { print $1 }' mpi.samples | sort -u | tr '\n' ' ' | sed 's/ $//')"
added=$(unsanitized awk '/added to call paths/ { print $1 }' mpi/summary.txt)
n=$(wc -l < mpi.samples)
check "MPI: samples in the trace ($n) between the added ($added) and the charged ($(charged mpi/summary.txt))" \
    test "$n" -ge "$added" -a "$n" -le "$(charged mpi/summary.txt)"
finish
