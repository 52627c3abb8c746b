#!/bin/sh
# The layering of doc/architecture.md holds: no #include cycle between files (a .c and
# its .h count as one module) or between folders, and the writers and the profile
# library never include an adapter or the runtime. The call graph of the built objects
# (include-graph --calls) has no cycle and no upward folder call beyond the known ones
# of build-aux/call-cycles.known, and that list holds no line that is no longer true.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 7

check "no file or folder cycles (build-aux/include-graph --check)" \
    python3 "$HP_SRCDIR/build-aux/include-graph" --check "$HP_SRCDIR"
python3 "$HP_SRCDIR/build-aux/include-graph" "$HP_SRCDIR" >"$WORK/graph.txt"
check_eq "otf2-writer and profile/ include no adapter or runtime" "" \
    "$(grep -E '^  (otf2-writer|profile) -> (adapters|measurement/runtime|measurement/finalize)' "$WORK/graph.txt")"
check_eq "profile/ (the library hp-report links) includes only util/" "  profile -> util" \
    "$(grep -E '^  profile -> ' "$WORK/graph.txt" | sed 's/ ([0-9]*)$//')"
check_eq "profile/ headers are guarded as HP_PROFILE_<FILE>_H (STYLE.md)" "" \
    "$(for h in "$HP_SRCDIR"/profile/*.h; do
        g=HP_PROFILE_$(basename "$h" .h | tr a-z A-Z)_H
        grep -q "^#ifndef $g\$" "$h" || echo "$h"
    done)"

KNOWN="$HP_SRCDIR/build-aux/call-cycles.known"
check "call cycles and upward calls: only the known ones, each still true ($KNOWN)" \
    python3 "$HP_SRCDIR/build-aux/include-graph" --calls --check --known "$KNOWN" \
    --build "$HP_BUILDDIR" "$HP_SRCDIR"

# The check itself: a line that is not true fails and says to delete it; a cycle that
# is not listed fails and is named as new.
printf 'file cycle: util/log <-> util/next_symbol\n' >"$WORK/stale.known"
python3 "$HP_SRCDIR/build-aux/include-graph" --calls --check --known "$WORK/stale.known" \
    --build "$HP_BUILDDIR" "$HP_SRCDIR" >"$WORK/stale.out"
status=$?
check_eq "a known line that no longer holds fails, saying to delete it" \
    "1 no longer true (delete it from $WORK/stale.known): file cycle: util/log <-> util/next_symbol" \
    "$status $(grep '^no longer true' "$WORK/stale.out")"
# A seeded cycle: two files of util/ that call each other, compiled into objects of
# their own, are reported as new when the list does not hold them.
mkdir -p "$WORK/seed/util" "$WORK/seed-build/util"
printf 'int pong(int);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n' >"$WORK/seed/util/ping.c"
printf 'int ping(int);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n' >"$WORK/seed/util/pong.c"
for f in ping pong; do
    cc -c -o "$WORK/seed-build/util/$f.o" "$WORK/seed/util/$f.c" || echo "cc $f.c failed"
done
python3 "$HP_SRCDIR/build-aux/include-graph" --calls --check --known /dev/null \
    --build "$WORK/seed-build" "$WORK/seed" >"$WORK/seed.out"
status=$?
check_eq "a call cycle not in the list fails and is named as new" \
    "1 new (break it, do not list it): file cycle: util/ping <-> util/pong" "$status $(grep '^new ' "$WORK/seed.out")"
finish
