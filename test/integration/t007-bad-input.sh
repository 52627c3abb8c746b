#!/bin/sh
# Bad HP_* values and bad filter files stop the program before it runs, with a message
# that names the input, the problem and what is accepted.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 16

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
    "HP_ENABLE_PROFILING HP_ENABLE_TRACING HP_EXPERIMENT_DIRECTORY HP_FILTERING_FILE HP_TOTAL_MEMORY HP_TRACE_BUFFER HP_TRACE_ADAPTIVE HP_TRACE_EVENT_SHARE HP_TIMER HP_SAMPLING_FREQUENCY HP_PROFILING_MAX_DEPTH HP_PROFILING_RECURSION HP_SELECT_SUBTREES HP_EXCLUDE_SUBTREES HP_THREAD_LOCATIONS HP_OVERHEAD_BUDGET HP_MPI_UNWIND_EXCLUDE HP_UNWIND_THUNKS HP_MPI_ENABLE_GROUPS HP_MPI_EXCLUDE HP_METRIC_PAPI HP_METRIC_PERF HP_METRIC_RUSAGE HP_FINALIZE_SIGNALS HP_DUMP_SIGNAL HP_SITE_LOG HP_PLUGINS HP_VERBOSE" \
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
finish
