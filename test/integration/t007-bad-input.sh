#!/bin/sh
# Bad HP_* values and bad filter files stop the program before it runs, with a message
# that names the input, the problem and what is accepted.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 39

check "build calltree.c" hp-instrument gcc -O1 -o calltree "$PROGRAMS/calltree.c"
expect_fail "HP_TOTAL_MEMORY=lots" "HP_TOTAL_MEMORY='lots' is not valid: expected a byte count with optional K, M or G suffix" \
    env HP_TOTAL_MEMORY=lots ./calltree
check_eq "the program did not run" "" "$(cat "$WORK/last.out")"
expect_fail "HP_TOTAL_MEMORY too small" "HP_TOTAL_MEMORY='1K' is out of range: expected at least 256K" \
    env HP_TOTAL_MEMORY=1K ./calltree
expect_fail "HP_ENABLE_PROFILING=maybe" "HP_ENABLE_PROFILING='maybe' is not valid: expected true, false, yes, no, 1, 0" \
    env HP_ENABLE_PROFILING=maybe ./calltree
expect_fail "HP_TIMER=cycles" "HP_TIMER='cycles' is not valid: expected tsc or monotonic" \
    env HP_TIMER=cycles ./calltree
expect_fail "HP_THREAD_LOCATIONS=some" "HP_THREAD_LOCATIONS='some' is not valid: expected reuse or each" \
    env HP_THREAD_LOCATIONS=some ./calltree

printf '# a rule outside any block\nEXCLUDE foo\n' > bad.filt
expect_fail "filter file with a rule outside a block names file:line" "bad\.filt:2: found 'EXCLUDE', expected SCOREP_" \
    env HP_FILTERING_FILE=bad.filt ./calltree
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo\n' > open.filt
expect_fail "unterminated block" "open\.filt:2: found end of file" \
    env HP_FILTERING_FILE=open.filt ./calltree
expect_fail "missing filter file" "nothere\.filt: cannot read" \
    env HP_FILTERING_FILE=nothere.filt ./calltree

hp-info config-vars > vars.txt
check_eq "hp-info config-vars lists every HP_* variable of DESIGN.md and the sampling issue" \
    "HP_ENABLE_PROFILING HP_ENABLE_TRACING HP_WAIT_STATES HP_EXPERIMENT_DIRECTORY HP_FILTERING_FILE HP_TOTAL_MEMORY HP_TRACE_BUFFER HP_TRACE_ADAPTIVE HP_TRACE_EVENT_SHARE HP_TIMER HP_SAMPLING_FREQUENCY HP_PROFILING_MAX_DEPTH HP_PROFILING_RECURSION HP_SELECT_SUBTREES HP_EXCLUDE_SUBTREES HP_THREAD_LOCATIONS HP_OVERHEAD_BUDGET HP_MPI_UNWIND_EXCLUDE HP_UNWIND_THUNKS HP_MPI_ENABLE_GROUPS HP_MPI_EXCLUDE HP_METRIC_PAPI HP_METRIC_PERF HP_METRIC_RUSAGE HP_FINALIZE_SIGNALS HP_DUMP_SIGNAL HP_SITE_LOG HP_PLUGINS HP_VERBOSE" \
    "$(grep '^HP_' vars.txt | tr '\n' ' ' | sed 's/ $//')"
check "config-vars shows the default of HP_TOTAL_MEMORY" grep -qx "  Default: 16M" vars.txt
expect_fail "HP_OVERHEAD_BUDGET above 100 is refused, naming the range" \
    "HP_OVERHEAD_BUDGET='101'.*0 \(off\) up to 100 \(percent\)" env HP_OVERHEAD_BUDGET=101 ./calltree
expect_fail "HP_SITE_LOG must be an absolute path" \
    "HP_SITE_LOG='site.log' is out of range: expected an absolute path" \
    env HP_SITE_LOG=site.log ./calltree
expect_fail "HP_TRACE_BUFFER above half of HP_TOTAL_MEMORY is refused, naming the range" \
    "HP_TRACE_BUFFER='12M' is out of range: expected 0 \(a quarter of HP_TOTAL_MEMORY\), or from 256K up to half of HP_TOTAL_MEMORY" \
    env HP_TRACE_BUFFER=12M ./calltree
expect_fail "hp-info config rejects a bad value too" "HP_TIMER='x' is not valid" env HP_TIMER=x hp-info config

