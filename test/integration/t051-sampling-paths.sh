#!/bin/sh
# Call paths without compiler instrumentation: a --nocompiler build and a plain mpicc
# build under hp-run learn the paths of their MPI calls by unwinding in the wrappers,
# through a function in a shared library (main/compute/lib_exchange/MPI_Allreduce, 50
# calls per rank). HP_MPI_UNWIND_EXCLUDE keeps cheap calls from unwinding (they sit
# below the root), HP_SAMPLING_FREQUENCY=0 turns unwinding off, bad values are refused.
# Visits of sampled functions are lower bounds of the true counts.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 19

SRC="$PROGRAMS/sampling"
check "build the shared library" mpicc -O1 -g -fPIC -shared -o libpathlib.so "$SRC/libpath_lib.c"
check "build libpath.c with --nocompiler" \
    hp-instrument --nocompiler mpicc -O1 -o libpath "$SRC/libpath.c" -L. -lpathlib -Wl,-rpath,"$WORK"
check "build libpath.c with plain mpicc" \
    mpicc -O1 -g -o libpath-plain "$SRC/libpath.c" -L. -lpathlib -Wl,-rpath,"$WORK"

# "path rank visits" of the MPI calls (paths of MPI regions only), sorted.
mpi_paths() {
    $CUBEDUMP "$1" | awk -F'\t' '{ n = split($1, p, "/"); if (p[n] !~ /^MPI_/) next
                                   sub("visits=", "", $3); if ($3 > 0) print $1, $2, $3 }' |
        LC_ALL=C sort
}
expected() { # $1 = program name, $2 = where the excluded calls sit (default: the root)
    for r in 0 1; do
        echo "$1/${2:-}MPI_Comm_rank $r 1"
        echo "$1/${2:-}MPI_Comm_size $r 1"
        echo "$1/main/MPI_Barrier $r 1"
        echo "$1/main/MPI_Finalize $r 1"
        echo "$1/main/MPI_Init $r 1"
        echo "$1/main/compute/lib_exchange/MPI_Allreduce $r 50"
    done | LC_ALL=C sort
}

HP_EXPERIMENT_DIRECTORY=nc timeout 60 mpiexec -n 2 ./libpath > nc.out 2>&1
check_eq "--nocompiler: MPI call paths through the shared library" \
    "$(expected libpath)" "$(mpi_paths nc/profile.cubex)"
HP_EXPERIMENT_DIRECTORY=run timeout 60 hp-run mpiexec -n 2 ./libpath-plain > run.out 2>&1
check_eq "hp-run: the same paths for the plain build" \
    "$(expected libpath-plain)" "$(mpi_paths run/profile.cubex)"
check_eq "program output unchanged under hp-run" "total 1250.0" "$(cat run.out)"
HP_MPI_UNWIND_EXCLUDE= HP_EXPERIMENT_DIRECTORY=all timeout 60 mpiexec -n 2 ./libpath > /dev/null 2>&1
check_eq "HP_MPI_UNWIND_EXCLUDE empty: every MPI call unwinds" \
    "$(expected libpath main/)" "$(mpi_paths all/profile.cubex)"
HP_SAMPLING_FREQUENCY=0 HP_EXPERIMENT_DIRECTORY=off timeout 60 mpiexec -n 2 ./libpath > /dev/null 2>&1
check_eq "HP_SAMPLING_FREQUENCY=0: no unwinding, MPI calls below the root" \
    "$(mpi_paths off/profile.cubex | grep -c '^libpath/MPI_')" "$(mpi_paths off/profile.cubex | wc -l)"
