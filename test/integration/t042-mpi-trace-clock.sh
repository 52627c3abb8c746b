#!/bin/sh
# Clocks: ranks exchange messages after deliberately skewed delays, and in tight round
# trips (also with trace buffer flushes); in the trace every receive ends after its
# matching send began (timestamps of all ranks mapped onto one global time). The ranks
# of one host share one tick-to-time mapping (doc/tracing.md, "Clocks"), so no
# timestamp is corrected backwards and every location's ClockOffset definitions carry
# the same two measurement times, with an uncertainty of 0 on rank 0's host. MPICH's
# MPIR_CVAR_ODD_EVEN_CLIQUES=1 makes odd and even ranks two pretend hosts: then the odd
# host's ranks share one measured, positive uncertainty.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 24
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

# "location time offset stddev" of every ClockOffset definition, sorted by location.
clock_offsets() {
    otf2-print -C "$1" | awk '$1 == "CLOCK_OFFSET" {
        gsub(/,/, ""); print $2, $4, $6, $8 }' | sort -n -k1,1 -k2,2
}

check "build skew.c" hp-instrument mpicc -O1 -o skew "$PROGRAMS/mpi/skew.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp check "mpiexec -n 4 with tracing" \
    timeout 120 mpiexec -n 4 ./skew
cp last.err skew.err
check_eq "no timestamp went backwards (stderr)" 0 "$(grep -c 'went backwards' skew.err)"
check "otf2check.py --strict passes" $OTF2CHECK --strict exp/traces.otf2
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
clock_offsets exp/traces.otf2 > offsets.txt
check_eq "two ClockOffsets per rank, offset 0, uncertainty 0 on rank 0's host" \
    "8 8 8" "$(awk '{ n++; z += $3 == "+0"; e += $4 == "0" } END { print n, z, e }' offsets.txt)"
check_eq "one host, one mapping: the same two measurement times on every rank" 2 \
    "$(cut -d' ' -f2 offsets.txt | sort -u | wc -l)"

# Tight round trips: margins of a message latency.
check "build pingpong_pairs.c" hp-instrument mpicc -O1 -o pingpong "$PROGRAMS/mpi/pingpong_pairs.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=pp check "pingpong: mpiexec -n 4 with tracing" \
    timeout 120 mpiexec -n 4 ./pingpong
check_eq "pingpong: result" "total=181200" "$(cat last.out)"
check_eq "pingpong: no timestamp went backwards (stderr)" 0 "$(grep -c 'went backwards' last.err)"
# --strict: a message received before it was sent is a warning, hence a failure
check "pingpong: otf2check.py --strict passes (1200 messages in order)" \
    sh -c "$OTF2CHECK --strict pp/traces.otf2 && $OTF2CHECK pp/traces.otf2 | grep -q ' 1200 matched pairs'"

# A small trace buffer: flushes fall between an MPI call's start and the events it
# appends at its end (MpiSend with the start's time); the flush region goes after them.
HP_TRACE_BUFFER=256K HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=flush \
    check "flushes: mpiexec -n 2, 8000 round trips" timeout 120 mpiexec -n 2 ./pingpong 8000
check_eq "flushes: result" "total=64000000" "$(cat last.out)"
check_eq "flushes: the buffer was flushed, no timestamp went backwards" "1 0" \
    "$(grep -c 'flushed to disk' last.err) $(grep -c 'went backwards' last.err)"
check "flushes: otf2check.py --strict passes" $OTF2CHECK --strict flush/traces.otf2
# With a counter, each Enter and Leave has metric events at its time: a flush between
# them moves the rest of the group, never one event alone.
check "build ring_calls.c" hp-instrument mpicc -O1 -o ring "$PROGRAMS/mpi/ring_calls.c"
HP_METRIC_RUSAGE=ru_minflt HP_OVERHEAD_BUDGET=0 HP_TRACE_BUFFER=256K HP_ENABLE_TRACING=true \
    HP_EXPERIMENT_DIRECTORY=metric check "flushes with a counter: mpiexec -n 2" \
    timeout 120 mpiexec -n 2 ./ring 2000
check_eq "flushes with a counter: result" "total=3998000 calls=1180000" "$(cat last.out)"
check_eq "flushes with a counter: no timestamp went backwards" "1 0" \
    "$(grep -c 'flushed to disk' last.err) $(grep -c 'went backwards' last.err)"
check "flushes with a counter: otf2check.py --strict passes" \
    $OTF2CHECK --strict metric/traces.otf2

# Two pretend hosts: ranks 1 and 3 share their leader's measured offset and uncertainty.
MPIR_CVAR_ODD_EVEN_CLIQUES=1 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=two \
    timeout 120 mpiexec -n 4 ./skew > /dev/null 2> two.err
clock_offsets two/traces.otf2 > two.txt
# per rank: "time1 sd1 time2 sd2"
awk '{ r = int($1 / 4294967296); v[r] = v[r] (v[r] == "" ? "" : " ") $2 " " $4 }
     END { for (r = 0; r < 4; r++) print r, v[r] }' two.txt > two-ranks.txt
check_eq "two hosts: ranks 0 and 2 share one mapping, uncertainty 0" "0 0" \
    "$(awk '$1 == 0 || $1 == 2 { print $3, $5 }' two-ranks.txt | sort -u)"
check_eq "two hosts: ranks 1 and 3 share one measured uncertainty (> 0)" "1 yes" \
    "$(awk '$1 == 1 || $1 == 3 { print $2, $3, $4, $5 }' two-ranks.txt | sort -u |
       awk '{ n++; pos = ($2 > 0 && $4 > 0) ? "yes" : "no" } END { print n, pos }')"
finish
