#!/bin/sh
# HP_SELECT_SUBTREES and HP_EXCLUDE_SUBTREES on a known tree (test/programs/subtrees.c),
# with exact visits per call path and location: selected subtrees hang below the program
# root, excluded regions are measured without their callees, wildcards work, a thread's
# calls are selected like the master's; with sampling nothing is unwound in switched-off
# code; with tracing the trace stays valid; a bad list stops the program.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 15
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"

# "path location visits;" for every call path with visits, master first
visits() {
    $CUBEDUMP "$1" | awk -F'\t' '$3 != "visits=0" { sub("visits=", "", $3); print $1, $2, $3 }' |
        LC_ALL=C sort -k2n -k1 | tr '\n' ';'
}

check "build subtrees.c" hp-instrument gcc -O1 -pthread -o subtrees "$PROGRAMS/subtrees.c"

HP_SELECT_SUBTREES=solve HP_EXPERIMENT_DIRECTORY=sel check "select solve" ./subtrees
check_eq "select solve: only solve's subtrees, below the root, in both threads" \
    "subtrees 0 1;subtrees/solve 0 2;subtrees/solve/step 0 10;subtrees/solve/step/helper 0 10;subtrees 1 1;subtrees/solve 1 1;subtrees/solve/step 1 5;subtrees/solve/step/helper 1 5;" \
    "$(visits sel/profile.cubex)"
check "the switched-off calls are counted in the notes" grep -q "calls were switched off by HP_SELECT_SUBTREES" sel/summary.txt

HP_EXCLUDE_SUBTREES=step,io HP_EXPERIMENT_DIRECTORY=excl check "exclude step,io" ./subtrees
check_eq "exclude step,io: step and io measured, nothing below them" \
    "subtrees 0 1;subtrees/main 0 1;subtrees/main/io 0 1;subtrees/main/pthread_create 0 1;subtrees/main/pthread_join 0 1;subtrees/main/setup 0 1;subtrees/main/setup/helper 0 3;subtrees/main/solve 0 2;subtrees/main/solve/step 0 10;subtrees 1 1;subtrees/worker 1 1;subtrees/worker/solve 1 1;subtrees/worker/solve/step 1 5;" \
    "$(visits excl/profile.cubex)"

HP_SELECT_SUBTREES='sol*' HP_EXCLUDE_SUBTREES=step HP_EXPERIMENT_DIRECTORY=both check "select sol*, exclude step" ./subtrees
check_eq "both: solve's subtrees down to step" \
    "subtrees 0 1;subtrees/solve 0 2;subtrees/solve/step 0 10;subtrees 1 1;subtrees/solve 1 1;subtrees/solve/step 1 5;" \
    "$(visits both/profile.cubex)"

HP_SELECT_SUBTREES=helper HP_EXPERIMENT_DIRECTORY=leaf check "select a leaf" ./subtrees
check_eq "select helper: all 15 + 5 calls below the root" \
    "subtrees 0 1;subtrees/helper 0 15;subtrees 1 1;subtrees/helper 1 5;" "$(visits leaf/profile.cubex)"

HP_SAMPLING_FREQUENCY=1000 HP_EXCLUDE_SUBTREES=io HP_EXPERIMENT_DIRECTORY=sampled \
    check "sampling, exclude io (spins 300 ms)" ./subtrees 300
check_eq "sampling: io has its 0.3 s and no callees" "subtrees/main/io 0 1 big" \
    "$($CUBEDUMP sampled/profile.cubex | awk -F'\t' '$1 ~ /\/io/ && $2 == 0 {
        sub("visits=", "", $3); sub("time_incl=", "", $4); print $1, $2, $3, ($4 > 0.25 ? "big" : $4) }')"

HP_ENABLE_TRACING=true HP_SELECT_SUBTREES=solve HP_EXCLUDE_SUBTREES=step HP_EXPERIMENT_DIRECTORY=trace \
    ./subtrees > /dev/null 2>&1
check "tracing: otf2check.py passes" $OTF2CHECK trace/traces.otf2
trace_enters trace/traces.otf2 > enters.txt
profile_visits trace/profile.cubex > visits.txt
check "tracing: Enter events = visits per location" diff -u visits.txt enters.txt

expect_fail "an empty pattern is refused" \
    "HP_SELECT_SUBTREES='solve,,io' is not valid \(an empty pattern\)" \
    env HP_SELECT_SUBTREES=solve,,io ./subtrees
finish