check "cubecheck.py passes" sh -c "$CUBECHECK nc/profile.cubex && $CUBECHECK run/profile.cubex"
# Visits of sampled functions are lower bounds; MPI calls' visits stay exact.
check "build visits.c with --nocompiler" hp-instrument --nocompiler mpicc -O1 -o visits "$SRC/visits.c"
HP_EXPERIMENT_DIRECTORY=vis timeout 60 mpiexec -n 2 ./visits > /dev/null 2>&1
visits_ok() {
    $CUBEDUMP vis/profile.cubex | awk -F'\t' '
        { sub("visits=", "", $3); v[$1 " " $2] = $3 + 0 }
        END { for (r = 0; r < 2; r++) {
                  if (v["visits/main " r] != 1) exit 1
                  c = v["visits/main/compute " r]; if (c < 1 || c > 5) exit 1
                  w = v["visits/main/compute/work " r]; if (w < 90 || w > 100) exit 1
                  if (v["visits/main/compute/MPI_Barrier " r] != 100) exit 1 } }'
}
check "visits: main 1, compute 1..5, work 90..100 (lower bounds), MPI_Barrier 100 per rank" \
    visits_ok
# A serial program: time in libm below main, and its PLT stubs named as such.
check "build libm_loop.c with --nocompiler (no MPI)" \
    hp-instrument --nocompiler gcc -O1 -fno-builtin -o libm_loop "$SRC/libm_loop.c" -lm
HP_EXPERIMENT_DIRECTORY=libm ./libm_loop > /dev/null 2>&1
check "libm's sin below main, the PLT stubs as libm_loop@plt" sh -c "
    $CUBEDUMP --paths libm/profile.cubex > libm-paths.txt &&
    grep -Eq '^libm_loop/main/(__)?sin' libm-paths.txt &&
    grep -qx 'libm_loop/main/libm_loop@plt' libm-paths.txt"
# libm's debug information, when installed, is the distribution's separate file under
# /usr/lib/debug: its source paths are the distribution's build tree, not read (sampling.md).
libm_id=$(readelf -n "$(ldd ./libm_loop | awk '/libm\.so/ { print $3 }')" 2>/dev/null |
    awk '/Build ID/ { print $3 }')
if [ -n "$libm_id" ] && [ -f "/usr/lib/debug/.build-id/$(echo "$libm_id" | cut -c1-2)/$(echo "$libm_id" | cut -c3-).debug" ]; then
    check_eq "sin from a distribution debug file: no file and line; main keeps its own" \
        "sin: -1 main: libm_loop.c" \
        "$($CUBEDUMP --regions libm/profile.cubex | awk -F'\t' '
            $2 ~ /^(__)?sin/ { s = "sin:" $4 " " $5 }
            $2 == "main" && $5 > 0 { n = split($4, p, "/"); m = "main: " p[n] }
            END { print s, m }')"
else
    ok "sin from a distribution debug file: no file and line # SKIP libm has no debug file under /usr/lib/debug"
fi
# Programs that use SIGPROF themselves: sampling has its own signal.
check "build own_sigprof.c with --nocompiler" \
    hp-instrument --nocompiler gcc -O1 -o own_sigprof "$SRC/own_sigprof.c" -lpthread
HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=prof check \
    "a program that resets SIGPROF and counts its own ITIMER_PROF ticks is undisturbed" \
    sh -c './own_sigprof > prof.out && grep -qx "ticks about 30" prof.out'
HP_SAMPLING_FREQUENCY=1000 HP_EXPERIMENT_DIRECTORY=rt ./own_sigprof rt > /dev/null 2> rt.err
check "a program that takes sampling's signal: stderr names it" \
    grep -q "the program replaced the handler of signal .* (SIGRTMIN+6)" rt.err
expect_fail "bad HP_MPI_UNWIND_EXCLUDE: the variable and the name" \
    "HP_MPI_UNWIND_EXCLUDE: unknown MPI function 'MPI_Bogus'" \
    env HP_MPI_UNWIND_EXCLUDE=MPI_Bogus mpiexec -n 1 ./libpath
expect_fail "HP_SAMPLING_FREQUENCY above 20000 Hz" \
    "HP_SAMPLING_FREQUENCY.*0 \(off\) up to 20000 Hz" \
    env HP_SAMPLING_FREQUENCY=50000 mpiexec -n 1 ./libpath
finish
