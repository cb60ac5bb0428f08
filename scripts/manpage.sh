#!/bin/bash
# manpage.sh BINARY OUT: pnbench(1) from the help texts, with help2man.
# The page's NAME, SYNOPSIS and DESCRIPTION come from `pnbench --help`; a
# COMMANDS section holds `pnbench help CMD` for every command that help
# lists, verbatim, so the page never says other than the binary does.
set -euo pipefail
bin=$1 out=$2
# commands whose help comes from a script (demo, report) find it in this
# source tree, wherever the binary was built (O=...)
PNBENCH_SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
PNBENCH_REPORT=${PNBENCH_REPORT:-$PNBENCH_SRCDIR/report/pnreport.py}
export PNBENCH_SRCDIR PNBENCH_REPORT
command -v help2man >/dev/null ||
	{ echo "manpage: help2man not installed (make deps installs it)" >&2; exit 1; }
inc=$(mktemp)
trap 'rm -f "$inc" "$out.tmp"' EXIT
# roff-safe verbatim text: backslashes as \e, lines starting with . or ' guarded
roff() { sed -e 's/\\/\\e/g' -e "s/^[.']/\\\\\\&&/"; }
{
	printf '[SYNOPSIS]\n.B pnbench\n[\\fB\\-\\-sysroot\\fR \\fIDIR\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n'
	echo '[COMMANDS]'
	"$bin" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ && $1 != "help" {print $1} on && /^$/ {exit}' |
		while read -r cmd; do
			printf '.SS %s\n.nf\n' "$cmd"
			"$bin" help "$cmd" | roff
			printf '.fi\n'
		done
	cat <<'EOT'
[EXIT STATUS]
See each command above; \fBrun\fR documents the verdict codes.
[FILES]
.TP
.I /var/cache/pnbench
kernels, libperf and guest caches (\fBPNBENCH_CACHE\fR).
[SEE ALSO]
.BR numactl (8),
.BR numastat (8),
.BR lstopo (1),
.BR perf (1)
EOT
} >"$inc"
help2man --no-info --no-discard-stderr --version-string="$("$bin" version 2>/dev/null | awk '{print $2}')" \
	--name="benchmark and workload characterization of private memory nodes" \
	--include="$inc" --output="$out.tmp" "$bin"
mv "$out.tmp" "$out"
