#!/bin/sh
# hp-report on our own profile: the default experiment (newest hp-* directory here),
# exact visits per call path through --format csv (writer -> reader round trip),
# summary.txt and hp-report printing the same tables (one implementation), valid JSON,
# the options, and the MPI tables on a Score-P profile with MPI regions.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 12

check "build calltree.c with hp-instrument" hp-instrument gcc -O1 -o calltree "$PROGRAMS/calltree.c"
HP_EXPERIMENT_DIRECTORY=hp-calltree-old check "first run" ./calltree
sleep 1
HP_EXPERIMENT_DIRECTORY=hp-calltree-new check "second run" ./calltree
touch hp-calltree-new

check "hp-report without arguments reads the newest hp-* directory" hp-report
check_eq "its title names hp-calltree-new" "hp-report: hp-calltree-new/profile.cubex" \
    "$(head -1 "$WORK/last.out")"

hp-report hp-calltree-new --format csv --threshold 0 --depth 1000 > report.csv
awk -F, '/^# / { table = substr($0, 3); next } table == "calltree" && $1 ~ /^[0-9]+$/ { print $7, $3 }' \
    report.csv > visits.txt
cat > expected.txt <<'END'
calltree 1
calltree/main 1
calltree/main/left 4
calltree/main/left/leaf 12
calltree/main/right 2
calltree/main/right/leaf 2
calltree/main/fact 1
calltree/main/fact/fact 1
calltree/main/fact/fact/fact 1
calltree/main/fact/fact/fact/fact 1
END
check "csv: exact visits per call path" diff -u expected.txt visits.txt

# summary.txt (written by the run) and hp-report print the same tables from the same
# code: everything from the first table on is identical.
sed -n '/^Flat profile/,$p' hp-calltree-new/summary.txt > summary-tables.txt
hp-report hp-calltree-new | sed -n '/^Flat profile/,$p' > report-tables.txt
check "summary.txt and hp-report print the same flat profile and call tree" \
    sh -c 'test -s summary-tables.txt && diff -u summary-tables.txt report-tables.txt'

check "--format json is valid JSON with the calltree table" sh -c '
    hp-report hp-calltree-new --format json --threshold=0 > report.json &&
    /usr/bin/python3 -c "import json, sys; d = json.load(open(\"report.json\"));
assert any(r[\"path\"] == \"calltree/main/left\" and r[\"visits\"] == 4 for r in d[\"tables\"][\"calltree\"])"'

check "--metric visits --rank 0 --depth 2: left: 4 visits, 16 inclusive" sh -c '
    hp-report hp-calltree-new --metric visits --rank 0 --depth 2 --threshold=0 |
        sed -n "/^Call tree/,\$p" > m.txt &&
    grep -Eq "^ +4 +16 +4 .*  left\$" m.txt && ! grep -q "leaf" m.txt'

expect_fail "--rank 5 on a one-rank profile: exit 2, says so" "no rank 5" \
    sh -c 'hp-report hp-calltree-new --rank 5; test $? -eq 2 && exit 1'

P4="$HP_SRCDIR/test/data/cube/time_p4_profile.cubex"
check "Score-P MPI profile: MPI per rank, MPI vs computation, imbalance" sh -c "
    hp-report '$P4' > p4.txt &&
    grep -q '^MPI calls per rank' p4.txt && grep -Eq '^ +3 +[0-9]+/' p4.txt &&
    grep -Eq '^  in MPI +[0-9.]+ +[0-9.]+ +[0-9.]+\$' p4.txt &&
    grep -q '^Top call paths into MPI' p4.txt"
check "--rank 2 shows one rank's row" sh -c "
    hp-report '$P4' --rank 2 | grep -Eq '^ +2 +[0-9]+/' &&
    ! hp-report '$P4' --rank 2 | grep -Eq '^ +[013] +[0-9]+/'"
finish
