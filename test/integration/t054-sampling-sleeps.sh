#!/bin/sh
# Sleeps and time-outs under timer sampling (issue 22, item 4): at 20 kHz, every sleep,
# poll, select and clock_nanosleep(TIMER_ABSTIME) of sleeps.c lasts as in the plain
# build (1.0 s, 5% less to 25% more, for each set of ten), sem_timedwait and sigtimedwait time out as
# plain, ready calls return at once, calls that do not wait (zero time-outs) never fail
# with EINTR because of a sample, and the program's own signals still interrupt (SIGUSR1
# from a helper thread: EINTR with the time left in rem; alarm: sleep returns early). The profile charges the sleeping time to the sleeping call path (main/nap/
# <nanosleep>: the time the program measured itself, +-10%), each held call is a visit,
# and hpmeasure's own calls (pthread_sigmask) show nowhere. The same under hp-run (the
# preloaded library) and for two MPI ranks that sleep.
# Then the review's cases (sleeps.c pool, more, jump): a thread that blocks every signal
# is not charged a sample at its sleeps, nor handed SIGRTMIN+6 by sigtimedwait; thrd_sleep,
# epoll_pwait2, semtimedop, msgrcv and sigwait last and return as plain; a longjmp out of
# a held nanosleep leaves the sampling signal blocked only until the next blocking call.
#
# A busy machine only ever makes sleeps longer: a run whose sleeps took more than 5%
# above the plain ones is run again once (plain and sampled), never one that returned
# early, which is what sampling did before. The bounds are 5% below the nominal time
# (sampling's bug: EINTR, early returns) and 25% above it or the plain run (a loaded
# machine wakes each sleeper late, by 9% over ten sleeps in a loaded run; a wait that
# started over at each sample would never end). So loose an upper bound cannot tell a
# sleep that sampling stretched a little, which is acceptable because the hold itself is
# checked exactly: summary.txt's count of samples "held back by sleeps" (35) and the
# results of the calls that must not see EINTR catch a hold that fails.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 29

# seconds NAME FILE: the time the line "NAME ... <seconds>" of FILE reports
seconds() { awk -v n="$1" '$1 == n { print $NF }' "$2"; }
# within VALUE LOW HIGH
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }
# like_plain VALUE EXPECTED PLAIN: VALUE is EXPECTED -5% to +25%, or up to 25% above
# PLAIN when the plain run itself overslept
like_plain() {
    awk -v v="$1" -v e="$2" -v p="$3" 'BEGIN { hi = (p > e ? p : e) * 1.25
        exit !(v != "" && v >= e * 0.95 && v <= hi) }'
}
# overslept SAMPLED PLAIN EXPECTED NAME...: true when a NAME took over 5% too long
overslept() {
    s=$1 p=$2 e=$3
    shift 3
    for n in "$@"; do
        t=$(seconds "$n" "$s")
        [ -n "$t" ] && awk -v v="$t" -v e="$e" -v p="$(seconds "$n" "$p")" \
            'BEGIN { exit !(v > (p > e ? p : e) * 1.05) }' && return 0
    done
    return 1
}

SLEEPS="$PROGRAMS/sampling/sleeps.c"
MODES="nap timeouts abstime waits zero signals"
check "build sleeps.c plain" gcc -O1 -g -o sleeps-plain "$SLEEPS" -lpthread
check "build sleeps.c with --nocompiler" hp-instrument --nocompiler gcc -O1 -g -o sleeps-nc "$SLEEPS" -lpthread

# plain_and_sampled N: plain.out, and nc.out with the experiment nc
plain_and_sampled() {
    rm -rf nc
    ./sleeps-plain $MODES > plain.out 2>&1 &&
        HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=nc ./sleeps-nc $MODES > nc.out 2>&1
}
plain_and_sampled
overslept nc.out plain.out 1.0 nap timeouts abstime && plain_and_sampled
check "plain run, then sampled at 20 kHz" test -s nc/profile.cubex
for m in nap timeouts abstime; do
    check "$m: 1.0 s -5%/+25% sampled ($(seconds $m nc.out)) as plain ($(seconds $m plain.out))" \
        like_plain "$(seconds $m nc.out)" 1.0 "$(seconds $m plain.out)"
done
# The results without the times; sleep(3) cut by alarm(1) returns 2 or 1 (the rounding
# of the 2 s left), plain or not.
results() { sed 's/ [0-9.]*$//; s/^sleep [12] /sleep 1-2 /' "$1"; }
check_eq "the same results as plain: no EINTR from sampling, the program's signals interrupt" \
    "nap;timeouts;abstime;sem_timedwait -1 Connection timed out;sigtimedwait -1 Resource temporarily unavailable;ready 1 POLLIN 1 0;zero eintr=0 calls>1000;nanosleep -1 Interrupted system call got=SIGUSR1 left_ok=1;sleep 1-2 got=SIGALRM" \
    "$(results nc.out | tr '\n' ';' | sed 's/;$//')"
