#!/bin/sh
# Spec-conforming hybrid traces (issue 25, item 1): with sampling and tracing on, the
# instrumented regions, MPI calls and OpenMP constructs are CallingContextEnter/Leave
# events over the calling-context tree of the samples, never Enter/Leave (OTF2: mutually
# exclusive in a trace). For a serial, a threaded (3 pthreads), a 4-rank MPI and an
# OpenMP run: otf2check.py --strict passes (it rejects any mix); no ENTER or LEAVE
# events; every location's calling-context enters and leaves balance, innermost first
# (trace_events.py); the enters of each region and location equal the profile's visits;
# and otf2-print and the Python reader (python3-otf2) count the same events of each kind
# on each location. With sampling off the same run keeps Enter/Leave and has no calling
# contexts. The flushes of an overflowing buffer are calling contexts too. Samples in
# main before its first enter hook (a slow lazy binding of the hook) add no visit of it,
# nor do those in a measured function called by unmeasured ones.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 51
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py --strict"
EVENTS="$PY $HP_SRCDIR/test/tools/trace_events.py"

# hybrid_layout DIR: CALLING_CONTEXT_ENTER and _LEAVE present, no ENTER or LEAVE
hybrid_layout() {
    otf2-print "$1/traces.otf2" > "$1.events" &&
        ! grep -Eq '^(ENTER|LEAVE) ' "$1.events" &&
        grep -q '^CALLING_CONTEXT_ENTER ' "$1.events" && grep -q '^CALLING_CONTEXT_LEAVE ' "$1.events"
}
# readers_agree DIR: otf2-print's and the Python reader's counts per kind and location
readers_agree() {
    trace_kinds "$1/traces.otf2" > "$1.print-kinds" &&
        $EVENTS kinds "$1/traces.otf2" > "$1.py-kinds" &&
        [ -s "$1.py-kinds" ] && cmp -s "$1.print-kinds" "$1.py-kinds"
}

printf 'SCOREP_REGION_NAMES_BEGIN\nEXCLUDE now_ms\nSCOREP_REGION_NAMES_END\n' > busy.filt
SAMPLED="HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=1000 HP_FILTERING_FILE=busy.filt"

# Serial: busy_paths.c instrumented, main/rounds/{outer/spin_deep, spin_shallow} x 4.
check "build busy_paths.c instrumented" hp-instrument gcc -O1 -g -o busy "$PROGRAMS/sampling/busy_paths.c"
check "serial: run with tracing and sampling" env $SAMPLED HP_EXPERIMENT_DIRECTORY=ser ./busy 200
check "serial: otf2check.py --strict passes" $OTF2CHECK ser/traces.otf2
check "serial: calling-context events only, no Enter/Leave" hybrid_layout ser
check "serial: calling-context enters and leaves balance (Python reader)" \
    sh -c "$EVENTS visits ser/traces.otf2 > ser.visits"
check_eq "serial: enters per region = the profile's visits" \
    "$(profile_visits ser/profile.cubex | grep -E '^(busy|main|rounds|outer|spin_deep|spin_shallow) ')" \
    "$(cat ser.visits)"
check "serial: otf2-print and the Python reader count the same events" readers_agree ser

# A sample before a function's first enter hook: slow_bind.so (preloaded) makes the lazy
# binding of the program's first hook call spin 30 ms, in main before main's region is
# defined, so no sample can tell main is measured yet and they add main/.../slow_resolver.
# main still has the one visit its enter counts, in the profile as in the trace (with
# the plug-in's hooks and with -finstrument-functions): sampling takes its visit back,
# and the samples' time joins that visit's measured time.
# one_visit_time DIR PATH: PATH's one visit holds all of its time (time_incl = min_time =
# max_time > 0), so that the mean time per visit is not above the maximum
one_visit_time() {
    $CUBEDUMP "$1/profile.cubex" | awk -F'\t' -v path="$2" '
        $1 == path { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }; n++ }
        END { exit !(n == 1 && v["visits"] == 1 && v["time_incl"] > 0 &&
                     v["time_incl"] == v["min_time"] && v["time_incl"] == v["max_time"]) }'
}
bind_expected() { # $1 = program name
    printf '%s 0 1\nmain 0 1\nouter 0 4\nrounds 0 1\nspin_deep 0 4\nspin_shallow 0 4\n' "$1"
}
check "build slow_bind.so, busy_paths.c with and without the plug-in (lazy binding)" sh -c \
    "gcc -O1 -shared -fPIC -o slow_bind.so '$PROGRAMS/sampling/slow_bind.c' -ldl &&
     hp-instrument gcc -O1 -g -Wl,-z,lazy -o busy-lazy '$PROGRAMS/sampling/busy_paths.c' &&
     hp-instrument --no-plugin gcc -O1 -g -Wl,-z,lazy -o busy-cyg '$PROGRAMS/sampling/busy_paths.c'"
