#!/bin/sh
# Plug-ins around MPI calls (HP_PLUGINS, include/hp/plugin.h, doc/plugins.md): the CSV
# example of examples/plugins/ records exactly the selected MPI calls of a known program
# (peers, tags, bytes, communicator sizes), nothing of the unselected ones; it works under
# hp-run too; the iteration example starts its command at the N-th marker call and stops
# it at the M-th; broken plug-ins (missing file, no entry symbol, another API version, failing
# init, an unresolved symbol, not a shared object, too long a path) are reported by path and the job runs on with the same output.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 15

mpirun2() { timeout -k 10 "$HP_MPI_TIMEOUT" mpiexec -n 2 "$@"; }
plugin() { gcc -O1 -Wall -Wextra -shared -fPIC -I"$HP_SRCDIR/include" -o "$@"; }
# "function peer tag bytes_sent bytes_received comm_size count" of a CSV, sorted.
calls() {
    awk -F, 'NR > 1 { n[$3 " " $5 " " $6 " " $7 " " $8 " " $4]++ }
             END { for (k in n) print k, n[k] }' "$1" | LC_ALL=C sort
}

check "build the CSV example plug-in" plugin libcsv.so "$HP_SRCDIR/examples/plugins/csv_calls.c"
check "build site.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o site "$MPIPROGS/site.c"
HP_PLUGINS="$WORK/libcsv.so" HP_CSV_CALLS=MPI_Send,MPI_Recv,MPI_Barrier \
    HP_CSV_PREFIX="$WORK/calls" HP_EXPERIMENT_DIRECTORY=exp check "run with the plug-in" mpirun2 ./site
check_eq "rank 0: 10 sends to rank 1 with tags 0..9 (400 bytes each), 3 barriers" \
    "$(printf 'MPI_Barrier -1 -1 0 0 2 3\n'; for t in 0 1 2 3 4 5 6 7 8 9; do echo "MPI_Send 1 $t 400 0 2 1"; done)" \
    "$(calls calls-rank0.csv)"
check_eq "rank 1: 10 receives from rank 0, 3 barriers" \
    "$(printf 'MPI_Barrier -1 -1 0 0 2 3\n'; for t in 0 1 2 3 4 5 6 7 8 9; do echo "MPI_Recv 0 $t 0 400 2 1"; done)" \
    "$(calls calls-rank1.csv)"
check "begin <= end on every line, rank and thread columns right" awk -F, \
    'FNR > 1 && ($9 > $10 || $2 != 0 || $1 != substr(FILENAME, 11, 1)) { bad = 1 } END { exit bad }' \
    calls-rank0.csv calls-rank1.csv

check "build site.c with plain mpicc" mpicc -O1 -o site-plain "$MPIPROGS/site.c"
HP_PLUGINS="$WORK/libcsv.so" HP_CSV_CALLS=MPI_Send HP_CSV_PREFIX="$WORK/run" \
    HP_EXPERIMENT_DIRECTORY=exp-run check "hp-run with the plug-in" \
    timeout 60 hp-run mpiexec -n 2 ./site-plain
check_eq "hp-run: the 10 sends only" "10 MPI_Send" \
    "$(tail -n +2 run-rank0.csv | cut -d, -f3 | sort | uniq -c | awk '{ print $1, $2 }')"

# ---- broken plug-ins ------------------------------------------------------------------
printf 'int not_a_plugin;\n' > nosym.c
printf '#include <hp/plugin.h>\nconst hp_plugin hp_plugin_entry = { 99, "old", 0, 0, 0, 0 };\n' \
    > old.c
printf '#include <hp/plugin.h>\nstatic int no(const hp_plugin_host *h) { (void)h; return 1; }\nHP_PLUGIN_DEFINE("refuses", no, 0, 0, 0);\n' > refuses.c
printf 'void hp_no_such_function(void);\nvoid f(void) { hp_no_such_function(); }\n' > undef.c
plugin libnosym.so nosym.c && plugin libold.so old.c && plugin librefuses.so refuses.c &&
    plugin libundef.so undef.c
printf 'not a shared object, but long enough to hold an ELF header: %064d\n' 0 > garbage.so
long=$(printf '%01100d' 0 | tr 0 x) # longer than a path may be: reported, not cut to fit
HP_PLUGINS="$WORK/missing.so,$WORK/libnosym.so,$WORK/libold.so,$WORK/librefuses.so,$WORK/libundef.so,$WORK/garbage.so,$long" \
    HP_EXPERIMENT_DIRECTORY=exp-broken mpirun2 ./site >broken.out 2>broken.err
check_eq "broken plug-ins: the job succeeds with the same output" "0 sum=499500" \
    "$? $(cat broken.out)"
check_eq "each is reported once, by path, saying what is wrong" \
    "plug-in 'missing.so' cannot be loaded: missing.so: cannot open shared object file: No such file or directory|plug-in 'libnosym.so' lacks the symbol hp_plugin_entry (not an hpmeasure plug-in?)|plug-in 'libold.so' was built for plug-in API version 99, this hpmeasure has version 1|plug-in 'librefuses.so' failed to initialise: refuses|plug-in 'libundef.so' cannot be loaded: libundef.so: undefined symbol: hp_no_such_function|plug-in 'garbage.so' cannot be loaded: garbage.so: invalid ELF header|plug-in '$(echo "$long" | cut -c 1-1023)' has too long a path: at most 1023 bytes" \
    "$(grep 'HP_PLUGINS' broken.err | sed -e "s|$WORK/||g" -e 's/^hpmeasure: HP_PLUGINS: //' -e 's/; going on without it$//' | paste -sd'|')"
# ---- the iteration example: a command for iterations 2..4 of a loop marked by MPI_Barrier
check "build the iteration example plug-in" plugin libiter.so "$HP_SRCDIR/examples/plugins/iteration_cmd.c"
cat > loop.c <<'END'
/* 6 iterations of 0.2 s, each ending with MPI_Barrier; "progress" holds the iteration. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i <= 6; i++) {
        FILE *f = fopen("progress", "w");
        fprintf(f, "%d\n", i);
        fclose(f);
        MPI_Barrier(MPI_COMM_WORLD);
        struct timespec pause = { 0, 200000000 };
        nanosleep(&pause, NULL);
    }
    MPI_Finalize();
    return 0;
}
END
check "build the loop" hp-instrument mpicc -O1 -o loop loop.c
HP_PLUGINS="$WORK/libiter.so" HP_ITER_CALL=MPI_Barrier HP_ITER_FROM=2 HP_ITER_TO=4 \
    HP_ITER_COMMAND='cp progress started; trap "cp progress stopped; exit 0" TERM; while :; do sleep 0.02; done' \
    HP_EXPERIMENT_DIRECTORY=exp-iter check "run the loop with the iteration plug-in" \
    timeout -k 10 60 mpiexec -n 1 ./loop
check_eq "the command started in iteration 2 and was stopped in iteration 4" "2 4" \
    "$(cat started 2>&1) $(cat stopped 2>&1)"
finish
