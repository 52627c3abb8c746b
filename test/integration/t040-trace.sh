#!/bin/sh
# HP_ENABLE_TRACING=true writes an OTF2 archive next to the profile: otf2-print reads it,
# otf2check.py passes, Enter events per region and location equal the profile's visits,
# filtered regions are in neither, threads are locations, exit() from deep inside leaves
# balanced Enter/Leave, and a small HP_TOTAL_MEMORY flushes buffers to disk (marked by
# TRACE BUFFER FLUSH regions) without losing events. A second reader, the otf2 Python
# bindings (otf2_second_reader.py), agrees with otf2-print and the profile.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 21
OTF2CHECK="$PY $HP_SRCDIR/test/tools/otf2check.py"
READER2="$PY $HP_SRCDIR/test/tools/otf2_second_reader.py"

check "build calltree.c" hp-instrument gcc -O1 -o calltree "$PROGRAMS/calltree.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=exp check "run with tracing" ./calltree
check "traces.otf2, traces.def and traces/ written" \
    test -f exp/traces.otf2 -a -f exp/traces.def -a -d exp/traces
check "otf2-print reads it" otf2-print exp/traces.otf2
check "otf2check.py passes" $OTF2CHECK exp/traces.otf2
trace_enters exp/traces.otf2 > enters.txt
profile_visits exp/profile.cubex > visits.txt
check "Enter events per region and location = profile visits" diff -u visits.txt enters.txt
check "python3-otf2 (second reader) agrees with otf2-print on every event" $READER2 exp/traces.otf2
$READER2 --enters exp/traces.otf2 > py-enters.txt
check "python3-otf2's Enter events = profile visits" diff -u visits.txt py-enters.txt

printf 'SCOREP_REGION_NAMES_BEGIN\nEXCLUDE leaf\nSCOREP_REGION_NAMES_END\n' > f.filt
HP_FILTERING_FILE=f.filt HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=filt ./calltree > /dev/null 2>&1
check "a filtered region is not in the trace" sh -c '! otf2-print filt/traces.otf2 | grep -q "Region: \"leaf\""'

check "build threads.c" hp-instrument gcc -O1 -pthread -o threads "$PROGRAMS/threads.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=thr check "run threads with tracing" ./threads
check "threads: otf2check.py passes" $OTF2CHECK thr/traces.otf2
trace_enters thr/traces.otf2 > thr-enters.txt
profile_visits thr/profile.cubex > thr-visits.txt
check "threads: Enter events = visits on each of the 4 locations" diff -u thr-visits.txt thr-enters.txt
check "threads: python3-otf2 agrees with otf2-print" $READER2 thr/traces.otf2

check "build deep_exit.c" hp-instrument gcc -O0 -o deep "$PROGRAMS/deep_exit.c"
HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=deep-exp ./deep 2000 > /dev/null 2>&1
check "exit() from 2000 levels deep: otf2check.py passes (balanced)" $OTF2CHECK deep-exp/traces.otf2

check "build loop.c" hp-instrument gcc -O1 -o loop "$PROGRAMS/loop.c"
# Every call traced (HP_OVERHEAD_BUDGET=0): the default budget would switch the hot
# functions off before the buffer fills.
HP_OVERHEAD_BUDGET=0 HP_TOTAL_MEMORY=1M HP_ENABLE_TRACING=true HP_EXPERIMENT_DIRECTORY=small ./loop > /dev/null 2> small.err
check "small buffer: flushed, and said so" sh -c 'grep -q "TRACE BUFFER FLUSH" small/summary.txt && grep -q "flushed to disk" small.err'
check "small buffer: otf2check.py passes" $OTF2CHECK small/traces.otf2
trace_enters small/traces.otf2 | grep -v "^TRACE BUFFER FLUSH " > small-enters.txt
profile_visits small/profile.cubex > small-visits.txt
check "small buffer: no event lost (Enter events = visits, 100000 each)" diff -u small-visits.txt small-enters.txt
check "small buffer: the flushes are regions in the trace" sh -c 'otf2-print small/traces.otf2 | grep -q "Region: \"TRACE BUFFER FLUSH\""' 
finish
