#!/bin/sh
# run-fuzz.sh SRCDIR WORKDIR [TARGET...]: builds the libFuzzer targets of fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined; Debian's clang 14 with libclang-rt) and runs each,
# or the TARGETs named, from its seeds (fuzz/seeds/TARGET/, for cube_reader made by
# make-seeds.py from test/data/cube) and its regressions (fuzz/regressions/TARGET/), keeping
# what it finds in WORKDIR/corpus/TARGET. Each target has its own run count (below).
# Prints one line per target (runs, coverage, result) and exits 1 when any target failed;
# a crashing input is left as WORKDIR/crashes/TARGET/crash-* (copy it to
# fuzz/regressions/TARGET/, doc/testing.md "Fuzzing").
# Environment: FUZZ_RUNS=N runs every target N times instead; FUZZ_SECONDS=N stops each
# target after N seconds; FUZZ_CC=clang-14 picks the compiler.
set -u
src=$1
work=$2
shift 2
[ $# -gt 0 ] || set -- filter config plugin_list site_log cube_reader
CC=${FUZZ_CC:-clang}
CFLAGS="-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$work"

# target NAME: sets sources (under SRCDIR), libs (pkg-config names), runs and max_len.
target() {
    libs=
    case $1 in
    filter)
        sources="measurement/core/filter.c"
        runs=1000000 max_len=4096 ;;
    config)
        sources="measurement/core/config.c measurement/core/signal_names.c util/log.c"
        runs=1000000 max_len=8192 ;;
    plugin_list)
        sources="adapters/mpi/plugin_list.c"
        runs=1000000 max_len=8192 ;;
    site_log)
        sources="tools/report_site.c tools/report_site_html.c tools/report_format.c profile/table.c"
        libs=jansson runs=1000000 max_len=16384 ;;
    cube_reader)
        # A run unpacks a tar of up to 256 KB and parses its XML and binary members: ~460
        # runs/s against 900 to 45,000 for the others, so 10^5 runs (~4 minutes), not 10^6.
        sources="tools/cube_reader.c tools/cube_anchor.c $(cd "$src" && echo profile/*.c)"
        libs="libarchive expat" runs=100000 max_len=262144 ;;
    *)
        echo "run-fuzz.sh: unknown target '$1' (filter, config, plugin_list, site_log, cube_reader)" >&2
        exit 2 ;;
    esac
}

# build NAME: compiles fuzz/fuzz_NAME.c with its sources into WORKDIR/fuzz_NAME.
build() {
    # shellcheck disable=SC2046,SC2086 # word splitting of the source and flag lists is meant
    $CC $CFLAGS -I"$src" -I"$src/tools" -o "$work/fuzz_$1" "$src/fuzz/fuzz_$1.c" \
        $(for s in $sources; do echo "$src/$s"; done) \
        ${libs:+$(pkg-config --cflags --libs $libs)} -lm
}

# seeds NAME: the directory of NAME's seeds.
seeds() {
    if [ "$1" = cube_reader ]; then
        /usr/bin/python3 "$src/fuzz/make-seeds.py" "$src/test/data/cube" "$work/seeds/$1" &&
            echo "$work/seeds/$1"
    else
        echo "$src/fuzz/seeds/$1"
    fi
}

failed=0
for name in "$@"; do
    target "$name"
    if ! build "$name" > "$work/$name.build.log" 2>&1; then
        echo "$name: build failed (see $work/$name.build.log)"
        failed=1
        continue
    fi
    mkdir -p "$work/corpus/$name" "$work/crashes/$name"
    regressions=
    [ -d "$src/fuzz/regressions/$name" ] && regressions="$src/fuzz/regressions/$name"
    seed_dir=$(seeds "$name") || { echo "$name: no seeds"; failed=1; continue; }
    # -close_fd_mask=3: the targets' own messages (hp-report's, on purpose) are dropped;
    # libFuzzer's and the sanitizers' reports still appear.
    (cd "$work" && "./fuzz_$name" -runs="${FUZZ_RUNS:-$runs}" \
        ${FUZZ_SECONDS:+-max_total_time=$FUZZ_SECONDS} -max_len="$max_len" -timeout=10 \
        -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$work/crashes/$name/" \
        "corpus/$name" "$seed_dir" ${regressions:+"$regressions"}) > "$work/$name.log" 2>&1
    status=$?
    result=ok
    [ "$status" -eq 0 ] || { result="FAILED (exit $status, see $work/$name.log)"; failed=1; }
    echo "$name: $(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log") runs," \
        "$(grep -E '^#[0-9]+' "$work/$name.log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')," \
        "corpus $(ls "$work/corpus/$name" | wc -l): $result"
done
exit $failed
