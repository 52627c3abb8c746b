#!/bin/sh
# The man pages are complete: `make install` installs a page for every command, and every
# option, subcommand and HP_* variable that the code has is an entry of its page. The
# truth comes from the built commands themselves (their --help, the "accepted options"
# of a bad option, `hp-info config-vars`, the subcommands hp-report names) and from the
# HP_* names the shipped sources read with getenv, never from a list kept here.
. "$HP_SRCDIR/test/integration/lib.sh"

plan 19

# `make install DESTDIR=test/work/dest`, staged by make check before the tests (Makefile.am).
DEST="$HP_BUILDDIR/test/work/dest"
check "make check staged make install DESTDIR=$DEST" test -f "$DEST.stamp"
MAN=$(find "$DEST" -type d -path '*/share/man' | head -n 1)
BIN=$(find "$DEST" -type d -path '*/bin' | head -n 1)
check_eq "installed pages: the commands', the hp-<compiler> links', hpmeasure(7), the user API's" \
    "man1/hp-clang++.1 man1/hp-clang.1 man1/hp-g++.1 man1/hp-gcc.1 man1/hp-gfortran.1 man1/hp-info.1 man1/hp-instrument.1 man1/hp-mpicc.1 man1/hp-mpicxx.1 man1/hp-mpif77.1 man1/hp-mpif90.1 man1/hp-mpifort.1 man1/hp-report.1 man1/hp-run.1 man3/hp_user_parameter_int.3 man3/hp_user_parameter_string.3 man3/hp_user_region_begin.3 man3/hp_user_region_end.3 man7/hpmeasure.7" \
    "$(cd "$MAN" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | paste -sd' ')"

# The roff source as text: escapes that only change the look removed.
unroff() {
    sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\://g' -e 's/\\e/\\/g' "$1"
}
# The words of the entry terms of a page (the line after each .TP), one per line.
terms() {
    unroff "$1" | awk 'prev == ".TP" { print } { prev = $0 }' |
        sed -e 's/^\.[BIR]*[ ]*//' | tr ' ,="[]|' '\n\n\n\n\n\n\n' | grep -v '^$' | sort -u
}
# missing PAGE WORD...: the words that are not entry terms of PAGE, space-separated.
missing() {
    page=$1
    shift
    terms "$page" >"$WORK/terms"
    for w in "$@"; do
        grep -qxF -- "$w" "$WORK/terms" || printf '%s ' "$w"
    done
}
# The option words of a text: -x and --long-name, without values.
option_words() {
    grep -oE '(^|[][ (|])--?[a-z][a-z-]*' | sed 's/^[][ (|]//' | sort -u
}

# ---- commands ---------------------------------------------------------------------------
commands=$(find "$BIN" -type f -name 'hp-*' -exec basename {} \; | sort)
links=$(find "$BIN" -type l -name 'hp-*' -exec basename {} \; | sort)
check_eq "every installed command has its page in man1" "" \
    "$(for c in $commands; do test -f "$MAN/man1/$c.1" || printf '%s ' "$c"; done)"
name_line=$(unroff "$MAN/man1/hp-instrument.1" | sed -n '/^\.SH NAME/,/^\.SH/p')
check_eq "every hp-<compiler> link is named in hp-instrument(1)" "" \
    "$(for l in $links; do echo "$name_line" | grep -qw -- "$l" || printf '%s ' "$l"; done)"
check_eq "every hp-<compiler> link's page is hp-instrument(1) (.so)" "" \
    "$(for l in $links; do [ "$(cat "$MAN/man1/$l.1" 2>&1)" = '.so man1/hp-instrument.1' ] ||
        printf '%s ' "$l"; done)"

# ---- hp-instrument: the accepted options (also in HP_WRAPPER_ARGS) and its variables -----
hp-instrument --no-such-option gcc >/dev/null 2>"$WORK/accepted.err"
accepted=$(sed -n 's/^hp-instrument: accepted options: //p' "$WORK/accepted.err" |
    tr ' ' '\n' | sed 's/=.*//')
