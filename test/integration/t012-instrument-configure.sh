#!/bin/sh
# An autoconf project configured with CC="hp-instrument gcc", then with the one-word
# CC=hp-gcc: configure's test programs must compile, link against libhpmeasure and run
# (the cross-compiling and AC_RUN_IFELSE checks run them) without leaving experiment
# directories behind, and the configured build must produce an instrumented program
# whose profile has exactly its functions.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 18

: "${HP_INSTRUMENT_INCLUDEDIR:=$HP_SRCDIR/include}"
# -finstrument-functions, whether or not the GCC plug-in is built (its objects differ).
HP_INSTRUMENT_PLUGIN=
export HP_INSTRUMENT_INCLUDEDIR HP_INSTRUMENT_PLUGIN
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
check "configure's test programs left no experiment directory" \
    sh -c '! ls -d hp-* 2>/dev/null | grep .'
check "make builds with the configured CC" make
check "objects reference __cyg_profile_func_enter" sh -c \
    'nm -u hpconf.o | grep -qw __cyg_profile_func_enter && nm -u area.o | grep -qw __cyg_profile_func_enter'
check_eq "the program runs and prints its result" "side=7" "$(./hpconf 2>"$WORK/run.err")"
check "the run writes hp-hpconf-*/profile.cubex" sh -c 'test -f hp-hpconf-*/profile.cubex'

# ---- CC=hp-gcc ------------------------------------------------------------------------------
cd "$WORK" || exit 99
cp -R "$PROGRAMS/instrument/autoconf" proj-wrapper
cd proj-wrapper || exit 99
autoconf
check "CC=hp-gcc ./configure succeeds" env CC=hp-gcc ./configure
cp "$WORK/last.out" configure.out
check "configure used hp-gcc and ran its test programs" sh -c \
    'grep -q "^checking for gcc\.\.\. hp-gcc$" configure.out &&
     grep -q "^checking whether a compiled test program runs\.\.\. yes$" configure.out'
check "make builds" make
check "configure and make left no experiment directory" sh -c '! ls -d hp-* 2>/dev/null | grep .'
check "objects reference __cyg_profile_func_enter" sh -c \
    'nm -u hpconf.o | grep -qw __cyg_profile_func_enter && nm -u area.o | grep -qw __cyg_profile_func_enter'
check_eq "the program runs and prints its result" "side=7" "$(./hpconf 2>"$WORK/run.err")"
check_eq "one experiment directory, from the program" "1|1" \
    "$(ls -d hp-* | grep -c '^hp-hpconf-')|$(ls -d hp-* | wc -l)"
check_eq "its profile: exactly the program's functions, one visit each" \
    "hpconf visits=1|hpconf/main visits=1|hpconf/main/area_of_circle visits=1|hpconf/main/side_of_square visits=1" \
    "$($CUBEDUMP hp-hpconf-*/profile.cubex | cut -f1,3 | tr '\t' ' ' | paste -sd'|')"

finish
