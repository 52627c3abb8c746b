#!/bin/sh
# hp-run measures a program built with plain mpicc, through LD_PRELOAD: one experiment
# for the job (nothing from mpiexec or its proxies), MPI call paths from unwinding (hp-run
# samples by default), and per MPI function and rank the same visits and bytes as the instrumented build.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 9

TRAFFIC="$PROGRAMS/mpi/traffic.c"
check "build traffic.c with plain mpicc" mpicc -O1 -o traffic-plain "$TRAFFIC"
check "build traffic.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o traffic "$TRAFFIC"
HP_EXPERIMENT_DIRECTORY=run check "hp-run mpiexec -n 4 ./traffic-plain" \
    timeout 60 hp-run mpiexec -n 4 ./traffic-plain
check_eq "program output unchanged" "$(mpiexec -n 4 ./traffic-plain)" "$(cat "$WORK/last.out")"
check_eq "exactly one experiment directory" "run" "$(ls -d run* hp-* 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
check "cubecheck.py passes" $CUBECHECK run/profile.cubex
HP_EXPERIMENT_DIRECTORY=inst timeout 60 mpiexec -n 4 ./traffic > /dev/null 2>&1

# Per (MPI function, rank): visits, bytes sent and received summed over call paths.
sums() {
    $CUBEDUMP "$1" | awk -F'\t' '
        { n = split($1, part, "/"); f = part[n]; if (f !~ /^MPI_/) next
          for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          key = f " " $2; vis[key] += v["visits"]; s[key] += v["bytes_sent"]; r[key] += v["bytes_received"] }
        END { for (k in vis) print k, vis[k], s[k], r[k] }' | LC_ALL=C sort
}
sums run/profile.cubex > run-sums.txt
sums inst/profile.cubex > inst-sums.txt
# hp-run samples by default, so MPI calls learn their call path by unwinding; only the
# functions of HP_MPI_UNWIND_EXCLUDE's default stay directly below the program root.
$CUBEDUMP --paths run/profile.cubex | grep MPI_ > paths.txt
check "MPI calls sit below main (unwound), excluded cheap ones below the root" sh -c \
    "grep -q '^traffic-plain/main/ring/MPI_Send\$' paths.txt &&
     ! grep -v '^traffic-plain/main/' paths.txt |
       grep -vxE 'traffic-plain/MPI_(Comm_rank|Comm_size|Wtime|Test|Testall|Testany|Testsome|Iprobe)'"
check "same visits and bytes per MPI function and rank as the instrumented build" \
    diff -u inst-sums.txt run-sums.txt
dry=$(unsanitized hp-run --dry-run mpiexec -n 2 ./x)
check "hp-run --dry-run shows the preload" sh -c \
    'printf "%s\n" "$1" | grep -q "^HP_SAMPLING_FREQUENCY=1000 LD_PRELOAD=.*/libhpmeasure_mpi_preload.so mpiexec -n 2 ./x$"' \
    sh "$dry"
finish