check_eq "plain gives the same" "$(results plain.out)" "$(results nc.out)"
check "SIGUSR1 after 0.2 s, alarm after 1 s, time-outs of 0.2 s, ready calls at once" sh -c "
    $(command -v awk) '/^(nanosleep|sem_timedwait|sigtimedwait)/ && !(\$NF >= 0.19 && \$NF < 0.4) { exit 1 }
        /^ready/ && \$NF >= 0.1 { exit 1 }
        /^sleep/ && !(\$NF >= 0.99 && \$NF < 1.2) { exit 1 }' nc.out"

$CUBEDUMP nc/profile.cubex > nc.dump 2>/dev/null
# In a sanitizer build the preloaded ASan runtime intercepts these calls first: its
# interceptor is the one frame allowed above the C library's function (as in t050).
asan_frame=
[ -n "${HP_ASAN_RUNTIME:-}" ] && asan_frame='(__interceptor_[^/]*/)?'
# field N PATH-REGEX: field N (3 visits, 4 inclusive time) of the path, master thread
field() {
    awk -F'\t' -v f="$1" -v p="^sleeps-nc/$2\$" \
        '$1 ~ p && $2 == 0 { sub(/^[a-z_]*=/, "", $f); print $f }' nc.dump
}
NAP="main/nap/$asan_frame[_a-z]*nanosleep" POLL="main/wait_poll/$asan_frame(__)?poll"
SELECT="main/wait_select/$asan_frame[_a-z]*select" UNTIL="main/wait_until/${asan_frame}clock_nanosleep"
# charged NAME PATH...: the paths' time against the time the program measured for NAME
charged() {
    n=$1
    shift
    sum=0
    for p in "$@"; do sum=$(awk -v a="$sum" -v b="$(field 4 "$p")" 'BEGIN { print a + b }'); done
    t=$(seconds "$n" nc.out)
    echo "$sum of $t"
    awk -v s="$sum" -v t="$t" 'BEGIN { exit !(t > 0 && s >= t * 0.9 && s <= t * 1.1) }'
}
check "main/nap/<nanosleep> holds the time the naps took, +-10% ($(charged nap "$NAP"))" \
    charged nap "$NAP"
check "<poll> and <select> below wait_poll and wait_select: the time-outs' time +-10% ($(charged timeouts "$POLL" "$SELECT"))" \
    charged timeouts "$POLL" "$SELECT"
check "main/wait_until/clock_nanosleep (TIMER_ABSTIME): the time it took +-10% ($(charged abstime "$UNTIL"))" \
    charged abstime "$UNTIL"
# A held call is known to have returned: each of them is a visit (sampled functions
# count lower bounds; every one of these calls waits for 2000 sampling intervals).
check_eq "visits of the waiting calls: 10 nanosleep, 5 poll, 5 select, 10 clock_nanosleep" \
    "10 5 5 10" "$(field 3 "$NAP") $(field 3 "$POLL") $(field 3 "$SELECT") $(field 3 "$UNTIL")"
check_eq "no call path shows hpmeasure's own calls (pthread_sigmask, sigtimedwait below a wait)" "" \
    "$(grep -E '/pthread_sigmask	|/(__)?sigtimedwait/' nc.dump)"
# One held signal per wait on the master thread (10 + 5 + 5 + 10 + 2 + 2) and the
# helper thread's 200 ms nanosleep.
check "summary.txt: 35 samples held back by sleeps" \
    grep -Eq '^ +35  held back by sleeps and other blocking calls' nc/summary.txt

# review() runs the review's modes: review-plain.out, review.out and experiment review
review() {
    rm -rf review
    ./sleeps-plain pool more jump > review-plain.out 2>&1 &&
        HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=review ./sleeps-nc pool more jump \
            > review.out 2>&1
}
review
overslept review.out review-plain.out 1.0 more && review
check_eq "pool, more, jump: the program's results at 20 kHz" \
    "pool ours=0;more thrd_sleep=0 epoll_pwait2=0 semtimedop=-1 Resource temporarily unavailable msgrcv=4 sigwait=SIGALRM;jump blocked=0" \
    "$(results review.out | tr '\n' ';' | sed 's/;$//')"
check_eq "plain gives the same" "$(results review-plain.out)" "$(results review.out)"
check "more: five 0.2 s waits, 1.0 s -5%/+25% ($(seconds more review.out)) as plain ($(seconds more review-plain.out))" \
    like_plain "$(seconds more review.out)" 1.0 "$(seconds more review-plain.out)"
