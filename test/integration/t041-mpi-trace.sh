#!/bin/sh
# An MPI job with HP_ENABLE_TRACING=true: one archive for the job, written by all ranks,
# readable by otf2-print and otf2check.py, with one location per rank (id rank << 32)
# whose Enter events per region equal the unified profile's visits.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 5
OTF2CHECK="$PY $HP_SHARED/tools/otf2check.py"

check "build traffic.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o traffic "$PROGRAMS/mpi/traffic.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp check "mpiexec -n 4 with tracing" \
    timeout 120 mpiexec -n 4 ./traffic
check "otf2-print reads it" otf2-print exp/traces.otf2
check "otf2check.py passes" $OTF2CHECK exp/traces.otf2
trace_enters exp/traces.otf2 > enters.txt
profile_visits exp/profile.cubex 1 > visits.txt
check "Enter events per region and rank = profile visits" diff -u visits.txt enters.txt
finish
