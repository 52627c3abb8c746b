#!/bin/sh
# One source for every variable's text: doc/user-guide.md §3's table is generated from
# `hp-info config-vars` (test/tools/config_vars_md.py), README.md's short table agrees
# with it on names and defaults, no doc names a variable the tools do not have, and the
# guide's example of the unknown-variable warning is the tool's own message.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 6

hp-info config-vars > vars.txt
check "hp-info config-vars lists the variables" grep -q '^HP_PROFILING_MAX_DEPTH$' vars.txt
check "doc/user-guide.md's table is the one hp-info config-vars gives" \
    $PY "$HP_SRCDIR/test/tools/config_vars_md.py" --check "$HP_SRCDIR/doc/user-guide.md" < vars.txt
check "README.md's table and every HP_ name in the docs agree with the tools" \
    $PY "$HP_SRCDIR/test/tools/doc_vars_check.py" "$HP_SRCDIR" < vars.txt
# The guide shows the warning for HP_ENABLE_TRACNG=true; hp-info config gives the same.
guide=$(grep -A1 '^\$ HP_ENABLE_TRACNG=true' "$HP_SRCDIR/doc/user-guide.md" | sed -n 2p)
HP_ENABLE_TRACNG=true hp-info config > /dev/null 2> warn.txt
check_eq "the guide's unknown-variable warning is the tool's" \
    "$guide" "hpmeasure: $(sed -n 2p warn.txt)"
check "the guide's table names HP_PROFILING_MAX_DEPTH's Score-P behaviour" \
    grep -q 'as its own (exclusive) time, as with Score-P' "$HP_SRCDIR/doc/user-guide.md"
# HP_TRACE_ADAPTIVE follows sampling when it is not set (runtime.c): its default is that
# rule, not a fixed value.
check_eq "HP_TRACE_ADAPTIVE's default is the rule it follows" \
    "  Default: true when sampling is on" "$(grep -A2 '^HP_TRACE_ADAPTIVE$' vars.txt | sed -n 3p)"
finish
