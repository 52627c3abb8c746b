#!/bin/sh
# Generates a man page from its template (doc/man/*.in) and the texts the commands
# themselves print, so that the pages cannot drift from the code: the option lists come
# from each command's --help, the HP_* variables from `hp-info config-vars` (the table in
# measurement/core/config.c). Makefile.am runs the built commands into *.help files and
# then this script; t108 checks the installed pages against the commands.
#
#   gen-man.sh TEMPLATE VERSION HELPDIR > PAGE
#
# Template lines that are replaced (everything else is copied, with @VERSION@ filled in):
#   @ITEMS FILE HEADER@   the items of the section of HELPDIR/FILE whose heading line
#                         starts with HEADER ("Options", "Environment", "commands"), as
#                         .TP paragraphs: an item is a line indented by two spaces, its
#                         term ends at two spaces, deeper-indented lines continue it;
#                         the section ends at an empty line
#   @USAGE FILE@          the usage lines of HELPDIR/FILE (up to the first empty line,
#                         "usage:" removed), one line each, unfilled
#   @CONFIG-VARS FILE@    HELPDIR/FILE as `hp-info config-vars` prints it: a name line,
#                         "Type:", "Default:" and the meaning, indented; one .TP each
set -eu

if [ $# -ne 3 ]; then
    echo "usage: gen-man.sh TEMPLATE VERSION HELPDIR" >&2
    exit 2
fi
template=$1
version=$2
helpdir=$3

awk -v version="$version" -v helpdir="$helpdir" -v quote="'" '
# Text for roff: backslashes shown as such, minus signs as \- (hyphens in option names
# and commands must stay copyable), no control character at the start of a line.
function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    if (substr(s, 1, 1) == "." || substr(s, 1, 1) == quote)
        s = "\\&" s
    return s
}

function fail(msg) {
    printf "gen-man.sh: %s: %s\n", FILENAME, msg > "/dev/stderr"
    failed = 1
    exit 1
}

function open_help(file,    path) {
    path = helpdir "/" file
    if ((getline line < path) <= 0)
        fail("cannot read " path)
    close(path)
    return path
}

function emit_item(term, text) {
    if (term == "")
        return
    print ".TP"
    print ".B " esc(term)
    if (text != "")
        print esc(text)
}

function items(file, header,    path, in_section, term, text, found, t) {
    path = open_help(file)
    in_section = 0
    found = 0
    term = ""
    while ((getline line < path) > 0) {
        if (!in_section) {
            if (index(line, header) == 1)
                in_section = 1
            continue
        }
        if (line == "")
            break
        if (line ~ /^  [^ ]/) {
            emit_item(term, text)
            found++
            t = substr(line, 3)
            if (match(t, /  +/)) {
                term = substr(t, 1, RSTART - 1)
                text = substr(t, RSTART + RLENGTH)
            } else {
                term = t
                text = ""
            }
        } else if (line ~ /^    +[^ ]/) {
            sub(/^ +/, "", line)
            text = text == "" ? line : text " " line
        } else {
            break
        }
    }
    emit_item(term, text)
    close(path)
    if (!found)
        fail("no items under \"" header "\" in " path)
}

function usage(file,    path) {
    path = open_help(file)
    print ".nf"
    while ((getline line < path) > 0) {
        if (line == "")
            break
        sub(/^[Uu]sage: */, "", line)
        sub(/^ +/, "", line)
        print esc(line)
    }
    print ".fi"
    close(path)
}

function config_vars(file,    path, name, n, type, dflt, text) {
    path = open_help(file)
    n = 0
    name = ""
    print ".ad l"   # left-aligned: long lists of names leave few places to stretch
    while ((getline line < path) > 0) {
        if (line ~ /^HP_[A-Z0-9_]+$/) {
            name = line
            type = dflt = text = ""
        } else if (line ~ /^  Type: /) {
            type = line
            sub(/^  Type: +/, "", type)
        } else if (line ~ /^  Default: /) {
            dflt = line
            sub(/^  Default: +/, "", dflt)
        } else if (line ~ /^  [^ ]/ && name != "") {
            sub(/^  /, "", line)
            text = text == "" ? line : text " " line
        } else if (line == "" && name != "") {
            print ".TP"
            print ".B " esc(name)
            print esc(text)
            print ".br"
            print "Accepted: " esc(type) "."
            print ".br"
            # A long list (HP_MPI_UNWIND_EXCLUDE) may break after each comma.
            dflt = esc(dflt)
            gsub(/,/, ",\\:", dflt)
            print "Default: " dflt "."
            n++
            name = ""
        }
    }
    print ".ad"
    close(path)
    if (n == 0 || name != "")
        fail("unexpected format of " path " (hp-info config-vars)")
}

/^@ITEMS [^ ]+ .*@$/ {
    s = substr($0, 2, length($0) - 2)
    split(s, w, " ")
    items(w[2], substr(s, length("ITEMS " w[2] " ") + 1))
    next
}
/^@USAGE [^ ]+@$/ { usage(substr($2, 1, length($2) - 1)); next }
/^@CONFIG-VARS [^ ]+@$/ { config_vars(substr($2, 1, length($2) - 1)); next }
/^@/ { fail("unknown directive " $0) }
{ gsub(/@VERSION@/, version); print }
' "$template"
