#!/bin/sh
# A PMPI tool compiled into the program (doc/mpi.md, "Other PMPI tools": an order that
# cannot work, since the program's own definitions always come first) that wraps
# MPI_Send and MPI_Finalize but not MPI_Init: MPI_Init reaches hpmeasure, MPI_Finalize
# does not. Each rank then writes its own profile at exit and says that its
# MPI_Finalize reached MPI without us, naming the program; it used to say "rank N ended
# without MPI_Finalize", which the program did call. A rank that really ends without
# MPI_Finalize still says so (t062).
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 6
export HP_SAMPLING_FREQUENCY=0

cat >tool.c <<'EOF2'
#include <mpi.h>
#include <stdio.h>
static int sends;
int MPI_Send(const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c)
{
    sends++;
    return PMPI_Send(b, n, t, dst, tag, c);
}
int MPI_Finalize(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("tool: rank %d sent %d\n", rank, sends);
    return PMPI_Finalize();
}
EOF2
check "build traffic.c with the tool compiled in, with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o compiled-in "$MPIPROGS/traffic.c" tool.c
check "build it plain" mpicc -O1 -o plain "$MPIPROGS/traffic.c" tool.c
mpirun4 ./plain 2>/dev/null | LC_ALL=C sort >plain.out
HP_EXPERIMENT_DIRECTORY="$WORK/exp" mpirun4 ./compiled-in >run.out 2>run.err
rc=$?
check_eq "status 0, the program's and the tool's output as without hpmeasure" \
    "0 $(paste -sd, plain.out)" "$rc $(LC_ALL=C sort run.out | paste -sd,)"
expected=""
for r in 0 1 2 3; do
    expected="$expected${expected:+
}hpmeasure: rank $r called MPI_Finalize, but ./compiled-in defines it before hpmeasure, so the call reached MPI without us; writing this rank's own profile-rank$r.cubex (see doc/mpi.md, \"Other PMPI tools\")"
done
check_eq "each rank says its MPI_Finalize reached MPI without us, naming the program" \
    "$expected" "$(grep -F 'called MPI_Finalize' run.err | LC_ALL=C sort)"
check_eq "no rank claims it ended without MPI_Finalize" "0" \
    "$(grep -c 'ended without MPI_Finalize' run.err)"
check_eq "each rank wrote its own profile" \
    "profile-rank0.cubex profile-rank1.cubex profile-rank2.cubex profile-rank3.cubex" \
    "$(cd exp && ls profile-rank*.cubex | paste -sd' ')"
finish
