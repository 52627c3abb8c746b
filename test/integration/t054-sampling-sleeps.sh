#!/bin/sh
# Sleeps and time-outs under timer sampling (issue 22, item 4): at 20 kHz, every sleep,
# poll, select and clock_nanosleep(TIMER_ABSTIME) of sleeps.c lasts as in the plain
# build (1.0 s +-5% for each set of ten), sem_timedwait and sigtimedwait time out as
# plain, and the program's own signals still interrupt (SIGUSR1 from a helper thread:
# EINTR with the time left in rem; alarm: sleep returns early). The profile charges the
# sleeping time to the sleeping call path (main/nap/<nanosleep> about 1 s) and never to
# hpmeasure's own calls (pthread_sigmask). The same under hp-run (the preloaded library)
# and for two MPI ranks that sleep. Timings with one rank at a time: 2 cores here.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 25

SLEEPS="$PROGRAMS/sampling/sleeps.c"
MODES="nap timeouts abstime waits signals"
check "build sleeps.c plain" gcc -O1 -g -o sleeps-plain "$SLEEPS" -lpthread
check "build sleeps.c with --nocompiler" hp-instrument --nocompiler gcc -O1 -g -o sleeps-nc "$SLEEPS" -lpthread

check "plain run" ./sleeps-plain $MODES
cp "$WORK/last.out" plain.out
HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=nc check "sampled run at 20 kHz" \
    ./sleeps-nc $MODES
cp "$WORK/last.out" nc.out

# seconds NAME FILE: the time the line "NAME ... <seconds>" of FILE reports
seconds() { awk -v n="$1" '$1 == n { print $NF }' "$2"; }
# within VALUE LOW HIGH
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }
# like_plain VALUE EXPECTED PLAIN: VALUE is EXPECTED +-5%, or up to 5% above PLAIN when
# the plain run itself overslept (a busy machine only ever makes sleeps longer)
like_plain() {
    awk -v v="$1" -v e="$2" -v p="$3" 'BEGIN { hi = (p > e ? p : e) * 1.05
        exit !(v != "" && v >= e * 0.95 && v <= hi) }'
}
for m in nap timeouts abstime; do
    check "$m: 1.0 s +-5% sampled ($(seconds $m nc.out)) as plain ($(seconds $m plain.out))" \
        like_plain "$(seconds $m nc.out)" 1.0 "$(seconds $m plain.out)"
done
# The results without the times; sleep(3) cut by alarm(1) returns 2 or 1 (the rounding
# of the 2 s left), plain or not.
results() { sed 's/ [0-9.]*$//; s/^sleep [12] /sleep 1-2 /' "$1"; }
check_eq "the same results as plain: no EINTR from sampling, the program's signals interrupt" \
    "nap;timeouts;abstime;sem_timedwait -1 Connection timed out;sigtimedwait -1 Resource temporarily unavailable;ready 1 POLLIN 1 0;nanosleep -1 Interrupted system call got=SIGUSR1 left_ok=1;sleep 1-2 got=SIGALRM" \
    "$(results nc.out | tr '\n' ';' | sed 's/;$//')"
check_eq "plain gives the same" "$(results plain.out)" "$(results nc.out)"
check "SIGUSR1 after 0.2 s, alarm after 1 s, time-outs of 0.2 s, ready calls at once" sh -c "
    $(command -v awk) '/^(nanosleep|sem_timedwait|sigtimedwait)/ && !(\$NF >= 0.19 && \$NF < 0.4) { exit 1 }
        /^ready/ && \$NF >= 0.1 { exit 1 }
        /^sleep/ && !(\$NF >= 0.99 && \$NF < 1.2) { exit 1 }' nc.out"

$CUBEDUMP nc/profile.cubex > nc.dump 2>/dev/null
# incl PATH-REGEX: inclusive time of the call path that matches, on the master thread.
# In a sanitizer build the preloaded ASan runtime intercepts these calls first: its
# interceptor is the one frame allowed above the C library's function (as in t050).
asan_frame=
[ -n "${HP_ASAN_RUNTIME:-}" ] && asan_frame='(__interceptor_[^/]*/)?'
incl() { awk -F'\t' -v p="^sleeps-nc/$1\$" '$1 ~ p && $2 == 0 { sub("time_incl=", "", $4); print $4 }' nc.dump; }
nap=$(incl "main/nap/$asan_frame[_a-z]*nanosleep")
check "main/nap/<nanosleep> holds the sleeping time: 1.0 s +-10% ($nap)" within "$nap" 0.9 1.1
poll=$(incl "main/wait_poll/$asan_frame[_a-z]*poll")
select=$(incl "main/wait_select/$asan_frame[_a-z]*select")
check "main/wait_poll/<poll> and main/wait_select/<select>: 0.5 s +-10% each ($poll, $select)" \
    sh -c "within() { $(command -v awk) -v v=\"\$1\" 'BEGIN { exit !(v != \"\" && v >= 0.45 && v <= 0.55) }'; }; within '$poll' && within '$select'"
