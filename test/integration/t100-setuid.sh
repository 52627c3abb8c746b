#!/bin/sh
# Set-user-ID and set-group-ID programs are not steered by the environment
# (doc/security.md): run by an unprivileged user, a set-user-ID-root copy of an
# instrumented program runs as usual, says once that it measures nothing, creates and
# appends no file (experiment directory, site log, trace spill files, not even the default
# experiment directory in its working directory) and shows nothing of a file only root can
# read. The same program without the bit, run by the same user with the same environment,
# is measured. Making such a program needs root, `setpriv` and a file system without
# nosuid; otherwise the whole test is skipped (TAP "1..0 # SKIP").
. "$HP_SRCDIR/test/integration/lib.sh"

skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root to make a set-user-ID program (running as uid $(id -u))"
command -v setpriv >/dev/null || skip_all "no setpriv to run the program as another user"
case ",$(findmnt -n -o OPTIONS -T "$WORK" 2>/dev/null)," in
*,nosuid,*) skip_all "$WORK is on a file system mounted nosuid" ;;
esac
[ -z "${HP_ASAN_RUNTIME:-}" ] ||
    skip_all "sanitizer build: the dynamic linker ignores the preloaded ASan runtime in set-user-ID programs"
NOBODY=$(id -u nobody 2>/dev/null) || skip_all "no user 'nobody' to run the program"
NOGROUP=$(id -g nobody)
for dir in "$WORK" "${HP_INSTRUMENT_LIBDIR:-$WORK}"; do
    runuser -u nobody -- test -x "$dir" 2>/dev/null ||
        skip_all "user nobody cannot reach $dir (a directory above it is private)"
done
plan 14

check "build calltree.c with hp-instrument" hp-instrument gcc -O1 -o calltree "$PROGRAMS/calltree.c"
cp calltree calltree-suid && chmod 4755 calltree-suid  # owned by root, runs as root
cp calltree calltree-sgid && chmod 2755 calltree-sgid  # group root
# What only root may touch: a directory nobody cannot write (where the default experiment
# directory would go), a site log and a filter file nobody cannot read.
mkdir root-only && chmod 755 root-only
printf 'ROOT_ONLY_SECRET\n' > root-only/secret.filt && chmod 600 root-only/secret.filt
printf 'existing line\n' > root-only/site.log && chmod 644 root-only/site.log
mkdir out && chmod 777 out # what nobody may write

# run NAME PROGRAM: as nobody (real and effective), in root-only/, with every variable
# that names a file pointing at root's files.
run() {
    (cd root-only &&
        HP_EXPERIMENT_DIRECTORY="$WORK/root-only/exp-$1" HP_SITE_LOG="$WORK/root-only/site.log" \
            HP_FILTERING_FILE="$WORK/root-only/secret.filt" HP_ENABLE_TRACING=true \
            HP_VERBOSE=2 TMPDIR="$WORK/root-only" HP_ENABLE_TRACNG=true \
            setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups \
            "$WORK/$2" >"$WORK/$1.out" 2>"$WORK/$1.err")
    echo "$? $(cat "$1.out" | wc -l)"
}
expected_rc="0 $("$WORK/calltree" | wc -l)"
message="hpmeasure: this program runs with raised rights (set-user-ID, set-group-ID or file capabilities): measuring nothing, the HP_* variables are ignored. Measure a copy without the set-user-ID bit instead (doc/security.md)"

check_eq "set-user-ID: the program runs as usual" "$expected_rc" "$(run suid calltree-suid)"
check_eq "set-user-ID: one message, that nothing is measured" "$message" "$(cat suid.err)"
check_eq "set-user-ID: no file created in root's directory, the site log unchanged" \
    "secret.filt site.log|existing line" "$(ls root-only | tr '\n' ' ' | sed 's/ $//')|$(cat root-only/site.log)"
check "set-user-ID: nothing of the root-only filter file in any output" \
    sh -c "! grep -q ROOT_ONLY_SECRET suid.out suid.err"

check_eq "set-group-ID: the program runs as usual" "$expected_rc" "$(run sgid calltree-sgid)"
check_eq "set-group-ID: the same message" "$message" "$(cat sgid.err)"
check_eq "set-group-ID: no file created, the site log unchanged" \
    "secret.filt site.log|existing line" "$(ls root-only | tr '\n' ' ' | sed 's/ $//')|$(cat root-only/site.log)"

# The same program without the bit, as the same user: the environment is taken, so the
# filter file is read (and cannot be, as nobody), and with files nobody may write the
# program is measured. This is what the set-user-ID runs above would have done.
expect_fail "without the bit, HP_FILTERING_FILE is read with the user's rights" \
    "secret\.filt: cannot read: Permission denied" \
    env HP_FILTERING_FILE="$WORK/root-only/secret.filt" \
    setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups ./calltree
(cd out && HP_EXPERIMENT_DIRECTORY="$WORK/out/exp" HP_ENABLE_TRACING=true \
    setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups "$WORK/calltree" > /dev/null 2>&1)
check_eq "without the bit the program is measured, with its trace" "profile.cubex traces.otf2" \
    "$(ls out/exp | grep -E '^(profile.cubex|traces.otf2)$' | tr '\n' ' ' | sed 's/ $//')"

# The first line of defence is the check above; the second is secure_getenv, which also
# keeps the other variables we read (TMPDIR, DEBUGINFOD_URLS, the job ids) from a
# privileged process. No getenv may come back into the measurement library.
check_eq "the measurement library reads its environment with secure_getenv only" "" \
    "$(grep -rn '[^_]getenv(' "$HP_SRCDIR/measurement" "$HP_SRCDIR/adapters" "$HP_SRCDIR/util" \
        --include=*.c | grep -v '/examples/')"
check_eq "no getenv in libhpmeasure's imports" "" \
    "$(nm -D --undefined-only "$(ldd ./calltree | awk '/libhpmeasure/ { print $3 }')" |
        awk '$2 == "getenv" || $2 ~ /^getenv@/')"

# A set-user-ID program started by root itself is not in secure-execution mode: root
# measures it like any program (real and effective user are both root).
(cd out && HP_EXPERIMENT_DIRECTORY="$WORK/out/exp-root" "$WORK/calltree-suid" > /dev/null 2> root.err)
check "root running the set-user-ID copy measures it" test -f out/exp-root/profile.cubex
check_eq "and says nothing" "" "$(cat out/root.err)"
finish
