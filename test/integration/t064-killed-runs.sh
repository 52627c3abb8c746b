#!/bin/sh
# What a run cut short leaves behind (doc/signals.md): a run killed before it writes
# anything (SIGKILL, a segmentation fault, mpiexec's time-out) leaves no experiment
# directory, serial or MPI; a normal run still writes one; an existing directory is never
# written into (-1, -2, ... is appended), also when two MPI jobs of the same name end by
# signals at the same time, or when the rank that creates the directory is slow; no
# symbolic link redirects what is written. And hp-run's launcher says only what it does
# on SIGTERM.
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 30

check "build signals.c" hp-instrument gcc -O1 -o signals "$PROGRAMS/signals.c"
check "build crash.c" hp-instrument gcc -O1 -o crash "$PROGRAMS/crash.c"
check "build mpi/signal.c" hp-instrument mpicc -O1 -o signal "$MPIPROGS/signal.c"
check "build mpi/signal.c uninstrumented" mpicc -O1 -o plain "$MPIPROGS/signal.c"

# await_files N PATTERN: waits (up to 30 s) until N files match PATTERN.
await_files() {
    for _i in $(seq 300); do
        [ "$(ls $2 2> /dev/null | wc -l)" -eq "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
# await_gone PID...: waits (up to 10 s) until the processes have ended.
await_gone() {
    for _i in $(seq 100); do
        kill -0 "$@" 2> /dev/null || return 0
        sleep 0.1
    done
    return 1
}
# entries DIR: what DIR holds besides the programs' own files (pid.*, ready, out, err)
entries() {
    ls -A "$1" | grep -v -e '^pid' -e '^ready$' -e '^out$' -e '^err$' | tr '\n' ' '
}

# --- serial, default directory name (hp-<exe>-<time>), each in a directory of its own
mkdir kill segv
(cd kill && exec env --default-signal=INT ../signals 15 wait > out 2> err) &
pid=$!
await_files 1 kill/ready
kill -KILL $pid
wait $pid
check_eq "serial SIGKILL: killed (137), no experiment directory" "137 " "$? $(entries kill)"
# In a sanitizer build the preloaded ASan runtime would catch the fault itself and exit 1:
# it is told to leave SIGSEGV alone, so the crash is the kernel's as in a normal build.
NO_ASAN_SEGV="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
(cd segv && exec env "$NO_ASAN_SEGV" ../crash > out 2> err)
check_eq "serial segfault: killed by SIGSEGV (139), no experiment directory" "139 " \
    "$? $(entries segv)"

# --- MPI
# mpi_start DIR ARG: a 2-rank job of ./signal ARG in DIR (created), in the background
# ($job), its ranks' pids in DIR/pid.0 and pid.1 (waited for).
mpi_start() {
    mkdir -p "$1"
    (cd "$1" && exec timeout -k 5 60 mpiexec -n 2 ../signal $2 > ../$1.out 2> ../$1.err) &
    job=$!
    await_files 2 "$1/pid.*"
}
mpi_start mkill ""
kill -KILL $(cat mkill/pid.0 mkill/pid.1)
wait $job
check_eq "MPI SIGKILL of every rank: no experiment directory" "" "$(entries mkill)"

export "$NO_ASAN_SEGV"
mpi_start msegv crash
wait $job
rc=$?
await_gone $(cat msegv/pid.0 msegv/pid.1)
check "MPI segfault of rank 1: the job failed, not by the time limit (status $rc)" \
    test "$rc" -ne 0 -a "$rc" -ne 124 -a "$rc" -ne 137
check "MPI segfault: mpiexec names the signal" \
    grep -q "TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)" msegv.out
check_eq "MPI segfault: no experiment directory" "" "$(entries msegv)"

mkdir mtime
(cd mtime && MPIEXEC_TIMEOUT=2 timeout -k 5 60 mpiexec -n 2 ../signal > ../mtime.out 2> ../mtime.err)
rc=$?
await_gone $(cat mtime/pid.0 mtime/pid.1)
check_eq "mpiexec time-out (MPIEXEC_TIMEOUT=2): status 255" 255 "$rc"
check "mpiexec time-out: mpiexec says so" grep -q "APPLICATION TIMED OUT" mtime.out
check_eq "mpiexec time-out: no experiment directory" "" "$(entries mtime)"

# A normal end still writes the experiment, under the default name; the same name again
# gets -1 (and stderr says so), the first directory untouched.
mkdir mok
(cd mok && HP_EXPERIMENT_DIRECTORY=same timeout 60 mpiexec -n 2 ../signal finish > ../mok1.out 2> ../mok1.err &&
    HP_EXPERIMENT_DIRECTORY=same timeout 60 mpiexec -n 2 ../signal finish > ../mok2.out 2> ../mok2.err &&
    timeout 60 mpiexec -n 2 ../signal finish > ../mok3.out 2> ../mok3.err)
check "MPI normal end: the job succeeded three times" test "$?" -eq 0
check "MPI normal end: a valid profile under the given name" cubecheck mok/same/profile.cubex
check "MPI normal end: the second run of that name wrote into same-1" \
    cubecheck mok/same-1/profile.cubex
check "MPI normal end: stderr says so" grep -q "same exists already; writing to same-1 instead" \
    mok2.err
check_eq "MPI normal end: the first directory is untouched (one hp.config, one profile)" \
    "hp.config profile.cubex summary.txt" "$(ls mok/same | tr '\n' ' ' | sed 's/ $//')"
check "MPI normal end: the default name hp-signal-<date>_<time>" \
    sh -c 'ls -d mok/hp-signal-[0-9]*_[0-9]* | grep -q .'

# Rank 0 does not measure (HP_ENABLE_PROFILING=false on it alone), rank 1 traces: rank 0
# writes the job's profile under a name of today (not of 1970, its unset start time), and
# rank 1 makes no directory of its own for its trace (it says why instead).
mkdir mpmd
(cd mpmd && HP_ENABLE_TRACING=true timeout 60 mpiexec -n 1 env HP_ENABLE_PROFILING=false \
    ../signal finish : -n 1 ../signal finish > ../mpmd.out 2> ../mpmd.err)
check_eq "rank 0 not measuring: one directory, named with today's date" \
    "hp-signal-$(date +%Y%m%d)" "$(ls mpmd | grep -v '^pid' | sed 's/_[0-9]*$//' | tr '\n' ' ' | sed 's/ $//')"
check "rank 0 not measuring: rank 1 says it has no directory for its files" \
    grep -q "rank 1: no experiment directory to write into (rank 0, which names it, does not measure)" mpmd.err

# Two jobs of the same name, both signalled while neither has written: each keeps its
# own directory (same, same-1) with both of its ranks' profiles.
mkdir two
(cd two && HP_EXPERIMENT_DIRECTORY=same exec timeout -k 5 60 mpiexec -n 2 ../signal > ../twoa.out 2> ../twoa.err) &
joba=$!
await_files 2 "two/pid.*"
mkdir two/b
for f in two/pid.*; do mv "$f" "two/a-${f#two/}"; done
(cd two && HP_EXPERIMENT_DIRECTORY=same exec timeout -k 5 60 mpiexec -n 2 ../signal > ../twob.out 2> ../twob.err) &
jobb=$!
await_files 2 "two/pid.*"
kill -TERM $(cat two/pid.0 two/pid.1 two/a-pid.0 two/a-pid.1)
wait $joba $jobb
check_eq "two jobs of one name: two directories, each with both ranks' profiles" \
    "same:profile-rank0.cubex,profile-rank1.cubex, same-1:profile-rank0.cubex,profile-rank1.cubex," \
    "$(cd two && for d in same*; do printf '%s:' $d; ls $d | grep cubex | tr '\n' ,; echo; done | tr '\n' ' ' | sed 's/ $//')"

# A slow creating rank (an oversubscribed node, NFS): HP_TEST_PUBLISH_DELAY_MS holds the
# rank that creates the directory back for that long right before the directory appears
# under its name. Both ranks, signalled together, still write into one directory. Where
# the filesystem cannot rename without replacing (HP_TEST_RENAME_FALLBACK=1 takes that
# way), the name is taken by an empty directory first, which the other rank waits for
# (2 s at most).
# dirs_of DIR: each directory in DIR with the profiles in it, and what else DIR holds
dirs_of() {
    (cd "$1" && for d in $(entries .); do
        printf '%s:' "$d"
        ls "$d" | grep cubex | tr '\n' ,
        echo
    done | tr '\n' ' ' | sed 's/ $//')
}
# slow_job DIR VAR=VALUE...: a 2-rank job of ./signal in DIR with the variables set, both
# ranks signalled (SIGTERM) at once
slow_job() {
    _dir=$1
    shift
    mkdir "$_dir"
    (cd "$_dir" && exec env HP_EXPERIMENT_DIRECTORY=same "$@" timeout -k 5 60 mpiexec -n 2 \
        ../signal > "../$_dir.out" 2> "../$_dir.err") &
    job=$!
    await_files 2 "$_dir/pid.*"
    kill -TERM $(cat "$_dir"/pid.0 "$_dir"/pid.1)
    wait $job
}
slow_job slow HP_TEST_PUBLISH_DELAY_MS=1500
check_eq "a creating rank 1.5 s slow: one directory with both ranks' profiles, nothing left over" \
    "same:profile-rank0.cubex,profile-rank1.cubex," "$(dirs_of slow)"
slow_job slowfb HP_TEST_PUBLISH_DELAY_MS=1000 HP_TEST_RENAME_FALLBACK=1
check_eq "... also without RENAME_NOREPLACE (1 s slow)" \
    "same:profile-rank0.cubex,profile-rank1.cubex," "$(dirs_of slowfb)"

# Symbolic links put into the experiment directory while the program runs (here between
# two snapshots) are not followed: a second snapshot directory that is a link, and links
# in place of summary.txt and profile.cubex's temporary file, are refused with a message;
# what they point to stays untouched, and the rest is written.
mkdir links links/elsewhere
(cd links && exec env HP_DUMP_SIGNAL=USR1 HP_EXPERIMENT_DIRECTORY=exp ../signals 15 wait \
    > out 2> err) &
pid=$!
await_files 1 links/ready
kill -USR1 $pid
await_files 1 links/exp/snapshot-1/profile.cubex
ln -s ../elsewhere links/exp/snapshot-2
ln -s ../summary-target links/exp/summary.txt
ln -s ../cube-target links/exp/profile.cubex.tmp
kill -USR1 $pid
for _i in $(seq 100); do grep -q "cannot create exp/snapshot-2" links/err && break; sleep 0.1; done
kill -TERM $pid
wait $pid
check_eq "links: the snapshot, summary.txt and the profile are refused" \
    "hpmeasure: cannot create exp/snapshot-2: a symbolic link is in its place (not followed)
hpmeasure: cannot write exp/summary.txt: a symbolic link is in its place (not followed)" \
    "$(grep -e '^hpmeasure: cannot create' -e '^hpmeasure: cannot write' links/err)"
check_eq "... the profile's failure is said too" \
    "hpmeasure: cube writer: cannot create exp/profile.cubex.tmp: Too many levels of symbolic links" \
    "$(grep 'profile.cubex.tmp' links/err)"
check_eq "... nothing was written where the links point; hp.config was written" \
    "elsewhere: exp/hp.config" \
    "$(cd links && echo "elsewhere:$(ls elsewhere)" $(ls -d summary-target cube-target exp/hp.config 2> /dev/null))"

# hp-run mpiexec: SIGTERM to mpiexec (hp-run's process). mpiexec forwards it to the
# ranks, which write their profiles and say so; mpiexec itself writes nothing and says
# nothing of writing.
rm -f pid.*
HP_EXPERIMENT_DIRECTORY=hprun hp-run mpiexec -n 2 ./plain > hprun.out 2> hprun.err &
job=$!
await_files 2 "pid.*"
kill -TERM $job
wait $job
check_eq "hp-run: SIGTERM to mpiexec: one 'writing' message per rank" 2 \
    "$(grep -c "interrupted by signal 15 (SIGTERM).*writing the measurement so far" hprun.err)"
check_eq "hp-run: both ranks' profiles written" "profile-rank0.cubex profile-rank1.cubex" \
    "$(ls hprun | grep cubex | tr '\n' ' ' | sed 's/ $//')"
# A command that is not an MPI program: nothing is written, and nothing says it is.
mkdir hpsleep
(cd hpsleep && exec hp-run mpiexec -n 2 sh -c 'echo $$ > pid.$PMI_RANK; exec sleep 60' > ../hpsleep.out 2> ../hpsleep.err) &
job=$!
await_files 2 "hpsleep/pid.*"
kill -TERM $job
wait $job
check_eq "hp-run without MPI: SIGTERM writes nothing and says nothing of writing" "0 " \
    "$(grep -c "writing" hpsleep.err) $(entries hpsleep)"
finish
