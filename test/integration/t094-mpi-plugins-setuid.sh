#!/bin/sh
# HP_PLUGINS is refused in set-user-ID programs (doc/plugins.md, doc/security.md): a
# program whose effective user differs from the real one (the kernel then sets AT_SECURE)
# runs as usual, says once that it measures nothing, and loads no plug-in; the same
# program without the set-user-ID bit loads the plug-in. (t100 covers the other
# variables that name files.) Making such a program
# needs root and a file system without nosuid; otherwise the whole test is skipped (TAP
# "1..0 # SKIP", which the harness reports as SKIP). The program is owned by "nobody" and
# started by root, so it runs with real user root and effective user nobody; it runs on
# one rank, because MPICH's shared-memory transport cannot reach the /proc files of a
# set-user-ID peer.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"

skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root to make a set-user-ID program (running as uid $(id -u))"
case ",$(findmnt -n -o OPTIONS -T "$WORK" 2>/dev/null)," in
*,nosuid,*) skip_all "$WORK is on a file system mounted nosuid" ;;
esac
[ -z "${HP_ASAN_RUNTIME:-}" ] ||
    skip_all "sanitizer build: the dynamic linker ignores the preloaded ASan runtime in set-user-ID programs"
NOBODY=$(id -u nobody 2>/dev/null) || skip_all "no user 'nobody' to own the program"
# It runs as nobody: its libraries (the install tree) and the work directory must be
# reachable by nobody, which a checkout below a private directory (mode 700) is not.
for dir in "$WORK" "${HP_INSTRUMENT_LIBDIR:-$WORK}"; do
    runuser -u nobody -- test -x "$dir" 2>/dev/null ||
        skip_all "user nobody cannot reach $dir (a directory above it is private)"
done
plan 7

cat > barriers.c <<'END'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    printf("3 barriers\n");
    MPI_Finalize();
    return 0;
}
END
check "build the CSV example plug-in" gcc -O1 -shared -fPIC -I"$HP_SRCDIR/include" \
    -o libcsv.so "$HP_SRCDIR/examples/plugins/csv_calls.c"
check "build barriers.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o barriers barriers.c
cp barriers barriers-suid && chown "$NOBODY" barriers barriers-suid && chmod u+s barriers-suid
mkdir out && chmod 777 out # the set-user-ID program writes as nobody
# run NAME PROGRAM: one rank with the CSV plug-in selecting MPI_Barrier.
run() {
    HP_PLUGINS="$WORK/libcsv.so" HP_CSV_CALLS=MPI_Barrier HP_CSV_PREFIX="$WORK/out/$1" \
        HP_EXPERIMENT_DIRECTORY="$WORK/out/exp-$1" timeout -k 10 "$HP_MPI_TIMEOUT" \
        mpiexec -n 1 "$2" >"$1.out" 2>"$1.err"
    echo "$? $(cat "$1.out")"
}
check_eq "set-user-ID: the program runs as usual" "0 3 barriers" "$(run suid ./barriers-suid)"
check_eq "set-user-ID: HP_PLUGINS is refused with everything else, once, with a message" \
    "hpmeasure: this program runs with raised rights (set-user-ID, set-group-ID or file capabilities): measuring nothing, the HP_* variables are ignored. Measure a copy without the set-user-ID bit instead (doc/security.md)" \
    "$(cat suid.err)"
check_eq "set-user-ID: the plug-in wrote nothing, nor the measurement" "" "$(ls out)"
check_eq "the same program without the bit runs as usual" "0 3 barriers" \
    "$(run plain ./barriers)"
check_eq "without the bit the plug-in records the 3 barriers" "3" \
    "$(tail -n +2 out/plain-rank0.csv | grep -c ',MPI_Barrier,')"
finish
