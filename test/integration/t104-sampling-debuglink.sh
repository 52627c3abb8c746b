#!/bin/sh
# Sampled function names from a separate debug file found through .gnu_debuglink, the
# way `objcopy --only-keep-debug` leaves them: a stripped program (no .symtab) whose
# static function is named from debuglink.debug beside it, or in .debug/ beside it, and
# not from a debug file of another build (its build id differs). Looking for debug
# files never loads libdebuginfod (with libcurl and its TLS libraries: ~20 million
# instructions and a thousand page faults in every sampled process, the bulk of what a
# short sampled run paid); the third run, whose lookup finds nothing usable locally,
# would have loaded it (where libdebuginfod is installed). A FIFO under the debug file's
# name is not a debug file: the lookup must not block opening it (a FIFO with no writer).
. "$HP_SRCDIR/test/integration/lib.sh"
plan 11

split_debug() { # split_debug VARIANT: debuglink (stripped) + debuglink.debug
    gcc -O1 -g -DVARIANT="$1" -o debuglink "$PROGRAMS/sampling/debuglink.c" &&
        objcopy --only-keep-debug debuglink debuglink.debug &&
        strip --strip-all debuglink &&
        objcopy --add-gnu-debuglink=debuglink.debug debuglink
}
# named EXP: 1 when the profile of EXP has main/spin_in_static, else 0
named() {
    $CUBEDUMP "$1/profile.cubex" | awk -F'\t' '$1 ~ /\/main\/spin_in_static$/ { n = 1 }
        END { print n + 0 }'
}

check "build, split and strip debuglink.c" split_debug 1
check_eq "the stripped program has no symbol table" 0 "$(readelf -S debuglink | grep -c symtab)"

HP_EXPERIMENT_DIRECTORY=beside check "hp-run, debug file beside the program" hp-run ./debuglink
check_eq "beside: spin_in_static named from the debug file" 1 "$(named beside)"

mkdir .debug && mv debuglink.debug .debug/
HP_EXPERIMENT_DIRECTORY=dotdebug check "hp-run, debug file in .debug/" hp-run ./debuglink
check_eq ".debug/: spin_in_static named from the debug file" 1 "$(named dotdebug)"

# A debug file of another build beside the program: same name, other build id.
rm -rf .debug
mkdir other && (cd other && split_debug 2) && mv other/debuglink.debug .
LD_DEBUG=files HP_EXPERIMENT_DIRECTORY=foreign hp-run ./debuglink >foreign.out 2>ld.txt
check_eq "foreign debug file: the program ran" "done" "$(cat foreign.out)"
check_eq "foreign debug file: not used (spin_in_static unnamed)" 0 "$(named foreign)"
check_eq "libdebuginfod was not loaded" 0 "$(grep -c 'libdebuginfod' ld.txt)"

rm debuglink.debug && mkfifo debuglink.debug
HP_EXPERIMENT_DIRECTORY=fifo check "a FIFO named as the debug file: the run ends" \
    timeout -k 5 60 hp-run ./debuglink
check_eq "fifo: spin_in_static unnamed" 0 "$(named fifo)"
finish