# A budget that cannot be reserved is refused at start like any bad value, not found out
# by a run that measures nothing and exits 0.
expect_fail "HP_TOTAL_MEMORY=99999999G cannot be reserved: refused at start" \
    "HP_TOTAL_MEMORY='99999999G' \(107374181326258176 bytes\) cannot be reserved \(Cannot allocate memory\): expected a budget this process can map" \
    env HP_TOTAL_MEMORY=99999999G HP_EXPERIMENT_DIRECTORY=huge ./calltree
check_eq "... the program did not run, no experiment" "no" "$(cat last.out; test -e huge && echo yes || echo no)"

# Configuration typos: one warning each at start, with the closest known name; the run
# goes on. Variables of hp-instrument, hp-run, the example plug-ins and this test
# harness (HP_SRCDIR, HP_INSTRUMENT_LIBDIR, ... are set now) start with HP_ too and are
# not warned about.
HP_ENABLE_TRACNG=true HP_FOO=1 HP_EXPERIMENT_DIRECTORY=typo ./calltree > typo.out 2> typo.err
check_eq "HP_ENABLE_TRACNG and HP_FOO: the program runs and is measured" "0 yes" \
    "$? $(test -f typo/profile.cubex && echo yes)"
check_eq "... one warning each, the typo with the name it was probably meant to be" \
    "hpmeasure: HP_ENABLE_TRACNG is not a configuration variable; did you mean HP_ENABLE_TRACING? It is ignored.
hpmeasure: HP_FOO is not a configuration variable; it is ignored ('hp-info config-vars' lists them)." \
    "$(sort typo.err)"
check_eq "the other tools' HP_ variables are not warned about" "" \
    "$(HP_WRAPPER=gcc HP_WRAPPER_ARGS=-O2 HP_INSTRUMENT_STRICT=1 HP_RUN_PROGRAM=1 HP_CSV_CALLS=x \
        HP_MPI_TIMEOUT=60 HP_EXPERIMENT_DIRECTORY=others ./calltree 2>&1 >/dev/null)"
# In an MPI job the warning comes once, from rank 0 (the process manager's PMI_RANK).
if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
    printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' > init.c
    hp-instrument mpicc -O1 -o init init.c
    check_eq "a typo in a 2-rank job: one warning, from rank 0" \
        "hpmeasure: HP_ENABLE_TRACNG is not a configuration variable; did you mean HP_ENABLE_TRACING? It is ignored." \
        "$(HP_ENABLE_TRACNG=1 HP_EXPERIMENT_DIRECTORY=mpi timeout 60 mpiexec -n 2 ./init 2>&1)"
    # hp-run preloads the library into mpiexec and its proxies too: still one warning.
    mpicc -O1 -o init-plain init.c
    check_eq "... and under hp-run, which measures the launcher's processes too" \
        "hpmeasure: HP_ENABLE_TRACNG is not a configuration variable; did you mean HP_ENABLE_TRACING? It is ignored." \
        "$(HP_ENABLE_TRACNG=1 HP_EXPERIMENT_DIRECTORY=mpi-run timeout 60 hp-run mpiexec -n 2 ./init-plain 2>&1)"
else
    ok "a typo in a 2-rank job # SKIP no MPI"
    ok "... and under hp-run # SKIP no MPI"
fi
check_eq "hp-info config warns about the typo too" \
    "hp-info: warning:
HP_ENABLE_TRACNG is not a configuration variable; did you mean HP_ENABLE_TRACING? It is ignored." \
    "$(HP_ENABLE_TRACNG=1 hp-info config 2>&1 >/dev/null)"

# Signal lists: numbers 1 to 64 and real-time names are taken; an empty
# HP_FINALIZE_SIGNALS is refused (none says it); HP_DUMP_SIGNAL may be neither a
# finalize signal (SIGTERM would then only snapshot) nor the sampling signal.
check "build signals.c" hp-instrument gcc -O1 -o signals "$PROGRAMS/signals.c"
HP_FINALIZE_SIGNALS=64 HP_EXPERIMENT_DIRECTORY=sig64 ./signals 64 raise > /dev/null 2>&1
check_eq "HP_FINALIZE_SIGNALS=64: signal 64 writes the profile, then ends the program (192)" \
    "192 incomplete:  interrupted by signal 64 (SIGRTMAX) at" \
    "$? $(grep -o 'incomplete:.*at' sig64/summary.txt)"
