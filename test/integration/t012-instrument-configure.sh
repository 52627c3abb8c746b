#!/bin/sh
# An autoconf project configured with CC="hp-instrument gcc": configure's test programs
# must compile, link against libhpmeasure and run (the cross-compiling and AC_RUN_IFELSE
# checks run them), and the configured build must produce an instrumented program.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 9

: "${HP_INSTRUMENT_INCLUDEDIR:=$HP_SRCDIR/include}"
export HP_INSTRUMENT_INCLUDEDIR
cp -R "$PROGRAMS/instrument/autoconf" proj
cd proj || exit 99

check "autoconf generates configure" autoconf
check "./configure CC=\"hp-instrument gcc\" succeeds" ./configure CC="hp-instrument gcc"
cp "$WORK/last.out" configure.out # check below overwrites last.out
check "configure used hp-instrument" grep -q "^checking for gcc\.\.\. hp-instrument gcc$" configure.out
check "configure's test programs ran (not cross compiling)" \
    grep -q "^checking whether we are cross compiling\.\.\. no$" configure.out
check "configure's AC_RUN_IFELSE program ran" \
    grep -q "^checking whether a compiled test program runs\.\.\. yes$" configure.out
check "make builds with the configured CC" make
check "objects reference __cyg_profile_func_enter" sh -c \
    'nm -u hpconf.o | grep -qw __cyg_profile_func_enter && nm -u area.o | grep -qw __cyg_profile_func_enter'
check_eq "the program runs and prints its result" "side=7" "$(./hpconf 2>"$WORK/run.err")"
check "the run writes hp-hpconf-*/profile.cubex" sh -c 'test -f hp-hpconf-*/profile.cubex'

finish