# The option entries of --help (its prose names compiler flags too).
help_options() {
    sed -n 's/^  \(--*[a-z][a-z-]*\).*/\1/p'
}
helped=$(hp-instrument --help | help_options)
check "hp-instrument names its accepted options" test -n "$accepted"
check_eq "hp-instrument(1) has every option" "" \
    "$(missing "$MAN/man1/hp-instrument.1" $accepted $helped)"
check_eq "hp-instrument(1) has every variable of its --help" "" \
    "$(missing "$MAN/man1/hp-instrument.1" $(hp-instrument --help | grep -oE 'HP_[A-Z_]+' | sort -u))"

# ---- hp-run ------------------------------------------------------------------------------
hp-run --no-such-option true >/dev/null 2>"$WORK/run.err"
run_opts=$(sed -n 's/^hp-run: accepted options: //p' "$WORK/run.err")
check_eq "hp-run(1) has every option" "" \
    "$(missing "$MAN/man1/hp-run.1" $run_opts $(hp-run --help | help_options))"

# ---- hp-info: its commands ----------------------------------------------------------------
info_cmds=$(hp-info --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z-]*\) .*/\1/p')
check_eq "hp-info(1) has every command" "" "$(missing "$MAN/man1/hp-info.1" $info_cmds)"

# ---- hp-report: subcommands and each one's options -----------------------------------------
hp-report no-such-subcommand 2>"$WORK/report.err"
subs=$(sed -n 's/.*(subcommands: \(.*\))$/\1/p' "$WORK/report.err" | tr -d ',')
check_eq "hp-report names its subcommands" "text score html site merge timeline" "$(echo $subs)"
check_eq "hp-report(1) has a section for every subcommand" "" \
    "$(for s in $subs; do unroff "$MAN/man1/hp-report.1" | grep -q "^\.SS $s\( \|$\)" ||
        printf '%s ' "$s"; done)"
sub_opts=$(for s in $subs; do hp-report "$s" --help; done | option_words)
check_eq "hp-report(1) has every option of every subcommand" "" \
    "$(missing "$MAN/man1/hp-report.1" $sub_opts)"
# And back: hp-report --help lists each subcommand's options, all that the page has.
hp-report --help | option_words >"$WORK/report-help-options"
check_eq "hp-report --help lists every option of hp-report(1)" "" \
    "$(terms "$MAN/man1/hp-report.1" | grep -- '^-' | grep -vxF -f "$WORK/report-help-options" |
        paste -sd' ')"

# ---- hpmeasure(7): the HP_* variables ------------------------------------------------------------
vars=$(hp-info config-vars | grep -E '^HP_[A-Z0-9_]+$')
check_eq "hpmeasure(7) has every variable of hp-info config-vars" "" \
    "$(missing "$MAN/man7/hpmeasure.7" $vars)"
stale=$(terms "$MAN/man7/hpmeasure.7" | grep -E '^HP_[A-Z0-9_]+$' | grep -vxF "$vars")
check_eq "hpmeasure(7) has no variable the code does not know" "" "$(echo $stale)"
# HP_* names the shipped code reads (test hooks, HP_TEST_* and HP_INSTRUMENT_TEST_*, aside).
read_vars=$(cd "$HP_SRCDIR" && grep -rhoE '(getenv|getenv_fn|hp_install_dir|read_switch)\("HP_[A-Z0-9_]+"' \
        instrumenter measurement adapters tools util profile otf2-writer |
    sed 's/.*("//; s/"$//' | grep -vE '^HP_(INSTRUMENT_)?TEST_' | sort -u)
cat "$MAN"/man1/*.1 "$MAN/man7/hpmeasure.7" >"$WORK/all"
check_eq "every HP_* variable the code reads is an entry of a page" "" \
    "$(missing "$WORK/all" $read_vars)"

# ---- the checks can fail, and the pages render cleanly ---------------------------------------
sed '/^\.B HP_VERBOSE$/d' "$MAN/man7/hpmeasure.7" >"$WORK/mutated.7"
check_eq "a page without HP_VERBOSE's entry is caught" "HP_VERBOSE " \
    "$(missing "$WORK/mutated.7" $vars)"
check_eq "the pages render without warnings (man --warnings)" "" \
    "$(cd "$MAN" && for p in man*/*; do unsanitized env LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null; done)"

finish