RT3=$(($(kill -l RTMIN) + 3))
HP_FINALIZE_SIGNALS=TERM,SIGRTMIN+3 HP_EXPERIMENT_DIRECTORY=sigrt ./signals "$RT3" raise \
    > /dev/null 2>&1
check_eq "HP_FINALIZE_SIGNALS=TERM,SIGRTMIN+3: SIGRTMIN+3 writes the profile, named so" \
    "$((128 + RT3)) interrupted by signal $RT3 (SIGRTMIN+3)" \
    "$? $(grep -o 'interrupted by signal [0-9]* ([A-Z+0-9]*)' sigrt/summary.txt)"
expect_fail "an empty HP_FINALIZE_SIGNALS is refused, naming none" \
    "HP_FINALIZE_SIGNALS='' is not valid \(empty; none means no signal\): expected signal names" \
    env HP_FINALIZE_SIGNALS= ./calltree
expect_fail "65 is not a signal number" "HP_FINALIZE_SIGNALS='TERM,65' is not valid \(65 is not a signal number \(1 to 64\)\)" \
    env HP_FINALIZE_SIGNALS=TERM,65 ./calltree
expect_fail "HP_DUMP_SIGNAL=TERM is refused: TERM is a finalize signal by default" \
    "HP_DUMP_SIGNAL='TERM' is not valid \(it is also a finalize signal: HP_FINALIZE_SIGNALS=TERM,INT,XCPU,USR2 by default\)" \
    env HP_DUMP_SIGNAL=TERM ./calltree
expect_fail "HP_DUMP_SIGNAL=SIGRTMIN+6 is refused: the sampling signal" \
    "HP_DUMP_SIGNAL='SIGRTMIN\+6' is not valid \(SIGRTMIN\+6 is the signal of hpmeasure's sampling \(SIGRTMIN\+6\)\)" \
    env HP_DUMP_SIGNAL=SIGRTMIN+6 ./calltree
check "HP_DUMP_SIGNAL=USR2 with USR2 left out of HP_FINALIZE_SIGNALS is taken" \
    env HP_DUMP_SIGNAL=USR2 HP_FINALIZE_SIGNALS=TERM,INT HP_EXPERIMENT_DIRECTORY=usr2 ./calltree

# Filter files are echoed escaped: a terminal escape in the file reaches the terminal as
# text; a NUL byte is named where it is (it used to read as "found end of file").
printf 'SCOREP_REGION_NAMES_BEGIN\n \033[2J\033[31mEVIL\nSCOREP_REGION_NAMES_END\n' > esc.filt
expect_fail "a control character from a filter file is echoed escaped" \
    "esc\.filt:2: found '\\\\x1b\\[2J\\\\x1b\\[31mEVIL', expected INCLUDE" \
    env HP_FILTERING_FILE=esc.filt ./calltree
check_eq "... and no escape byte reaches stderr" "0" "$(tr -cd '\033' < last.err | wc -c)"
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE fo\000o\nSCOREP_REGION_NAMES_END\n' > nul.filt
expect_fail "a NUL byte in a filter file is named by line and column" \
    "nul\.filt:2:13: found a NUL byte, expected text \(a filter file is a text file\)" \
    env HP_FILTERING_FILE=nul.filt ./calltree
expect_fail "... and so is the filter file's name" \
    "no\\\\x1b\\[1m\\.filt: cannot read: No such file or directory" \
    env HP_FILTERING_FILE="$(printf 'no\033[1m.filt')" ./calltree
expect_fail "an escape in a value is echoed escaped too" "HP_TIMER='\\\\x1b\\[31mred' is not valid" \
    env HP_TIMER="$(printf '\033[31mred')" ./calltree
# So is the experiment directory's name in the messages about it.
esc_dir=$(printf 'exp\033[31m')
HP_EXPERIMENT_DIRECTORY="$esc_dir" ./calltree > /dev/null 2>&1
HP_EXPERIMENT_DIRECTORY="$esc_dir" ./calltree > /dev/null 2> escdir.err
check_eq "an escape in HP_EXPERIMENT_DIRECTORY is echoed escaped" \
    'hpmeasure: exp\x1b[31m exists already; writing to exp\x1b[31m-1 instead' "$(cat escdir.err)"
check_eq "... and both directories were written under the name as given" "yes yes" \
    "$(test -f "$esc_dir/profile.cubex" && echo yes) $(test -f "$esc_dir-1/profile.cubex" && echo yes)"
finish
