#!/bin/sh
# Signal safety under stress: 10 kHz sampling of stress.c (malloc/free in tight loops on
# three threads per rank, MPI_Allreduce in a tight loop, longjmp out of deep recursion)
# on 2 ranks, as a --nocompiler build, an instrumented one and a plain one under hp-run.
# No crash, no hang (timeout), the same checksum as without measurement, valid profiles,
# and the threads that pthread_create started are sampled with their start routine on
# the path.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 14

SRC="$PROGRAMS/sampling/stress.c"
check "build stress.c plain" mpicc -O1 -g -o stress-plain "$SRC" -lpthread
check "build stress.c with --nocompiler" hp-instrument --nocompiler mpicc -O1 -o stress-nc "$SRC" -lpthread
check "build stress.c instrumented" hp-instrument mpicc -O1 -o stress "$SRC" -lpthread
expected=$(timeout 120 mpiexec -n 2 ./stress-plain)

HP_SAMPLING_FREQUENCY=10000 HP_THREAD_LOCATIONS=each HP_EXPERIMENT_DIRECTORY=nc check "--nocompiler at 10 kHz: runs to the end" \
    timeout 120 mpiexec -n 2 ./stress-nc
check_eq "--nocompiler: same checksum" "$expected" "$(cat "$WORK/last.out")"
HP_SAMPLING_FREQUENCY=10000 HP_EXPERIMENT_DIRECTORY=in check "instrumented at 10 kHz: runs to the end" \
    timeout 120 mpiexec -n 2 ./stress
check_eq "instrumented: same checksum" "$expected" "$(cat "$WORK/last.out")"
# hp-run preloads us into mpiexec and its proxies too: they must not be sampled (10 kHz
# signals in the launcher's event loop hung MPI_Init).
HP_SAMPLING_FREQUENCY=10000 HP_EXPERIMENT_DIRECTORY=run check "hp-run at 10 kHz: runs to the end" \
    timeout 120 hp-run mpiexec -n 2 ./stress-plain
check_eq "hp-run: same checksum" "$expected" "$(cat "$WORK/last.out")"
check "cubecheck.py passes on the three profiles" sh -c \
    "$CUBECHECK nc/profile.cubex && $CUBECHECK in/profile.cubex && $CUBECHECK run/profile.cubex"
# 2 ranks x (master + 2 workers, HP_THREAD_LOCATIONS=each); the workers' paths start at
# their start routine.
check "worker threads are sampled below their start routine" sh -c \
    "test \$($CUBEDUMP --locations nc/profile.cubex | wc -l) -eq 6 &&
     $CUBEDUMP nc/profile.cubex | grep -Eq '^stress-nc/worker(/[^	]*)?	[0-9]	visits=[1-9]'"
# C++ destructors on pthread_exit: the program's unwinder stays libgcc's.
EXIT_SRC="$PROGRAMS/sampling/thread_exit.cpp"
check "build thread_exit.cpp (plain, --nocompiler, instrumented)" sh -c "
    g++ -O1 -o exit-plain '$EXIT_SRC' -lpthread &&
    hp-instrument --nocompiler g++ -O1 -o exit-nc '$EXIT_SRC' -lpthread &&
    hp-instrument g++ -O1 -o exit-in '$EXIT_SRC' -lpthread"
check_eq "--nocompiler at 10 kHz: all 63 destructors run" "destructors 63" \
    "$(HP_SAMPLING_FREQUENCY=10000 HP_EXPERIMENT_DIRECTORY=exit-nc timeout 60 ./exit-nc 2>/dev/null)"
check_eq "instrumented at 10 kHz: all 63 destructors run" "destructors 63" \
    "$(HP_SAMPLING_FREQUENCY=10000 HP_EXPERIMENT_DIRECTORY=exit-in timeout 60 ./exit-in 2>/dev/null)"
finish
