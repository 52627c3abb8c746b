#!/bin/sh
# Counters inside and outside MPI on 4 ranks (doc/counters.md): every measured MPI call
# reads the counters at its begin and end, so each rank's totals split into "in MPI" and
# "application". The split printed in summary.txt adds up to the total exactly; the total
# equals the rank's root value and "in MPI" the sum over its MPI call paths, both read back
# from profile.cubex by the independent reader; each rank's application page faults grow
# by the 200 pages per rank that the program touches outside MPI.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 13

check "build mpi_split.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o mpi_split "$PROGRAMS/counters/mpi_split.c"
check "measured run with page-faults, task-clock and ru_nvcsw" mpirun4 \
    HP_METRIC_PERF=page-faults,task-clock HP_METRIC_RUSAGE=ru_nvcsw HP_EXPERIMENT_DIRECTORY=exp \
    ./mpi_split
check "cubecheck.py passes" cubecheck exp/profile.cubex

# "rank counter total in_mpi application" from summary.txt's counters table.
sed -En '/^Counters per rank/,/^(Derived metrics|Flat profile)/p' exp/summary.txt |
    awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5 }' > split.txt
sed 's/^/# /' split.txt
check_eq "12 rows: 4 ranks x 3 counters" 12 "$(wc -l < split.txt | tr -d ' ')"
check "in MPI + application = total, exactly" \
    awk '{ if ($4 + $5 != $3) { print "does not add up:", $0; bad = 1 } } END { exit bad }' split.txt

# The same from the Cube file: per rank (location = rank) and counter, the root's value and
# the sum over outermost MPI call paths.
$CUBEDUMP exp/profile.cubex | awk -F'\t' '
    BEGIN { name["perf_page_faults_incl"] = "page-faults"; name["perf_task_clock_incl"] = "task-clock"
            name["ru_nvcsw_incl"] = "ru_nvcsw" }
    { n = split($1, part, "/"); mpi = 0
      for (i = 2; i <= n; i++) if (part[i] ~ /^MPI_/) { mpi = (i == n) ? 1 : 2; if (i < n) break }
      for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] in name) {
          k = $2 " " name[kv[1]]
          if (n == 1) total[k] += kv[2]
          if (mpi == 1) inmpi[k] += kv[2] } } }
    END { for (k in total) printf "%s %.0f %.0f %.0f\n", k, total[k], inmpi[k], total[k] - inmpi[k] }' |
    LC_ALL=C sort > cube-split.txt
check "summary.txt's split equals the Cube file's (root; MPI call paths)" \
    diff -u cube-split.txt "$(LC_ALL=C sort split.txt > sorted-split.txt; echo sorted-split.txt)"

check "application page faults grow by 200 per rank (+-10%)" awk '
    $2 == "page-faults" { app[$1] = $5 }
    END { for (r = 1; r < 4; r++) { d = app[r] - app[0]
          if (d < 180 * r || d > 220 * r) { print "rank", r, "grew by", d; bad = 1 } }
          exit bad }' split.txt
check "hp-report --rank 2 prints rank 2's split only" sh -c \
    "hp-report exp --rank 2 | sed -En '/^Counters per rank/,/^(Derived metrics|Flat profile)/p' | awk '\$1 ~ /^[0-9]+\$/' |
     awk '\$1 != 2 { exit 1 } END { exit NR != 3 }'"
check "derived metrics: CPU use (task-clock / time) per rank, between 0 and 1.1" sh -c \
    "sed -n '/^Derived metrics per rank/,/^Flat profile/p' exp/summary.txt |
     awk '/CPU use/ { n++; for (i = NF - 2; i <= NF; i++) if (\$i < 0 || \$i > 1.1) bad = 1 }
          END { exit bad || n != 4 }'"
# CPU use in MPI pinned: task-clock over time, both summed over each rank's outermost MPI
# call paths in profile.cubex (MPI_Init included: it waits without a core, so the ratio is
# low although most task-clock is in MPI), as summary.txt prints it with 2 decimals.
$CUBEDUMP exp/profile.cubex | awk -F'\t' '
    { n = split($1, part, "/"); outer = 0
      for (i = 2; i <= n; i++) if (part[i] ~ /^MPI_/) { outer = (i == n); break }
      if (!outer) next
      for (i = 3; i <= NF; i++) { split($i, kv, "=")
          if (kv[1] == "time_incl") t[$2] += kv[2]
          if (kv[1] == "perf_task_clock_incl") c[$2] += kv[2] } }
    END { for (r in t) printf "%s %.2f\n", r, c[r] / 1e9 / t[r] }' | LC_ALL=C sort > cpu-mpi-cube.txt
sed -n '/^Derived metrics per rank/,/^Flat profile/p' exp/summary.txt |
    awk '/CPU use/ { print $1, $(NF - 1) }' | LC_ALL=C sort > cpu-mpi-summary.txt
check "CPU use in MPI = task-clock / time over each rank's MPI call paths (profile.cubex)" \
    diff -u cpu-mpi-cube.txt cpu-mpi-summary.txt
# Sampling (--nocompiler): MPI calls learn their call path by unwinding; the sampled nodes
# of that path take the calls' counters too, so no exclusive counter value is negative.
check "build mpi_split.c with hp-instrument --nocompiler mpicc" \
    hp-instrument --nocompiler mpicc -O1 -g -o mpi_split_nc "$PROGRAMS/counters/mpi_split.c"
check "sampled run with page-faults" mpirun4 HP_METRIC_PERF=page-faults \
    HP_EXPERIMENT_DIRECTORY=exp-nc ./mpi_split_nc
$CUBEDUMP exp-nc/profile.cubex > nc.txt
check "sampled call paths: exclusive page faults never negative; exchange holds its MPI calls'" awk -F'\t' '
    { for (i = 3; i <= NF; i++) { split($i, kv, "=")
          if (kv[1] == "perf_page_faults_excl" && kv[2] < 0) { print "negative:", $1, $2; bad = 1 }
          if (kv[1] == "perf_page_faults_incl" && $1 ~ /\/exchange$/) { ex += kv[2]; seen = 1 } } }
    END { exit bad || !seen || ex < 4 * 150 }' nc.txt
finish
