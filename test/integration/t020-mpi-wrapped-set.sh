#!/bin/sh
# The set of MPI_* functions our generated wrappers define equals the set of MPI_*
# functions the MPI library that mpicc links exports (nm -D on libmpich.so), apart from
# the allow-list below. Differences are printed as TAP comments.
#
# Allow-list (wrapped = library + ALLOW_MISSING - ALLOW_EXTRA):
#   none at present. The functions gen-wrappers.py leaves out on purpose (the "skip"
#   entries of adapters/mpi/mpi-semantics.txt: MPI_DUP_FN, a macro for a callback;
#   MPI_Status_f082c & co., defined in libmpichfort) are not exported by libmpich, so
#   they do not show up here either.
# And doc/mpi-wrappers.md shows the very wrapper the generator writes for MPI_Send.
. "$HP_SRCDIR/test/integration/lib.sh"
plan 6

ALLOW_MISSING=""   # exported by the library, deliberately not wrapped
ALLOW_EXTRA=""     # wrapped, not exported by the library

# The library (or object) holding the generated wrappers.
lib=""
for f in "$HP_BUILDDIR/.libs/libhpmeasure_mpi.so" "$HP_BUILDDIR/libhpmeasure_mpi.so" \
    "$HP_BUILDDIR/adapters/mpi/.libs/libhpmeasure_mpi.so"; do
    [ -f "$f" ] && { lib=$f; break; }
done
[ -n "$lib" ] || lib=$(find "$HP_BUILDDIR" -name 'libhpmeasure_mpi.so' -o -name 'mpi_wrappers.o' \
    2>/dev/null | head -1)
if [ -n "$lib" ]; then ok "found the wrapper library: $lib"; else not_ok "no libhpmeasure_mpi.so or mpi_wrappers.o under $HP_BUILDDIR"; finish; fi

# The MPI library mpicc links: ask the dynamic linker of a program built with mpicc.
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); return MPI_Finalize(); }\n' > probe.c
mpicc -o probe probe.c >probe.log 2>&1
mpilib=$(ldd ./probe 2>/dev/null | awk '$1 ~ /^libmpi/ && $3 ~ /^\// { print $3; exit }')
if [ -n "$mpilib" ] && [ -f "$mpilib" ]; then ok "MPI library of mpicc: $mpilib"; else not_ok "cannot find the MPI library mpicc links"; sed 's/^/# /' probe.log; finish; fi

# Defined, global function symbols named MPI_* (T = text, W = weak; data symbols such as
# MPI_F_STATUS_IGNORE are not functions).
nm -D --defined-only "$lib" 2>/dev/null | awk '$2 ~ /^[TW]$/ && $3 ~ /^MPI_/ { print $3 }' | sort -u > wrapped.txt
[ -s wrapped.txt ] || nm --defined-only "$lib" | awk '$2 ~ /^[TW]$/ && $3 ~ /^MPI_/ { print $3 }' | sort -u > wrapped.txt
nm -D --defined-only "$mpilib" | awk '$2 ~ /^[TW]$/ && $3 ~ /^MPI_/ { print $3 }' | sort -u > exported.txt
check_eq "wrapped $(wc -l < wrapped.txt) functions, library exports $(wc -l < exported.txt) (at least 400 each)" \
    yes "$( [ "$(wc -l < wrapped.txt)" -ge 400 ] && [ "$(wc -l < exported.txt)" -ge 400 ] && echo yes)"

for n in $ALLOW_MISSING; do echo "$n"; done | sort > allow-missing.txt
for n in $ALLOW_EXTRA; do echo "$n"; done | sort > allow-extra.txt
comm -13 wrapped.txt exported.txt | comm -23 - allow-missing.txt > missing.txt
comm -23 wrapped.txt exported.txt | comm -23 - allow-extra.txt > extra.txt
if [ ! -s missing.txt ] && [ ! -s extra.txt ]; then
    ok "wrapped set = exported set"
else
    not_ok "wrapped set = exported set"
    sed 's/^/# exported, not wrapped: /' missing.txt
    sed 's/^/# wrapped, not exported: /' extra.txt
fi

# The example of doc/mpi-wrappers.md: the C block after its "--show MPI_Send" marker is
# what gen-wrappers.py prints for MPI_Send from the headers this build used.
proto_h=$(sed -n 's/^MPI_PROTO_H = //p' "$HP_BUILDDIR/Makefile")
mpio_h=$(sed -n 's/^MPIO_H = //p' "$HP_BUILDDIR/Makefile")
$PY "$HP_SRCDIR/adapters/mpi/gen-wrappers.py" --header "$proto_h" --header "$mpio_h" \
    --semantics "$HP_SRCDIR/adapters/mpi/mpi-semantics.txt" --show MPI_Send >send-shown.c 2>&1
awk '/gen-wrappers.py --show MPI_Send/ { marker = 1; next }
     marker && /^```c$/ { block = 1; next }
     block && /^```$/ { exit }
     block' "$HP_SRCDIR/doc/mpi-wrappers.md" >send-doc.c
if [ -s send-doc.c ] && cmp -s send-shown.c send-doc.c; then
    ok "doc/mpi-wrappers.md shows MPI_Send's wrapper as gen-wrappers.py --show MPI_Send prints it"
else
    not_ok "doc/mpi-wrappers.md shows MPI_Send's wrapper as gen-wrappers.py --show MPI_Send prints it"
    diff -u send-doc.c send-shown.c | sed 's/^/# /'
fi
# ... and what --show prints is what the build compiled: the same lines, in one piece,
# in the generated mpi_wrappers.c.
if [ -s send-shown.c ] && $PY -c 'import sys
shown, built = (open(f).read() for f in sys.argv[1:])
sys.exit(0 if shown in built else 1)' send-shown.c "$HP_BUILDDIR/adapters/mpi/mpi_wrappers.c"
then
    ok "the wrapper --show MPI_Send prints is in the built mpi_wrappers.c verbatim"
else
    not_ok "the wrapper --show MPI_Send prints is in the built mpi_wrappers.c verbatim"
    head -5 send-shown.c | sed 's/^/# shown: /'
fi
finish
