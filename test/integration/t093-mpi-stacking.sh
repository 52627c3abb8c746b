#!/bin/sh
# Stacking with another PMPI tool (doc/mpi.md, "Other PMPI tools"): a tool that counts
# the MPI calls of traffic.c (test/programs/mpi/pmpi_count.c), linked or preloaded with
# hpmeasure, sees exactly the calls it sees without us, on every rank, and hpmeasure's
# profile has the same visits per MPI function and rank. Both hp-instrument (the tool
# on the link line, with and without --no-as-needed) and hp-run (the tool linked into the
# program, or preloaded by the user) work. When the tool comes first (linked by hand
# before libhpmeasure_mpi, or preloaded before us), the tool still sees every call, the
# program's output is the same, and hpmeasure names the tool on stderr; a tool that
# defines some MPI functions only, first, is named with them after MPI_Init.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 23

TRAFFIC="$MPIPROGS/traffic.c"
TOOL="-L$WORK -Wl,-rpath,$WORK -lpmpi_count"
PRELOAD_LIB="$HP_RUN_LIBDIR/libhpmeasure_mpi_preload.so"
export HP_SAMPLING_FREQUENCY=0 HP_MPI_ENABLE_GROUPS=all

# "function rank count" for every line the tool printed at MPI_Finalize, sorted.
tool_counts() {
    awk '$1 == "pmpi_count" && $2 == "rank" {
             r = $3; sub(/:$/, "", r)
             for (i = 4; i <= NF; i++) { split($i, kv, "="); print kv[1], r, kv[2] } }' "$1" |
        LC_ALL=C sort
}
# "function rank visits" from a profile, for the functions the tool counts, sorted.
our_counts() {
    $CUBEDUMP "$1" | awk -F'\t' -v names="$(cut -d' ' -f1 baseline.txt | sort -u | paste -sd' ')" '
        BEGIN { n = split(names, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 }
        { k = split($1, part, "/"); f = part[k]; if (!(f in want)) next
          for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "visits") v[f " " $2] += kv[2] } }
        END { for (key in v) print key, v[key] }' | LC_ALL=C sort
}
# stacked NAME COMMAND... : runs the command (an mpiexec, hp-run or env) under a time
# limit into experiment NAME; ok when it succeeds with the plain program's output and
# the tool's counts.
stacked() {
    _name=$1
    shift
    HP_EXPERIMENT_DIRECTORY="$WORK/exp-$_name" timeout -k 10 "$HP_MPI_TIMEOUT" "$@" \
        >"$_name.out" 2>"$_name.err"
    _rc=$?
    tool_counts "$_name.err" >"$_name.tool.txt"
    check_eq "$_name: status 0, same output, the tool sees the same calls on every rank" \
        "0 $(cat plain.out) $(cat baseline.txt | paste -sd,)" \
        "$_rc $(cat "$_name.out") $(paste -sd, "$_name.tool.txt")"
}
# measured NAME : our visits in experiment NAME equal the tool's counts.
measured() {
    our_counts "exp-$1/profile.cubex" >"$1.ours.txt" 2>&1
    check "$1: hpmeasure's visits per MPI function and rank equal the tool's counts" \
        diff -u baseline.txt "$1.ours.txt"
}

check "build the PMPI tool libpmpi_count.so" mpicc -O1 -shared -fPIC -o libpmpi_count.so \
    "$MPIPROGS/pmpi_count.c"
check "build traffic.c plain" mpicc -O1 -o plain "$TRAFFIC"
# shellcheck disable=SC2086
check "build traffic.c plain with the tool" mpicc -O1 -o plain-tool "$TRAFFIC" $TOOL
mpirun4 ./plain >plain.out 2>plain.err
mpirun4 ./plain-tool >plain-tool.out 2>plain-tool.err
tool_counts plain-tool.err >baseline.txt
check_eq "without hpmeasure the tool counts traffic.c's calls: 17 functions x 4 ranks, 3 sends" \
    "68 4" "$(wc -l <baseline.txt) $(grep -c '^MPI_Send [0-3] 3$' baseline.txt)"

