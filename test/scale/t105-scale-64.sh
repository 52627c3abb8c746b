#!/bin/sh
# 64 ranks (oversubscribed), profile and trace of one run: every rank sends every other
# rank one message whose size is known from the pair alone (test/programs/mpi/pairs.c:
# rank r sends rank q 4 * (1 + r + 2q) bytes with MPI_Isend, tag 5, and receives each
# message with MPI_Recv). Checked against sizes computed here from that formula, never
# read from the output: the profile's bytes_sent, bytes_received, messages and visits
# per rank on each MPI call path, and in the trace the length of every one of the 4032
# MpiIsend and MpiRecv events for its (sender, receiver) pair; otf2check.py passes and
# matches all 4032 messages; and the finalize split of HP_VERBOSE=2 (rank 0's wall and
# CPU time per phase) adds up to its total, the wait-state replay one of the phases.
# Slow (tens of seconds): not in `make check`; run with `make check-scale`
# (doc/testing.md). HP_SCALE_RANKS overrides the 64.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 15
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"
P=${HP_SCALE_RANKS:-64}
PAIRS=$((P * (P - 1)))

check "build pairs.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o pairs "$MPIPROGS/pairs.c"
HP_VERBOSE=2 HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp \
    check "mpiexec -n $P with tracing" timeout 900 mpiexec -n "$P" ./pairs
grep "finalize \(split\|cpu\):" last.err > split.txt
# Sum over pairs r != q of 4 (1 + r + 2q) = 4 P (P - 1) (1 + 3 (P - 1) / 2).
check_eq "every message arrived with its size (the program's own check)" \
    "pairs=$PAIRS bytes=$(awk -v p="$P" 'BEGIN { printf "%d", 4 * p * (p - 1) * (1 + 1.5 * (p - 1)) }')" \
    "$(cat last.out)"
check "cubecheck.py passes" $CUBECHECK exp/profile.cubex

# The finalize split (HP_VERBOSE=2, measurement/finalize/finalize_timing.h): one line of
# wall and one of CPU time from rank 0, each moment charged to exactly one phase, so the
# six phases add up to the total (to the printed microsecond), on rank 0 and as maxima.
check_eq "finalize split: one wall and one CPU line for $P ranks" \
    "cpu:$P split:$P" \
    "$(sed -n 's/.*finalize \([a-z]*\): ranks=\([0-9]*\).*/\1:\2/p' split.txt | sort | tr '\n' ' ' |
       sed 's/ $//')"
check "finalize split: the phases add up to the total" awk '{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2]; if ($i == "max:") break }
    sum = v["unify"] + v["merge"] + v["cube"] + v["trace"] + v["replay"] + v["wait"]
    if (sum - v["total"] > 0.00001 || v["total"] - sum > 0.00001) {
        print "phases " sum " != total " v["total"] ": " $0; bad = 1 }
    if (v["total"] <= 0) { print "no time: " $0; bad = 1 }
} END { exit bad || NR != 2 }' split.txt
# Wait states are on (the default): the replay of 4032 messages is its own phase, with
# wall and CPU time of its own (its collectives' waits are in wait=).
check "finalize split: the wait-state replay is a phase of its own" awk '{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2]; if ($i == "max:") break }
    if (!("replay" in v) || v["replay"] <= 0) { print "no replay time: " $0; bad = 1 }
} END { exit bad || NR != 2 }' split.txt

# Profile, per rank r (S = P (P - 1) / 2, the sum of all ranks):
#   MPI_Isend: P - 1 visits and messages, bytes_sent = 4 sum_{q != r} (1 + r + 2q)
#              = 4 ((P - 1)(1 + r) + 2 (S - r))
#   MPI_Recv:  P - 1 visits and messages, bytes_received = 4 sum_{s != r} (1 + s + 2r)
#              = 4 ((P - 1)(1 + 2r) + S - r)
#   MPI_Waitall: 1 visit, no bytes (the sends were counted when they were posted).
awk -v p="$P" 'BEGIN {
    s = p * (p - 1) / 2
    for (r = 0; r < p; r++) {
        printf "pairs/main/MPI_Isend %d %d %d 0 %d 0\n", r, p - 1,
            4 * ((p - 1) * (1 + r) + 2 * (s - r)), p - 1
        printf "pairs/main/MPI_Recv %d %d 0 %d 0 %d\n", r, p - 1,
            4 * ((p - 1) * (1 + 2 * r) + s - r), p - 1
        printf "pairs/main/MPI_Waitall %d 1 0 0 0 0\n", r
    }
}' | LC_ALL=C sort > expected-profile.txt
$CUBEDUMP exp/profile.cubex > dump.txt
metric_rows dump.txt visits bytes_sent bytes_received messages_sent messages_received |
    grep -E '^pairs/main/MPI_(Isend|Recv|Waitall) ' | LC_ALL=C sort > actual-profile.txt
check "profile: exact visits, bytes and messages of every rank's Isend, Recv, Waitall" \
    diff -u expected-profile.txt actual-profile.txt
check_eq "profile: $P locations" "$P" \
    "$(awk -F'\t' '$1 == "pairs" { n++ } END { print n + 0 }' dump.txt)"

check "otf2-print reads the trace" otf2-print exp/traces.otf2
$OTF2CHECK exp/traces.otf2 > check.txt 2>&1
check "otf2check.py passes" grep -q "SUMMARY: PASS" check.txt
check "all $PAIRS messages matched" \
    grep -q "p2p: $PAIRS sends, $PAIRS receives, $PAIRS matched pairs" check.txt

# Trace: "sender receiver bytes" of every message, from each side's event (location id
# = rank << 32, so the rank is the location / 2^32).
awk -v p="$P" 'BEGIN {
    for (r = 0; r < p; r++)
        for (q = 0; q < p; q++)
            if (q != r)
                print r, q, 4 * (1 + r + 2 * q)
}' | LC_ALL=C sort > expected-pairs.txt
otf2-print exp/traces.otf2 > events.txt
awk '$1 == "MPI_ISEND" || $1 == "MPI_RECV" {
    me = int($2 / 4294967296)
    peer = $0; sub(/^.*(Receiver|Sender): /, "", peer); sub(/ .*/, "", peer)
    len = $0; sub(/^.*Length: /, "", len); sub(/,.*/, "", len)
    if ($1 == "MPI_ISEND") print me, peer, len > "sends.txt"
    else print peer, me, len > "recvs.txt"
}' events.txt
LC_ALL=C sort sends.txt > sends-sorted.txt
LC_ALL=C sort recvs.txt > recvs-sorted.txt
check "trace: every MpiIsend has its pair's exact length" \
    diff -u expected-pairs.txt sends-sorted.txt
check "trace: every MpiRecv has its pair's exact length" \
    diff -u expected-pairs.txt recvs-sorted.txt
trace_enters exp/traces.otf2 > enters.txt
profile_visits exp/profile.cubex 1 > visits.txt
check "trace: Enter events per region and rank = profile visits" diff -u visits.txt enters.txt
finish
