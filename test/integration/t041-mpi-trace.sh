#!/bin/sh
# An MPI job with HP_ENABLE_TRACING=true: one archive for the job, written by all ranks,
# readable by otf2-print and otf2check.py, with one location per rank (id rank << 32)
# whose Enter events per region equal the unified profile's visits, and the message and
# collective events: per rank 3 MpiSend and 3 MpiRecv (the ring's 2 + MPI_Sendrecv's 1;
# the MPI_PROC_NULL ones move nothing), 3 MpiIsend + MpiIsendComplete and 3
# MpiIrecvRequest + MpiIrecv (completed by one MPI_Waitall), all matched, and 8
# collectives with Begin and End: 7 on MPI_COMM_WORLD (2 Allreduce, Bcast, Alltoall,
# Barrier, 2 Reduce) and an Allreduce on the split communicator (t043 tests more). The
# otf2 Python bindings, a second reader, agree with otf2-print and the profile.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 12
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

check "build traffic.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o traffic "$PROGRAMS/mpi/traffic.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp check "mpiexec -n 4 with tracing" \
    timeout 120 mpiexec -n 4 ./traffic
check "otf2-print reads it" otf2-print exp/traces.otf2
check "otf2check.py passes" $OTF2CHECK exp/traces.otf2
trace_enters exp/traces.otf2 > enters.txt
profile_visits exp/profile.cubex 1 > visits.txt
check "Enter events per region and rank = profile visits" diff -u visits.txt enters.txt
check "python3-otf2 (second reader) agrees with otf2-print on every event" \
    $PY "$HP_SRCDIR/test/tools/otf2_second_reader.py" exp/traces.otf2
$PY "$HP_SRCDIR/test/tools/otf2_second_reader.py" --enters exp/traces.otf2 > py-enters.txt
check "python3-otf2's Enter events per region and rank = profile visits" diff -u visits.txt py-enters.txt
otf2-print exp/traces.otf2 | awk '$1 ~ /^MPI_/ { n[$1 " " $2]++ } END { for (k in n) print k, n[k] }' |
    LC_ALL=C sort > mpi-events.txt
for r in 0 1 2 3; do
    loc=$(awk -v r=$r 'BEGIN { printf "%.0f", r * 4294967296 }')
    for e in MPI_COLLECTIVE_BEGIN:8 MPI_COLLECTIVE_END:8 MPI_RECV:3 MPI_SEND:3 MPI_ISEND:3 \
             MPI_ISEND_COMPLETE:3 MPI_IRECV_REQUEST:3 MPI_IRECV:3; do
        echo "${e%:*} $loc ${e#*:}"
    done
done | LC_ALL=C sort > mpi-expected.txt
check "MpiSend/MpiRecv/collective events per rank" diff -u mpi-expected.txt mpi-events.txt
$OTF2CHECK exp/traces.otf2 > check.txt 2>&1
check "24 sends, 24 receives, 24 matched pairs" grep -q "p2p: 24 sends, 24 receives, 24 matched pairs" check.txt
check "9 collective instances: 7 on MPI_COMM_WORLD, 1 on each half" \
    grep -q "collectives: 9 collective instances on 3 communicators" check.txt
check_eq "Bcast's end on rank 1 (root) sent 400 bytes" "1" \
    "$(otf2-print exp/traces.otf2 | grep -c 'MPI_COLLECTIVE_END .* 4294967296 .*Operation: BCAST.*Root: 1.*Sent: 400')"
check_eq "ProgramBegin and ProgramEnd once on each rank's master location, named after the program" \
    "$(for r in 0 4294967296 8589934592 12884901888; do echo "PROGRAM_BEGIN $r"; echo "PROGRAM_END $r"; done | LC_ALL=C sort)" \
    "$(otf2-print exp/traces.otf2 | awk '$1 ~ /^PROGRAM_/ && ($1 == "PROGRAM_END" || /Name: "traffic"/) { print $1, $2 }' | LC_ALL=C sort)"
finish
