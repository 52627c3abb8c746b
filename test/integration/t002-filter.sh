#!/bin/sh
# A filtered function is absent from the profile, its callees hang below its caller,
# and its time counts to its caller's exclusive time. File filters and a filter that
# excludes everything but main.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 9

check "build filtered.c" hp-instrument gcc -O1 -o filtered "$PROGRAMS/filtered.c"
cat > hide.filt <<'END'
# Score-P syntax: hide the helper whose time must go to its caller
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE hidden
          busy
SCOREP_REGION_NAMES_END
END
HP_FILTERING_FILE=hide.filt HP_EXPERIMENT_DIRECTORY=exp check "run with filter" ./filtered
spent=$(sed -n 's/^caller_seconds=//p' "$WORK/last.out")
$CUBEDUMP --paths exp/profile.cubex > paths.txt
printf '%s\n' filtered filtered/main filtered/main/caller filtered/main/caller/leaf > expected.txt
check "hidden and busy are absent, leaf hangs below caller" diff -u expected.txt paths.txt
check "hidden is not even defined as a region" sh -c '! $CUBEDUMP --regions exp/profile.cubex | grep -q hidden'

excl=$($CUBEDUMP exp/profile.cubex | awk -F'\t' '$1 == "filtered/main/caller" { sub("time_excl=", "", $5); print $5 }')
# busy() spun for 2 x 50 ms inside caller: at least 95% of caller's own measured time
# must be caller's exclusive time.
check "filtered time counts to the caller (excl $excl s of $spent s)" \
    awk -v e="$excl" -v s="$spent" 'BEGIN { exit !(e >= 0.095 && e >= 0.95 * s - 0.002) }'

printf 'SCOREP_REGION_NAMES_BEGIN\nEXCLUDE *\nINCLUDE main\nSCOREP_REGION_NAMES_END\n' > only-main.filt
HP_FILTERING_FILE=only-main.filt HP_EXPERIMENT_DIRECTORY=exp2 check "run with EXCLUDE * INCLUDE main" ./filtered
check_eq "only main remains" "filtered filtered/main" "$($CUBEDUMP --paths exp2/profile.cubex | tr '\n' ' ' | sed 's/ $//')"

printf 'SCOREP_FILE_NAMES_BEGIN\nEXCLUDE */filtered.c\nSCOREP_FILE_NAMES_END\n' > file.filt
HP_FILTERING_FILE=file.filt HP_EXPERIMENT_DIRECTORY=exp3 check "run with a file filter" ./filtered
check_eq "a file filter removes every function of that file" "filtered" "$($CUBEDUMP --paths exp3/profile.cubex)"
finish
