#!/bin/sh
# Traces of communicators the program creates, non-blocking messages and the v/scan
# collectives (test/programs/mpi/comms.c on 4 ranks, whose comment lists the traffic):
# the Comm definitions (names, parents, COMM_GROUP members as MPI_COMM_WORLD ranks), the
# exact per-rank counts of every MPI event kind (non-blocking collectives included),
# matched message pairs with peers and
# roots as ranks in the communicator, the actual source of MPI_ANY_SOURCE receives,
# otf2check.py, and Enter counts = profile visits. Then the archive failing to open on
# one rank only (access() denied there by an LD_PRELOAD shim): no hang, one message, the
# profile still written, no archive.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 24
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

# comm_defs ARCHIVE: "comm ID [NAME] parent PARENT" and "group ID  MEMBER..." (the
# COMM_GROUP / COMM_SELF groups, members as COMM_LOCATIONS indices = world ranks).
comm_defs() {
    otf2-print -G "$1" | awk '
        $1 == "COMM" { name = $0; sub(/^.*Name: "/, "", name); sub(/".*$/, "", name)
                       parent = $0; sub(/^.*Parent: /, "", parent); sub(/,.*$/, "", parent)
                       sub(/ <[0-9]+>$/, "", parent); gsub(/"/, "", parent)
                       print "comm", $2, "[" name "]", "parent", parent }
        $1 == "GROUP" && /COMM_GROUP|COMM_SELF/ {
                       m = $0; sub(/^.*Members?:? ?/, "", m); members = ""
                       while (match(m, /(^|, )[0-9]+ \(/)) {
                           r = substr(m, RSTART, RLENGTH); gsub(/[^0-9]/, "", r)
                           members = members " " r; m = substr(m, RSTART + RLENGTH) }
                       print "group", $2, members }'
}

check "build comms.c with hp-instrument mpicc" hp-instrument mpicc -O1 -o comms "$MPIPROGS/comms.c"
check "mpiexec -n 4 with tracing" mpirun4 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp ./comms
check "otf2-print reads it" otf2-print exp/traces.otf2
check "otf2check.py passes" $OTF2CHECK exp/traces.otf2
$OTF2CHECK exp/traces.otf2 > check.txt 2>&1
# On failure the log shows which warning it was (seen once in a distcheck run on a busy
# machine, not reproduced since).
check "no errors or warnings from otf2check.py" sh -c \
    'grep -q "SUMMARY: PASS  errors=0 warnings=0" check.txt || { grep -E "^(WARN|ERROR)" check.txt; false; }'

# Definitions: WORLD and SELF, then the created ones, parents first, otherwise in the
# order of their creators' (world rank, creation) keys: "even" (rank 0's first), "world
# dup" (rank 0's second), the Cartesian ring made from it (rank 0's third, unnamed),
# "odd" (rank 1's first). Groups: 0 COMM_LOCATIONS, comm c uses group c + 1.
comm_defs exp/traces.otf2 > defs.txt
cat > defs-expected.txt <<'EOF'
group 1  0 1 2 3
group 2 
group 3  0 2
group 4  0 1 2 3
group 5  0 1 2 3
group 6  1 3
comm 0 [MPI_COMM_WORLD] parent UNDEFINED
comm 1 [MPI_COMM_SELF] parent UNDEFINED
comm 2 [even] parent MPI_COMM_WORLD
comm 3 [world dup] parent MPI_COMM_WORLD
comm 4 [] parent world dup
comm 5 [odd] parent MPI_COMM_WORLD
EOF
check "Comm and COMM_GROUP definitions" diff -u defs-expected.txt defs.txt

# Event counts per rank (location rank << 32).
otf2-print exp/traces.otf2 |
    awk '$1 ~ /^(MPI_|NON_BLOCKING_)/ { n[$1 " " $2]++ } END { for (k in n) print k, n[k] }' |
    LC_ALL=C sort > mpi-events.txt
for r in 0 1 2 3; do
    loc=$(awk -v r=$r 'BEGIN { printf "%.0f", r * 4294967296 }')
    # the half's blocking message: half rank 0 (world 0, 1) sends, half rank 1 receives
    if [ $r -lt 2 ]; then echo "MPI_SEND $loc 1"; else echo "MPI_RECV $loc 1"; fi
    # non-blocking: 2 Isend/Irecv + 2 activations of the persistent pair, 1 cancelled
    for e in MPI_COLLECTIVE_BEGIN:13 MPI_COLLECTIVE_END:13 MPI_ISEND:4 MPI_ISEND_COMPLETE:4 \
             MPI_IRECV_REQUEST:5 MPI_IRECV:4 MPI_REQUEST_CANCELLED:1 \
             NON_BLOCKING_COLLECTIVE_REQUEST:2 NON_BLOCKING_COLLECTIVE_COMPLETE:2; do
        echo "${e%:*} $loc ${e#*:}"
    done
done | LC_ALL=C sort > mpi-expected.txt
check "MPI event kinds per rank" diff -u mpi-expected.txt mpi-events.txt
check "18 sends, 18 receives, 18 matched pairs" grep -q "p2p: 18 sends, 18 receives, 18 matched pairs" check.txt
check "15 collective instances on 4 communicators" \
    grep -q "collectives: 15 collective instances on 4 communicators" check.txt

# Details: peers and roots are ranks in the communicator; MPI_ANY_SOURCE receives carry
# the actual source; bytes as the profile counts them.
otf2-print exp/traces.otf2 | sed 's/  */ /g' > events.txt
check_eq "persistent send on the ring: 4 ranks x 2 activations, 8 bytes each" 8 \
    "$(grep -c '^MPI_ISEND [0-9]* [0-9]* Receiver: .* Communicator: "" <4>, Tag: 11, Length: 8, Request: [0-9]*$' events.txt)"
check_eq "MPI_Recv(MPI_ANY_SOURCE) on odd: sender 0 (world rank 1), 40 bytes" 1 \
    "$(grep -c '^MPI_RECV 12884901888 [0-9]* Sender: 0 ("Master thread" <4294967296>), Communicator: "odd" <5>, Tag: 5, Length: 40$' events.txt)"
check_eq "Bcast on even: root 1 (world rank 2) sent 2 x 16 bytes" 1 \
    "$(grep -c '^MPI_COLLECTIVE_END 8589934592 .*Operation: BCAST, Communicator: "even" <2>, Root: 1 ("Master thread" <8589934592>), Sent: 32, Received: 16$' events.txt)"
check_eq "Gatherv on world dup: root 2 received 40 bytes" 1 \
    "$(grep -c '^MPI_COLLECTIVE_END 8589934592 .*Operation: GATHERV, Communicator: "world dup" <3>, Root: 2 .*Sent: 12, Received: 40$' events.txt)"
check_eq "Ibcast on world dup: root 1 sent 4 x 12 bytes, at its completion" 1 \
    "$(grep -c '^NON_BLOCKING_COLLECTIVE_COMPLETE 4294967296 [0-9]* Operation: BCAST, Communicator: "world dup" <3>, Root: 1 ("Master thread" <4294967296>), Sent: 48, Received: 12, Request: [0-9]*$' events.txt)"
# Irecv from MPI_ANY_SOURCE, tag 8: rank r receives from its right neighbour (ring rank
# r + 1), 4 doubles.
grep '^MPI_IRECV [0-9]* [0-9]* Sender: .* Tag: 8,' events.txt |
    awk '{ sub(/ \(.*Length: /, " "); sub(/, Request.*/, ""); print $2, $5, $6 }' | LC_ALL=C sort > irecv8.txt
printf '%s\n' "0 1 32" "12884901888 0 32" "4294967296 2 32" "8589934592 3 32" > irecv8-expected.txt
check "MPI_ANY_SOURCE Irecv: actual sources and bytes" diff -u irecv8-expected.txt irecv8.txt

trace_enters exp/traces.otf2 > enters.txt
profile_visits exp/profile.cubex 1 > visits.txt
check "Enter events per region and rank = profile visits" diff -u visits.txt enters.txt

# The archive cannot be opened on rank 1 only: every rank must skip OTF2's collectives.
check "build the access() shim" cc -shared -fPIC -o deny.so "$MPIPROGS/deny-access.c" -ldl
mpirun4 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=denied LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$WORK/deny.so" \
    HP_TEST_DENY_RANK=1 HP_TEST_DENY_PATH=denied ./comms > denied.out 2> denied.err
check_eq "open failing on rank 1: exit 0 (no hang), profile written, no archive" \
    "0 yes no" "$? $(test -f denied/profile.cubex && echo yes || echo no) $(test -e denied/traces.otf2 && echo yes || echo no)"
check_eq "one message, from rank 1, naming the cause" \
    "hpmeasure: rank 1: trace not written: trace directory 'denied': Permission denied" \
    "$(grep 'trace' denied.err)"
# Intercommunicators: defined with both groups (the side whose leader has the smaller
# key, the evens, first) but without events; the merged one is an ordinary
# communicator; each rank's dup of MPI_COMM_SELF is one more communicator of one member.
check "build intercomm.c" hp-instrument mpicc -O1 -o intercomm "$MPIPROGS/intercomm.c"
check "intercommunicators: mpiexec -n 4 with tracing" \
    mpirun4 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=inter ./intercomm
check "intercommunicators: otf2check.py passes" $OTF2CHECK inter/traces.otf2
comm_defs inter/traces.otf2 > inter-defs.txt
cat > inter-defs-expected.txt <<'EOF'
group 1  0 1 2 3
group 2 
group 3  0 2
group 4  0 2 1 3
group 5  0 2 1 3
group 6  0
group 7  1 3
group 8  1
group 9  2
group 10  3
comm 0 [MPI_COMM_WORLD] parent UNDEFINED
comm 1 [MPI_COMM_SELF] parent UNDEFINED
comm 2 [] parent MPI_COMM_WORLD
comm 3 [inter] parent UNDEFINED
comm 4 [] parent inter
comm 5 [] parent MPI_COMM_SELF
comm 6 [] parent MPI_COMM_WORLD
comm 7 [] parent MPI_COMM_SELF
comm 8 [] parent MPI_COMM_SELF
comm 9 [] parent MPI_COMM_SELF
EOF
check "intercommunicators: Comm and COMM_GROUP definitions" diff -u inter-defs-expected.txt inter-defs.txt
$OTF2CHECK inter/traces.otf2 > inter-check.txt 2>&1
check "intercommunicators: 5 collective instances (merged Allreduce, 4 self Barriers)" \
    grep -q "collectives: 5 collective instances on 5 communicators" inter-check.txt
finish
