#!/bin/sh
# hp-report on real Score-P profiles: every value of every sample that has CSVs
# (written by cube_dump) matches, per metric, rank and call path, inclusive and
# exclusive; every sample the Cube checker passes is read (plus the dense-index file
# with 8 roots, which only pycubexr cannot read).
. "$HP_SRCDIR/test/integration/lib.sh"
SAMPLES="$HP_SRCDIR/test/data/cube"
plan 11

for s in scorep84_call_tree_test time_p4_profile; do
    check "$s: every CSV value matches hp-report --format csv" \
        $PY "$HP_SRCDIR/test/tools/check_report_csv.py" "$(command -v hp-report)" \
        "$SAMPLES/$s.cubex" "$SAMPLES/$s.excl.csv" "$SAMPLES/$s.incl.csv"
done

check "cube_values_example_alldtypes: hp-report reads it" \
    hp-report "$SAMPLES/cube_values_example_alldtypes.cubex" --metric UINT16
for s in cubelib_proxy_dense_index_8roots kripke_p8_profile minimal \
         quirk_cubew48_checksum_bug recommended reference_cubew482 \
         scorep84_call_tree_test time_p4_profile; do
    check "$s: hp-report reads it" hp-report "$SAMPLES/$s.cubex"
done
finish
