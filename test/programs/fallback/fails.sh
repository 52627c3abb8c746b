#!/bin/sh
# t101-instrument-fallback: a compiler that fails whenever it is given the flag named by
# FAIL_ON (as a compiler bug that instrumentation trips would), else runs REAL_CC. With
# VANISH_ON_FAIL=1 it removes itself when it fails, so that the next run cannot start.
for arg; do
    if [ "$arg" = "$FAIL_ON" ]; then
        [ -n "$VANISH_ON_FAIL" ] && /bin/rm -f "$0"
        echo "fails.sh: error: refusing $FAIL_ON" >&2
        exit 1
    fi
done
exec "$REAL_CC" "$@"
