#!/bin/sh
# Clocks: ranks exchange messages after deliberately skewed delays; in the trace every
# receive ends after its matching send began (timestamps of all ranks mapped onto one
# global time, corrected by the offsets to rank 0 measured at MPI_Init and MPI_Finalize).
. "$HP_SRCDIR/test/integration/lib.sh"
plan 5
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

check "build skew.c" hp-instrument mpicc -O1 -o skew "$PROGRAMS/mpi/skew.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp check "mpiexec -n 4 with tracing" \
    timeout 120 mpiexec -n 4 ./skew
check "otf2check.py passes" $OTF2CHECK exp/traces.otf2
# Pair sends and receives in order per (sender, receiver, tag): location ids are
# rank << 32, peers are ranks in MPI_COMM_WORLD.
otf2-print exp/traces.otf2 | awk '
    function rank(loc) { return int(loc / 4294967296) }
    $1 == "MPI_SEND" { match($0, /Receiver: [0-9]+/); to = substr($0, RSTART + 10, RLENGTH - 10)
                       match($0, /Tag: [0-9]+/); tag = substr($0, RSTART + 5, RLENGTH - 5)
                       k = rank($2) " " to " " tag; send[k, ns[k]++] = $3 }
    $1 == "MPI_RECV" { match($0, /Sender: [0-9]+/); from = substr($0, RSTART + 8, RLENGTH - 8)
                       match($0, /Tag: [0-9]+/); tag = substr($0, RSTART + 5, RLENGTH - 5)
                       k = from " " rank($2) " " tag; recv[k, nr[k]++] = $3 }
    END { pairs = 0; bad = 0
          for (k in ns) for (i = 0; i < ns[k]; i++) {
              if ((k, i) in recv) { pairs++; if (recv[k, i] < send[k, i]) bad++ } }
          print pairs, bad }' > pairs.txt
check_eq "16 matched messages" 16 "$(cut -d' ' -f1 pairs.txt)"
check_eq "no receive ends before its send began" 0 "$(cut -d' ' -f2 pairs.txt)"
finish