# ---- link mode --------------------------------------------------------------------------
# shellcheck disable=SC2086
check "hp-instrument mpicc, the tool after the sources" \
    hp-instrument mpicc -O1 -o inst-after "$TRAFFIC" $TOOL
stacked inst-after mpiexec -n 4 ./inst-after
measured inst-after
# shellcheck disable=SC2086
check "hp-instrument mpicc, -Wl,--no-as-needed and the tool before the sources" \
    hp-instrument mpicc -O1 -o inst-before -Wl,--no-as-needed $TOOL "$TRAFFIC"
stacked inst-before mpiexec -n 4 ./inst-before
measured inst-before
check_eq "our library comes before the tool in the program's needed libraries" \
    "libhpmeasure_mpi.so libpmpi_count.so" \
    "$(readelf -d inst-after | sed -n 's/.*(NEEDED).*\[\(lib[a-z_]*\.so\)\]$/\1/p' | paste -sd' ')"

# ---- preload mode -----------------------------------------------------------------------
stacked run-linked hp-run mpiexec -n 4 ./plain-tool
measured run-linked
# (A sanitizer build's runtime stays first in LD_PRELOAD, lib.sh.)
stacked run-preloaded env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$WORK/libpmpi_count.so" \
    hp-run mpiexec -n 4 ./plain
measured run-preloaded

# ---- orders that cannot work: the tool first --------------------------------------------
bypass_message="hpmeasure: MPI_Init is defined by $WORK/libpmpi_count.so, which comes before hpmeasure"
check "link by hand: the tool before libhpmeasure_mpi" mpicc -O1 -o by-hand "$TRAFFIC" \
    -L"$WORK" -Wl,-rpath,"$WORK" -lpmpi_count -L"$HP_INSTRUMENT_LIBDIR" \
    -Wl,-rpath,"$HP_INSTRUMENT_LIBDIR" -Wl,--no-as-needed -lhpmeasure_mpi
stacked by-hand mpiexec -n 4 ./by-hand
check_eq "by-hand: rank 0 names the tool that came first, once" "1" \
    "$(grep -cF "$bypass_message" by-hand.err)"
stacked tool-first env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$WORK/libpmpi_count.so:$PRELOAD_LIB" \
    mpiexec -n 4 ./plain
check_eq "tool-first: rank 0 names the tool that came first, once" "1" \
    "$(grep -cF "$bypass_message" tool-first.err)"
# A tool that wraps MPI_Send only, linked first: the rest is measured, MPI_Send is named.
printf '#include <mpi.h>\nint MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)\n{ return PMPI_Send(b, n, t, d, tag, c); }\n' > sendonly.c
check "link by hand: a tool defining only MPI_Send before libhpmeasure_mpi" sh -c \
    "mpicc -O1 -shared -fPIC -o libsendonly.so sendonly.c && mpicc -O1 -o partial '$TRAFFIC' \
     -L'$WORK' -Wl,-rpath,'$WORK' -lsendonly -L'$HP_INSTRUMENT_LIBDIR' \
     -Wl,-rpath,'$HP_INSTRUMENT_LIBDIR' -Wl,--no-as-needed -lhpmeasure_mpi"
HP_EXPERIMENT_DIRECTORY="$WORK/exp-partial" timeout -k 10 "$HP_MPI_TIMEOUT" \
    mpiexec -n 4 ./partial >partial.out 2>partial.err
check_eq "partial: rank 0 names MPI_Send and the tool, once" \
    "hpmeasure: 1 MPI function (MPI_Send) is defined first by $WORK/libsendonly.so, so its calls reach MPI without us and are not measured; link or preload that PMPI tool after hpmeasure (see doc/mpi.md, \"Other PMPI tools\")" \
    "$(grep '^hpmeasure: ' partial.err)"
check_eq "partial: MPI_Recv measured (3 per rank), MPI_Send not" "12 0" \
    "$(our_counts exp-partial/profile.cubex | awk '$1 == "MPI_Recv" { r += $3 } $1 == "MPI_Send" { s += $3 } END { print r + 0, s + 0 }')"
finish
