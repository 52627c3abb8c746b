#!/bin/sh
# The wait-state record lives in the memory budget (HP_TOTAL_MEMORY, at most half of it):
# a budget too small for the run keeps a prefix and the summary states the coverage;
# HP_WAIT_STATES=false keeps nothing and adds no metrics (doc/wait-states.md), also when
# only some ranks have it.
# test/programs/mpi/waitstates.c "many 5000": every rank makes 5000 MPI_Sendrecv to
# itself, 2 records each (its send and its receive): 4 x 10000 = 40000 calls. With
# HP_TOTAL_MEMORY=512K the records get 256K = 8 pages of 1024 records per rank: 4 x 8192
# = 32768 kept (81.9%), 4 x 4096 receives, each matched (the kept part is a prefix on
# every rank, so both ends of every kept receive's message were kept).
. "$HP_SRCDIR/test/integration/lib.sh"
. "$PROGRAMS/mpi/mpi-lib.sh"
plan 12

check "build waitstates.c with hp-instrument mpicc" \
    hp-instrument mpicc -O1 -o waitstates "$MPIPROGS/waitstates.c"
check "run with a budget too small for every record" \
    mpirun4 HP_TOTAL_MEMORY=512K HP_EXPERIMENT_DIRECTORY=small ./waitstates many 5000
check "summary.txt states the coverage: 81.9% of 40000 calls" \
    grep -q "^coverage: 81.9% of 40000 communicating MPI calls kept (32 bytes each), the rest dropped when the budget's half for them was full (HP_TOTAL_MEMORY): patterns cover the kept part; 16384 of 16384 kept receives matched to their sends\$" small/summary.txt
check "run with the default budget" \
    mpirun4 HP_EXPERIMENT_DIRECTORY=full ./waitstates many 5000
check "... covers all 40000 calls" \
    grep -q "^coverage: 100.0% of 40000 communicating MPI calls kept (32 bytes each); 20000 of 20000 kept receives matched to their sends\$" full/summary.txt
check "HP_WAIT_STATES=false" \
    mpirun4 HP_WAIT_STATES=false HP_EXPERIMENT_DIRECTORY=off ./waitstates many 100
check_eq "... no table and no coverage in summary.txt" 0 \
    "$(grep -c -e '^Waiting time by cause' -e '^coverage:' off/summary.txt)"
$CUBEDUMP off/profile.cubex > off-dump.txt
check_eq "... no wait-state metrics in the profile" 0 "$(grep -c 'mpi_latesender' off-dump.txt)"
# Ranks that disagree (an MPMD launch with different environments) must not wait for
# each other in the replay: wait states are on only when every rank has them on.
check "HP_WAIT_STATES=false on ranks 0-1 only: the job ends" timeout -k 10 60 \
    mpiexec -n 2 env HP_WAIT_STATES=false HP_EXPERIMENT_DIRECTORY=mixed ./waitstates many 100 : \
    -n 2 env HP_EXPERIMENT_DIRECTORY=mixed ./waitstates many 100
check_eq "... with no wait states" 0 "$(grep -c '^Waiting time by cause' mixed/summary.txt)"
check "hp-info config-vars lists HP_WAIT_STATES, default true, with its meaning" sh -c \
    'hp-info config-vars | grep -A3 "HP_WAIT_STATES" | tr "\n" " " | grep -q "true.*Scalasca.*doc/wait-states.md"'
expect_fail "a bad HP_WAIT_STATES stops the program, naming the variable" \
    "HP_WAIT_STATES.*maybe" env HP_WAIT_STATES=maybe ./waitstates many 1
finish
