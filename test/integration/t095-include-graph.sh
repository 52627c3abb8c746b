#!/bin/sh
# The layering of doc/architecture.md holds: no #include cycle between files (a .c and
# its .h count as one module) or between folders, and the writers and the profile
# library never include an adapter or the runtime.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 3

check "no file or folder cycles (build-aux/include-graph --check)" \
    python3 "$HP_SRCDIR/build-aux/include-graph" --check "$HP_SRCDIR"
python3 "$HP_SRCDIR/build-aux/include-graph" "$HP_SRCDIR" >"$WORK/graph.txt"
check_eq "otf2-writer and profile/ include no adapter or runtime" "" \
    "$(grep -E '^  (otf2-writer|profile) -> (adapters|measurement/runtime|measurement/finalize)' "$WORK/graph.txt")"
check_eq "profile/ (the library hp-report links) includes only util/" "  profile -> util" \
    "$(grep -E '^  profile -> ' "$WORK/graph.txt" | sed 's/ ([0-9]*)$//')"
finish
