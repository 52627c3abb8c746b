# shellcheck shell=sh
# Helpers shared by the benchmark scripts of bench/ (POSIX sh; sourced, not run).
#
# die MESSAGE           prints "bench: error: MESSAGE" and exits 1
# is_count VALUE        true for a positive decimal count
# build COMMAND...      runs a build step with its output appended to build.log (in the
#                       current directory); on failure prints the log and dies
# launch NRANKS [VAR=VALUE]... PROGRAM [ARG]...
#                       runs PROGRAM under a time limit of $TIME_LIMIT seconds (status
#                       124 on time-out) with the given variables, through
#                       `$MPIEXEC -n NRANKS` when NRANKS > 0; output to stdout, errors
#                       appended to run.log
# keep_min NAME VALUE   sets the variable NAME to the count VALUE when NAME is empty or
#                       larger (the minimum over a benchmark's rounds)
# min_of_rounds [-e STEP] FN VARIANT...
#                       REPS rounds, each running `FN VARIANT` (a function of the script
#                       that prints one count, or two: "WALL CPU") for every variant in
#                       turn, so that all variants see the same noise; keeps each
#                       variant's minimum in min_VARIANT (and of the second count in
#                       cpu_VARIANT); with -e, the function STEP runs once at the end of
#                       each round (a micro-benchmark that must see the same noise);
#                       exits 1 when a run or STEP fails
# CACHEGRIND           the valgrind command that counts instructions into cg.log (in the
#                       current directory); put it after launch's VAR=VALUE words
# cachegrind_count WHAT prints the instruction count of cg.log, or dies naming WHAT
# bench_builddir USAGE ARG...
#                       the arguments of a script: USAGE names them after $0
#                       ("BUILDDIR [MID_CALLS [REPS]]", as many words as it takes at most);
#                       exits 2 with "usage: $0 USAGE" when there are none or too many,
#                       else sets BUILDDIR (the first, absolute)
# bench_args ARG...   the arguments of a script taking BUILDDIR [REPS]: sets BUILDDIR
#                       (absolute) and REPS (default 5); exits 2 with a usage line
#                       when they are off
# bench_workdir [NAME]  makes $BUILDDIR/bench/work/NAME (without NAME: all of
#                       bench/work) anew, enters it (WORK names it) and unsets the HP_
#                       variables of the caller that would change what a benchmark
#                       measures (each variant sets its own)
# bench_start TOOL [LIBRARY]
#                       the start of a benchmark, after bench_args: sets SRCDIR,
#                       CORELIBDIR ($BUILDDIR/.libs), INSTRUMENT and HP_RUN (their paths
#                       in BUILDDIR); dies when $BUILDDIR/TOOL or CORELIBDIR/LIBRARY is
#                       not there
# have_mpi LIBRARY      sets MPICC and MPIEXEC (defaults mpicc, mpiexec); true when both
#                       are there and so is CORELIBDIR/LIBRARY
# bench_mpi_start TOOL LIBRARY TITLE KEY
#                       the start of an MPI benchmark: bench_start TOOL, and without
#                       have_mpi LIBRARY prints "TITLE: skipped (...)" and
#                       "bench: KEY=skipped" and exits 0
# plugin_cflags BUILDDIR COMPILER
#                       prints the flags that compile with hpmeasure's GCC plug-in, or
#                       nothing when BUILDDIR has no plug-in or COMPILER cannot load it

die() {
    echo "bench: error: $*" >&2
    exit 1
}

