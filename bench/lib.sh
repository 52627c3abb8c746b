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

die() {
    echo "bench: error: $*" >&2
    exit 1
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
