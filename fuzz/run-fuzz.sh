#!/bin/sh
# run-fuzz.sh SRCDIR WORKDIR [SECONDS]: builds fuzz_cube_reader with clang's libFuzzer and
# AddressSanitizer/UBSan (Debian clang, libclang-rt-dev) and runs it for SECONDS
# (default 300) on seeds made from the Cube samples in test/data/cube. Crashing inputs are left in
# WORKDIR as crash-*; copy them to fuzz/regressions/ (t032 then runs hp-report on each).
set -eu
src=$1
work=$2
seconds=${3:-300}
mkdir -p "$work/corpus"
CC=${FUZZ_CC:-clang}
$CC -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
    -I"$src" -I"$src/tools" \
    -o "$work/fuzz_cube_reader" "$src/fuzz/fuzz_cube_reader.c" \
    "$src/tools/cube_reader.c" "$src/tools/cube_anchor.c" \
    "$src"/profile/*.c \
    $(pkg-config --cflags --libs libarchive expat) -lm
/usr/bin/python3 "$src/fuzz/make-seeds.py" "$src/test/data/cube" "$work/seeds"
cd "$work"
./fuzz_cube_reader -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 \
    -print_final_stats=1 corpus seeds "$src/fuzz/regressions"