$CUBEDUMP review/profile.cubex > review.dump 2>/dev/null
# time PATH-REGEX: the summed inclusive time of the paths, any thread
time_of() {
    awk -F'\t' -v p="^sleeps-nc/$1\$" 'BEGIN { t = 0 }
        $1 ~ p { sub(/^time_incl=/, "", $4); t += $4 } END { print t }' review.dump
}
t=$(time_of "(.*/)?pool_nap/$asan_frame[_a-z]*nanosleep")
check "pool: the thread that blocks every signal has no sample at its sleeps ($t s, not its compute time)" \
    test "$t" = 0
# (against the time jump_compute took, which its line ends with: 0.2 s, or more when
# the thread was descheduled at its end on a loaded machine)
t=$(time_of "main/run_jump/jump_compute") took=$(seconds jump review.out)
check "jump: sampled again after the next nanosleep: jump_compute's time +-10% ($t of $took)" \
    awk -v t="$t" -v c="$took" 'BEGIN { exit !(c >= 0.2 && t >= c * 0.9 && t <= c * 1.1) }'

check "build sleeps.c with --nocompiler -O2 -D_FORTIFY_SOURCE=2: poll is __poll_chk" sh -c \
    "hp-instrument --nocompiler gcc -O2 -D_FORTIFY_SOURCE=2 -o sleeps-fortify '$SLEEPS' -lpthread &&
     nm sleeps-fortify | grep -q ' U __poll_chk'"
HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=fortify ./sleeps-fortify timeouts > fortify.out 2>&1
overslept fortify.out plain.out 1.0 timeouts &&
    HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=fortify2 ./sleeps-fortify timeouts > fortify.out 2>&1
t=$(seconds timeouts fortify.out)
check "fortified: time-outs 1.0 s -5%/+25% ($t), no EINTR" sh -c \
    "test \$(wc -l < fortify.out) = 1 && $(command -v awk) -v v='$t' -v p='$(seconds timeouts plain.out)' \
        'BEGIN { hi = (p > 1 ? p : 1) * 1.25; exit !(v >= 0.95 && v <= hi) }'"

run_preloaded() {
    rm -rf run
    HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=run hp-run ./sleeps-plain nap > run.out 2>&1
}
run_preloaded
overslept run.out plain.out 1.0 nap && run_preloaded
check "hp-run ./sleeps-plain nap (20 kHz)" test -s run/profile.cubex
t=$(seconds nap run.out)
check "under hp-run: 1.0 s -5%/+25% ($t)" like_plain "$t" 1.0 "$(seconds nap plain.out)"

MSLEEPS="$PROGRAMS/sampling/mpi_sleeps.c"
check "build mpi_sleeps.c plain and with --nocompiler" sh -c "mpicc -O1 -g -o msleeps-plain '$MSLEEPS' &&
    hp-instrument --nocompiler mpicc -O1 -g -o msleeps '$MSLEEPS'"
# mpi_runs: mplain.out, mpi.out (experiment mpi) and mpirun.out (hp-run, experiment mpirun)
mpi_runs() {
    rm -rf mpi mpirun
    timeout 120 mpiexec -n 2 ./msleeps-plain > mplain.out 2>&1
    HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=mpi \
        timeout 120 mpiexec -n 2 ./msleeps > mpi.out 2>&1
    HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=mpirun \
        timeout 120 hp-run mpiexec -n 2 ./msleeps-plain > mpirun.out 2>&1
}
mpi_runs
{ overslept mpi.out mplain.out 0.8 sleeps || overslept mpirun.out mplain.out 0.8 sleeps; } && mpi_runs
plain=$(seconds sleeps mplain.out)
check "plain, sampled and hp-run: 2 ranks that sleep (20 kHz)" \
    sh -c "test -n '$plain' && test -s mpi/profile.cubex && test -s mpirun/profile.cubex"
t=$(seconds sleeps mpi.out)
check "rank 0 slept 0.8 s -5%/+25% ($t; plain $plain)" like_plain "$t" 0.8 "$plain"
$CUBEDUMP mpi/profile.cubex > mpi.dump 2>/dev/null
usleep_time() {
    awk -F'\t' -v r="$1" -v p="^msleeps/main/nap/${asan_frame}usleep\$" \
        '$1 ~ p && $2 == r { sub("time_incl=", "", $4); print $4 }' mpi.dump
}
r0=$(usleep_time 0) r1=$(usleep_time 1)
# rank 0 sleeps 0.3 s more than rank 1, which waits for it in MPI_Barrier
check "main/nap/usleep: rank 0 the time it measured, rank 1 0.3 s less, +-10% ($r0, $r1 of $t)" \
    sh -c "[ -n '$r0' ] && [ -n '$r1' ] && $(command -v awk) 'BEGIN { exit !($r0 >= $t * 0.9 && $r0 <= $t * 1.1 && $r1 >= ($t - 0.3) * 0.9 && $r1 <= ($t - 0.3) * 1.1) }'"
t=$(seconds sleeps mpirun.out)
check "under hp-run, rank 0 slept 0.8 s -5%/+25% ($t; plain $plain)" like_plain "$t" 0.8 "$plain"
finish
