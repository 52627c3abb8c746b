#!/bin/sh
# hp-report on bad input: not a cubex, truncated, wrong version, missing metric files,
# compressed members, a directory without a profile, no experiment at all, unknown
# subcommands and options: always one line on stderr naming the file and the problem,
# exit status 2, never a crash. (The inputs the fuzzer found: t100-fuzz.sh.)
. "$HP_SRCDIR/test/integration/lib.sh"
SAMPLES="$HP_SRCDIR/test/data/cube"
plan 11

# fails_cleanly "description" pattern command... : exit status 2, exactly one line on
# stderr, matching the (grep -E) pattern.
fails_cleanly() {
    desc=$1
    pattern=$2
    shift 2
    "$@" >"$WORK/last.out" 2>"$WORK/last.err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(wc -l < "$WORK/last.err")" -eq 1 ] &&
        grep -Eq -- "$pattern" "$WORK/last.err"; then
        ok "$desc"
    else
        not_ok "$desc (exit $status)"
        sed 's/^/# /' "$WORK/last.err" | head -5
    fi
}

# repack NAME SED-EXPR MEMBER... : minimal.cubex with anchor.xml edited and only the
# listed data members, as NAME.
repack() {
    name=$1
    expr=$2
    shift 2
    $PY - "$SAMPLES/minimal.cubex" "$name" "$expr" "$@" <<'PYEOF'
import io, re, sys, tarfile
src, dst, expr, keep = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
old, new = expr.split("|") if expr else ("", "")
with tarfile.open(src) as t, tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as out:
    for m in t.getmembers():
        data = t.extractfile(m).read()
        if m.name == "anchor.xml":
            data = data.replace(old.encode(), new.encode())
        elif m.name not in keep:
            continue
        info = tarfile.TarInfo(m.name)
        info.size = len(data)
        out.addfile(info, io.BytesIO(data))
PYEOF
}

echo "hello, world" > notcube.cubex
fails_cleanly "not a cubex" "^notcube.cubex: not a Cube4 file" hp-report notcube.cubex
head -c 5000 "$SAMPLES/reference_cubew482.cubex" > truncated.cubex
fails_cleanly "truncated" "^truncated.cubex: .*truncated" hp-report truncated.cubex
repack version.cubex 'version="4.4"|version="9.1"' 0.index 0.data 1.index 1.data
fails_cleanly "wrong version" '^version.cubex: unsupported Cube version "9.1"' \
    hp-report version.cubex
repack halfpair.cubex "" 0.index 0.data 1.index
fails_cleanly "a metric's index without its data" \
    '^halfpair.cubex: metric "time": 1.index without 1.data' hp-report halfpair.cubex
repack nodata.cubex "" 0.index 0.data
fails_cleanly "the reported metric without data files" \
    '^nodata.cubex: metric "time" has no data' hp-report nodata.cubex
fails_cleanly "zlib-compressed members" "quirk_cubew482_zlib_broken.cubex: .*compressed" \
    hp-report "$SAMPLES/quirk_cubew482_zlib_broken.cubex"
mkdir -p emptydir
fails_cleanly "a directory without a profile" "^emptydir: no profile.cubex" hp-report emptydir
fails_cleanly "no hp-* directory here" "no hp-\\* experiment directory" \
    sh -c 'cd emptydir && hp-report'
fails_cleanly "a file that does not exist" "^missing.cubex: No such file" hp-report missing.cubex
fails_cleanly "unknown subcommand" "unknown subcommand .*'scroe'" hp-report scroe
fails_cleanly "unknown option" "unknown option '--colour'" hp-report --colour notcube.cubex

finish
