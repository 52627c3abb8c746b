#!/bin/sh
# A multi-file make project built with CC="hp-instrument gcc", the way users build
# theirs: every object carries the enter/exit hooks, the program links libhpmeasure and,
# when run, writes its experiment directory with a profile.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 9

: "${HP_INSTRUMENT_INCLUDEDIR:=$HP_SRCDIR/include}"
# -finstrument-functions, whether or not the GCC plug-in is built (its objects differ).
HP_INSTRUMENT_PLUGIN=
export HP_INSTRUMENT_INCLUDEDIR HP_INSTRUMENT_PLUGIN
cp -R "$PROGRAMS/instrument/make" proj
cd proj || exit 99

# CC in the environment overrides make's built-in default (the Makefile never sets it).
check "CC=\"hp-instrument gcc\" make builds" env CC="hp-instrument gcc" make
for o in main.o vec.o stats.o; do
    check "$o references __cyg_profile_func_enter" sh -c \
        "nm -u $o | grep -qw __cyg_profile_func_enter"
done
check "the program links libhpmeasure" sh -c 'readelf -d hpmake | grep -q "NEEDED.*libhpmeasure"'
check_eq "the program runs and prints its result" "dot=30 norm2=30" "$(./hpmake 2>"$WORK/run.err")"
check "the run writes hp-hpmake-*/profile.cubex" sh -c 'test -f hp-hpmake-*/profile.cubex'

# make CC=... on the command line, parallel, with --verbose inside CC: same result.
make clean >/dev/null
check "make -j2 CC=\"hp-instrument --verbose gcc\" builds" \
    make -j2 CC="hp-instrument --verbose gcc"
cp "$WORK/last.err" verbose.err # check below overwrites last.err
check "--verbose printed the link line with the core at the end" \
    grep -q "^gcc -g -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include,/usr/lib/gcc -O2 -o hpmake main.o vec.o -L. -lstats -lm .*-lhpmeasure -Wl,--pop-state$" \
    verbose.err

finish