for prog in busy-lazy busy-cyg; do
    check "$prog: run with tracing and sampling, the first hook call bound slowly" \
        env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$WORK/slow_bind.so" $SAMPLED \
        HP_EXPERIMENT_DIRECTORY=$prog.bind ./$prog 100
    check "$prog: samples in main before its enter hook (main/.../slow_resolver)" sh -c \
        "$CUBEDUMP --paths $prog.bind/profile.cubex | grep -q '^$prog/main/.*/slow_resolver\$'"
    check_eq "$prog: main entered once, and visited once in the profile" \
        "$(bind_expected $prog; bind_expected $prog)" \
        "$($EVENTS visits $prog.bind/traces.otf2)
$(profile_visits $prog.bind/profile.cubex | grep -E "^($prog|main|rounds|outer|spin_deep|spin_shallow) ")"
    check "$prog: main's visit has the samples' time before its enter (mean = min = max)" \
        one_visit_time $prog.bind $prog/main
done

# The same below unmeasured callers: main and helper (prehook_main.c) are compiled
# without instrumentation, work (prehook_work.c, 20 ms) with it, and work's first hook
# call is the slow binding. The samples before it add main/helper/work; work keeps the
# one visit its enter counts (at the root, where its hook puts it), not a second one on
# main/helper/work, which keeps the samples' time with no visit. (main and helper are
# only sampled: a sample in main after work returned may count main again, so they are
# not compared exactly.)
# prehook_paths DIR PROG: visits of PROG/work, visits of PROG/main/helper/work and
# whether the latter has time
prehook_paths() {
    $CUBEDUMP "$1/profile.cubex" | awk -F'\t' -v w="$2/work" -v mhw="$2/main/helper/work" '
        $1 == w || $1 == mhw { sub("visits=", "", $3); v[$1] = $3
                               t = $4; sub("time_incl=", "", t); time[$1] = t }
        END { print v[w] + 0, v[mhw] + 0, (time[mhw] > 0 ? "time" : "no-time") }'
}
check "build mw: main, helper unmeasured, work measured (plug-in and -finstrument-functions)" \
    sh -c "gcc -O1 -g -c -o prehook_main.o '$PROGRAMS/sampling/prehook_main.c' &&
     hp-instrument gcc -O1 -g -Wl,-z,lazy -o mw prehook_main.o '$PROGRAMS/sampling/prehook_work.c' &&
     hp-instrument --no-plugin gcc -O1 -g -Wl,-z,lazy -o mw-cyg prehook_main.o \
         '$PROGRAMS/sampling/prehook_work.c'"
for prog in mw mw-cyg; do
    check "$prog: run with tracing and sampling, work's first hook call bound slowly" \
        env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$WORK/slow_bind.so" $SAMPLED \
        HP_EXPERIMENT_DIRECTORY=$prog.bind ./$prog
    check_eq "$prog: work visited once (main/helper/work's sampled visit taken back)" \
        "$prog 0 1 work 0 1" \
        "$(profile_visits $prog.bind/profile.cubex | grep -E "^($prog|work) " | tr '\n' ' ' | sed 's/ $//')"
    check_eq "$prog: the visit at $prog/work, main/helper/work keeps the samples' time, no visit" \
        "1 0 time" "$(prehook_paths $prog.bind $prog)"
done

# Threads: the same rounds on main and two pthreads at once.
check "build busy_paths.c instrumented -pthread" \
    hp-instrument gcc -O1 -g -pthread -o busy-thr "$PROGRAMS/sampling/busy_paths.c"
check "threads: run with tracing and sampling" env $SAMPLED HP_EXPERIMENT_DIRECTORY=thr ./busy-thr 200 3
check "threads: otf2check.py --strict passes" $OTF2CHECK thr/traces.otf2
check "threads: calling-context events only, no Enter/Leave" hybrid_layout thr
check "threads: calling-context enters and leaves balance" \
    sh -c "$EVENTS visits thr/traces.otf2 > thr.visits"
check_eq "threads: rounds/outer/spin_deep/spin_shallow entered 1/4/4/4 times on each of 3 threads" \
    "3 3 3 3" "$(for r in rounds outer spin_deep spin_shallow; do grep -c "^$r [012] [14]\$" thr.visits; done | tr '\n' ' ' | sed 's/ $//')"
# (pthread_create left out: a sample inside it adds a sampled call path with a visit)
check_eq "threads: enters per region and thread = the profile's visits" \
    "$(profile_visits thr/profile.cubex | grep -E '^(busy-thr|main|rounds|outer|spin_deep|spin_shallow|pthread_join) ')" \
    "$(grep -v '^pthread_create ' thr.visits)"
check "threads: otf2-print and the Python reader count the same events" readers_agree thr

# MPI: busy_ring.c on 4 ranks, 10 rounds of compute and a token passed around the ring.
check "build busy_ring.c instrumented" hp-instrument mpicc -O1 -g -o ring "$PROGRAMS/sampling/busy_ring.c"
check "MPI: 4 ranks with tracing and sampling" \
    env $SAMPLED HP_EXPERIMENT_DIRECTORY=mpi timeout 120 mpiexec -n 4 ./ring
check "MPI: otf2check.py --strict passes, all 40 messages matched" sh -c \
    "$OTF2CHECK mpi/traces.otf2 > mpi.check && grep -q 'p2p: 40 sends, 40 receives, 40 matched pairs' mpi.check"
