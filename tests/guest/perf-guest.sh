#!/bin/sh
# Runs inside a kernel-series/qemu guest (device nodes 1 and 2 online): the
# perf collector's event path against a known leak onto node 1
# (tests/tools/perf_guest_leak.c).  Prints its lines prefixed "PERFGUEST ",
# then "PERFGUEST rc=<n>".
/usr/local/bin/perf_guest_leak 1 "${PAGES:-4096}" > /tmp/pg.out 2> /tmp/pg.err
rc=$?
sed 's/^/PERFGUEST /' /tmp/pg.out
sed 's/^/PERFGUEST-ERR /' /tmp/pg.err | tail -n 5
echo "PERFGUEST rc=$rc"
exit 0