bench_builddir() {
    _usage=$1
    shift
    # shellcheck disable=SC2086 # the words of the usage count the arguments
    _max=$(set -- $_usage && echo $#)
    if [ $# -lt 1 ] || [ $# -gt "$_max" ]; then
        echo "usage: $0 $_usage" >&2
        exit 2
    fi
    BUILDDIR=$(cd "$1" 2>/dev/null && pwd) || die "no build directory '$1'"
}

bench_args() {
    bench_builddir "BUILDDIR [REPS]" "$@"
    if ! is_count "${2:-5}"; then
        echo "usage: $0 BUILDDIR [REPS]" >&2
        exit 2
    fi
    REPS=${2:-5}
}

bench_start() {
    SRCDIR=$(dirname "$BENCHDIR")
    CORELIBDIR=$BUILDDIR/.libs
    INSTRUMENT=$BUILDDIR/hp-instrument
    HP_RUN=$BUILDDIR/hp-run
    [ -x "$BUILDDIR/$1" ] || die "$BUILDDIR/$1 not found (run make first)"
    [ -z "${2:-}" ] || [ -f "$CORELIBDIR/$2" ] || die "$CORELIBDIR/$2 not found (run make first)"
}

have_mpi() {
    MPICC=${MPICC:-mpicc}
    MPIEXEC=${MPIEXEC:-mpiexec}
    [ -f "$CORELIBDIR/$1" ] && command -v "$MPICC" >/dev/null 2>&1 &&
        command -v "${MPIEXEC%% *}" >/dev/null 2>&1
}

bench_mpi_start() {
    bench_start "$1"
    if ! have_mpi "$2"; then
        echo "$3: skipped (no $MPICC, no ${MPIEXEC%% *} or no $2)"
        echo "bench: $4=skipped"
        exit 0
    fi
}

bench_workdir() {
    WORK=$BUILDDIR/bench/work${1:+/$1}
    rm -rf "$WORK"
    mkdir -p "$WORK" || die "cannot create $WORK"
    cd "$WORK" || die "cannot enter $WORK"
    unset HP_FILTERING_FILE HP_EXPERIMENT_DIRECTORY HP_VERBOSE HP_MPI_EXCLUDE \
        HP_MPI_ENABLE_GROUPS HP_MPI_UNWIND_EXCLUDE HP_SAMPLING_FREQUENCY HP_PLUGINS \
        HP_OVERHEAD_BUDGET HP_UNWIND_THUNKS HP_METRIC_PERF HP_METRIC_RUSAGE HP_METRIC_PAPI
}

is_count() {
    case $1 in
        '' | *[!0-9]* | 0) return 1 ;;
        *) return 0 ;;
    esac
}

build() {
    if ! "$@" >>build.log 2>&1; then
        cat build.log >&2
        die "build failed: $*"
    fi
}

launch() {
    _n=$1
    shift
    # MPIEXEC is split into words on purpose (it may hold options).
    # shellcheck disable=SC2016 # the inner shell expands them
    timeout -k 10 "$TIME_LIMIT" sh -c '
        n=$1; mpiexec=$2; shift 2
        while [ $# -gt 0 ]; do
            case $1 in
            *=*) export "$1"; shift ;;
            *) break ;;
            esac
        done
        if [ "$n" -gt 0 ]; then exec $mpiexec -n "$n" "$@"; else exec "$@"; fi' \
        launch "$_n" "${MPIEXEC:-mpiexec}" "$@" 2>>run.log </dev/null
}

CACHEGRIND="valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
--log-file=cg.log"

cachegrind_count() {
    _ir=$(sed -n 's/.*I *refs: *//p' cg.log 2>/dev/null | tr -d ,)
    is_count "$_ir" || die "no instruction count from cachegrind for $1 (see cg.log, run.log)"
    echo "$_ir"
}

min_of_rounds() {
    _step=''
    if [ "$1" = -e ]; then
        _step=$2
        shift 2
    fi
    _fn=$1
    shift
    _rep=1
    while [ "$_rep" -le "$REPS" ]; do
        for _v in "$@"; do
            _t=$("$_fn" "$_v") || exit 1
            keep_min "min_$_v" "${_t%% *}"
            case $_t in
                *' '*) keep_min "cpu_$_v" "${_t#* }" ;;
            esac
        done
        if [ -n "$_step" ]; then
            "$_step" || exit 1
        fi
        _rep=$((_rep + 1))
    done
}

keep_min() {
    eval "_cur=\${$1:-}"
    if [ -z "$_cur" ] || [ "$2" -lt "$_cur" ]; then
        eval "$1=\$2"
    fi
}

# Until hp-instrument uses the plug-in by default, the benchmarks compile with it
# explicitly; then these flags become hp-instrument's default (and its --no-plugin the
# old -finstrument-functions builds). The link step is the same either way.
plugin_cflags() {
    _so=$1/.libs/hpmeasure/hpmeasure_gcc.so
    [ -f "$_so" ] || return 0
    # A compiler that is not the GCC the plug-in was built for refuses it.
    echo 'int hp_bench_probe(void) { return 0; }' |
        "$2" -x c -fplugin="$_so" -c -o /dev/null - >/dev/null 2>&1 || return 0
    echo "-g -fplugin=$_so"
}