check "MPI: calling-context events only, no Enter/Leave" hybrid_layout mpi
check "MPI: calling-context enters and leaves balance" sh -c "$EVENTS visits mpi/traces.otf2 > mpi.visits"
check_eq "MPI: MPI_Send and MPI_Recv entered 10 times on each of 4 ranks" "4 4" \
    "$(grep -c '^MPI_Send [0-9]* 10$' mpi.visits) $(grep -c '^MPI_Recv [0-9]* 10$' mpi.visits)"
check_eq "MPI: enters per region and rank = the profile's visits" \
    "$(profile_visits mpi/profile.cubex 1 | grep -E '^(ring|main|compute|spin|MPI_[A-Za-z_]+) ')" \
    "$(cat mpi.visits)"
check "MPI: otf2-print and the Python reader count the same events" readers_agree mpi

# OpenMP: openmp.c's constructs on 4 threads (flushing buffer: the adaptive one stops
# events early in this program). Team threads enter their forking path in the trace but
# the profile counts no visits for it there: compared are the master thread's regions
# and the constructs on every thread. Functions without a source file (libgomp's, found
# only by sampling) and the sanitizer runtime's (with source files, in the ASan build)
# have a visit in the profile where a sample hit them, but no events.
check "build openmp.c instrumented" hp-instrument gcc -fopenmp -O1 -g -o omp-prog "$PROGRAMS/openmp/openmp.c"
check "OpenMP: run with tracing and sampling" \
    env $SAMPLED HP_TRACE_ADAPTIVE=false OMP_NUM_THREADS=4 HP_EXPERIMENT_DIRECTORY=omp ./omp-prog
check "OpenMP: otf2check.py --strict passes" $OTF2CHECK omp/traces.otf2
check "OpenMP: calling-context events only, no Enter/Leave" hybrid_layout omp
check "OpenMP: calling-context enters and leaves balance" sh -c "$EVENTS visits omp/traces.otf2 > omp.visits"
constructs='^!\$omp (barrier|critical|critical sblock|implicit barrier) @'
$CUBEDUMP --regions omp/profile.cubex |
    unsanitized awk -F'\t' '($4 == "" && $6 == "compiler") ||
        $2 ~ /^(__asan|__sanitizer|__interceptor_|__lsan|__ubsan)/ { print $2 }' > omp.sampled-only
check_eq "OpenMP: enters of the master's regions and of every thread's constructs = the profile's visits" \
    "$(profile_visits omp/profile.cubex | unsanitized awk -v re="$constructs" '
        FILENAME == ARGV[1] { skip[$0] = 1; next } # (NR == FNR fails on an empty file)
        { name = $0; sub(/ [0-9]+ [0-9]+$/, "", name) }
        ($(NF - 1) == 0 && !skip[name]) || $0 ~ re' omp.sampled-only -)" \
    "$(unsanitized awk -v re="$constructs" '$(NF - 1) == 0 || $0 ~ re' omp.visits)"
check "OpenMP: otf2-print and the Python reader count the same events" readers_agree omp

# Sampling off: Enter/Leave as before, no calling contexts.
HP_ENABLE_TRACING=true HP_SAMPLING_FREQUENCY=0 HP_FILTERING_FILE=busy.filt \
    HP_EXPERIMENT_DIRECTORY=plain check "sampling off: run with tracing" ./busy 100
check "sampling off: Enter/Leave, no calling-context events or definitions" sh -c \
    "otf2-print plain/traces.otf2 > plain.events && otf2-print -G plain/traces.otf2 > plain.defs &&
     grep -q '^ENTER ' plain.events && ! grep -q '^CALLING_CONTEXT' plain.events &&
     ! grep -q '^CALLING_CONTEXT' plain.defs"

# A flushing buffer that overflows (loop.c, every call traced): each TRACE BUFFER FLUSH
# is a calling context below the path it interrupted, and no visit is lost.
check "build loop.c" hp-instrument gcc -O1 -o loop "$PROGRAMS/loop.c"
HP_TRACE_ADAPTIVE=false HP_SAMPLING_FREQUENCY=1000 HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=1M \
    HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=flush ./loop > /dev/null 2> flush.err
check "flush: otf2check.py --strict passes, TRACE BUFFER FLUSH as calling-context events" sh -c \
    "grep -q 'flushed to disk' flush.err && $OTF2CHECK flush/traces.otf2 > flush.check &&
     otf2-print flush/traces.otf2 | grep -q '^CALLING_CONTEXT_ENTER .*\"TRACE BUFFER FLUSH\"' &&
     otf2-print -G flush/traces.otf2 | grep -q '^CALLING_CONTEXT .*Region: \"TRACE BUFFER FLUSH\".*Parent: \"inner\"'"
# (the program's own regions: a sample in a PLT stub, loop@plt, adds a sampled region
# with a visit and no events)
check_eq "flush: enters = visits (100000 each)" \
    "$(profile_visits flush/profile.cubex | grep -E '^(main|loop|outer|inner) ')" \
    "$(trace_enters flush/traces.otf2 | grep -v '^TRACE BUFFER FLUSH ')"
finish
