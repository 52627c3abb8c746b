#!/bin/sh
# The fuzz targets (fuzz/, doc/testing.md "Fuzzing"): the filter parser, the configuration
# parser, the HP_PLUGINS list, the site-log reader and the Cube reader, each built with
# clang's libFuzzer, ASan and UBSan by fuzz/run-fuzz.sh. Each replays every seed and
# every regression (fuzz/regressions/TARGET/: inputs that once crashed or broke a
# property, now fixed), then fuzzes a short pass from them. Skipped when clang's libFuzzer
# is missing, and in sanitizer builds: the targets carry their own ASan runtime, which
# cannot run under the preloaded one, and the plain run already does exactly this.
. "$HP_SRCDIR/test/integration/lib.sh"
TARGETS="filter config plugin_list site_log cube_reader"
plan 10

skip_all() {
    for t in $TARGETS; do
        ok "$t: replay # SKIP $1"
        ok "$t: short fuzz pass # SKIP $1"
    done
    exit 0
}
[ -z "${HP_ASAN_RUNTIME:-}" ] || skip_all "sanitizer build (the plain run covers it)"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)n * 0; }\n' \
    > probe.c
clang -fsanitize=fuzzer,address,undefined -o probe probe.c >/dev/null 2>&1 ||
    skip_all "clang with libFuzzer (clang, libclang-rt-14-dev) is not installed"

# The short pass builds every target; 2,000 runs each (the Cube reader's take ~10 s).
FUZZ_RUNS=2000 FUZZ_SECONDS=30 sh "$HP_SRCDIR/fuzz/run-fuzz.sh" "$HP_SRCDIR" "$WORK" \
    > pass.out 2>&1
for t in $TARGETS; do
    inputs=
    for dir in "$HP_SRCDIR/fuzz/seeds/$t" "$WORK/seeds/$t" "$HP_SRCDIR/fuzz/regressions/$t"; do
        [ -d "$dir" ] && inputs="$inputs $(ls "$dir" | sed "s|^|$dir/|" | tr '\n' ' ')"
    done
    n=$(echo $inputs | wc -w)
    if [ ! -x "$WORK/fuzz_$t" ]; then
        not_ok "$t: replay (not built)"
        sed 's/^/# /' "$WORK/$t.build.log" | head -20
    else
        # shellcheck disable=SC2086 # one argument per input file
        (cd "$WORK" && "./fuzz_$t" $inputs) > "replay-$t.out" 2>&1
        status=$?
        check_eq "$t: replays its $n seeds and regressions" "0 $n" \
            "$status $(grep -c '^Executed ' "replay-$t.out")"
        [ "$status" -eq 0 ] || grep -E 'ERROR|runtime error|property' "replay-$t.out" |
            head -5 | sed 's/^/# /'
    fi
    if grep -q "^$t: [0-9]* runs, .*: ok\$" pass.out; then
        ok "$t: short fuzz pass: $(grep "^$t: " pass.out)"
    else
        not_ok "$t: short fuzz pass"
        grep "^$t: " pass.out | sed 's/^/# /'
        grep -E 'ERROR|runtime error|property' "$WORK/$t.log" 2>/dev/null | head -5 |
            sed 's/^/# /'
    fi
done
finish