abs=$(incl "main/wait_until/${asan_frame}clock_nanosleep")
check "main/wait_until/clock_nanosleep (TIMER_ABSTIME): 1.0 s +-10% ($abs)" within "$abs" 0.9 1.1
# visits PATH-REGEX: visits of the call path that matches, on the master thread
visits() { awk -F'\t' -v p="^sleeps-nc/$1\$" '$1 ~ p && $2 == 0 { sub("visits=", "", $3); print $3 }' nc.dump; }
# A held call is known to have returned: each of them is a visit (sampled functions
# count lower bounds; every one of these calls waits for 2000 sampling intervals).
check_eq "visits of the waiting calls: 10 nanosleep, 5 poll, 5 select, 10 clock_nanosleep" \
    "10 5 5 10" "$(visits "main/nap/$asan_frame[_a-z]*nanosleep") $(visits "main/wait_poll/$asan_frame[_a-z]*poll") $(visits "main/wait_select/$asan_frame[_a-z]*select") $(visits "main/wait_until/${asan_frame}clock_nanosleep")"
check_eq "no call path shows hpmeasure's own calls (pthread_sigmask, sigtimedwait below a wait)" "" \
    "$(grep -E '/pthread_sigmask	|/(__)?sigtimedwait/' nc.dump)"
# One held signal per wait on the master thread (10 + 5 + 5 + 10 + 2 + 2) and the
# helper thread's 200 ms nanosleep.
check "summary.txt: 35 samples held back by sleeps" \
    grep -Eq '^ +35  held back by sleeps and other blocking calls' nc/summary.txt

HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=run check "hp-run ./sleeps-plain nap (20 kHz)" \
    hp-run ./sleeps-plain nap
t=$(seconds nap "$WORK/last.out")
check "under hp-run: 1.0 s +-5% ($t)" like_plain "$t" 1.0 "$(seconds nap plain.out)"

MSLEEPS="$PROGRAMS/sampling/mpi_sleeps.c"
check "build mpi_sleeps.c plain and with --nocompiler" sh -c "mpicc -O1 -g -o msleeps-plain '$MSLEEPS' &&
    hp-instrument --nocompiler mpicc -O1 -g -o msleeps '$MSLEEPS'"
check "plain: 2 ranks that sleep" timeout 120 mpiexec -n 2 ./msleeps-plain
plain=$(seconds sleeps "$WORK/last.out")
HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=mpi check "2 ranks that sleep, 20 kHz" \
    timeout 120 mpiexec -n 2 ./msleeps
t=$(seconds sleeps "$WORK/last.out")
check "rank 0 slept 0.8 s +-5% ($t; plain $plain)" like_plain "$t" 0.8 "$plain"
$CUBEDUMP mpi/profile.cubex > mpi.dump 2>/dev/null
usleep_time() {
    awk -F'\t' -v r="$1" -v p="^msleeps/main/nap/${asan_frame}usleep\$" \
        '$1 ~ p && $2 == r { sub("time_incl=", "", $4); print $4 }' mpi.dump
}
r0=$(usleep_time 0) r1=$(usleep_time 1)
check "main/nap/usleep: 0.8 s on rank 0, 0.5 s on rank 1, +-10% ($r0, $r1)" \
    sh -c "[ -n '$r0' ] && [ -n '$r1' ] && $(command -v awk) 'BEGIN { exit !($r0 >= 0.72 && $r0 <= 0.88 && $r1 >= 0.45 && $r1 <= 0.55) }'"
HP_SAMPLING_FREQUENCY=20000 HP_EXPERIMENT_DIRECTORY=mpirun check "hp-run mpiexec -n 2 ./msleeps-plain (20 kHz)" \
    timeout 120 hp-run mpiexec -n 2 ./msleeps-plain
t=$(seconds sleeps "$WORK/last.out")
check "under hp-run, rank 0 slept 0.8 s +-5% ($t)" like_plain "$t" 0.8 "$plain"
finish
