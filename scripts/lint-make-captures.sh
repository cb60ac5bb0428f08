#!/usr/bin/env bash
# lint-make-captures.sh FILE...: every command substitution that runs make
# must pass --no-print-directory.  Under a parent make, MAKEFLAGS carries "w"
# and a captured `make -s -C DIR kernelversion` comes back wrapped in
# "make[2]: Entering directory ..." lines (the cold `make kernels` failed so).
# Shell files: $(make ...), `make ...`, $("$MAKE" ...), $(${MAKE} ...);
# makefiles: $(shell make ...), $(shell $(MAKE) ...).  One command per line:
# a capture continued with '\' must name the flag on its first line.
# Prints FILE:LINE: TEXT for each offender; exit 1 if there is any.
set -uo pipefail
rc=0
# shellcheck disable=SC2016 # regular expressions, not expansions
sh_re='(\$\(|`)[[:space:]]*(env[[:space:]]+([^[:space:]]+=[^[:space:]]*[[:space:]]+)*)?("?\$\{?MAKE\}?"?|make)([[:space:]]|\)|`|$)'
mk_re='\$\(shell[[:space:]]+(\$\(MAKE\)|\$\{MAKE\}|make)([[:space:]]|\))'
for f in "$@"; do
	case $f in
	*Makefile | *.mk) re=$mk_re ;;
	*) re=$sh_re ;;
	esac
	while IFS= read -r hit; do
		[[ $hit == *--no-print-directory* ]] && continue
		echo "$f:$hit"
		rc=1
	done < <(grep -nE -- "$re" "$f" | grep -vE '^[0-9]+:[[:space:]]*#')
done
if [ $rc -ne 0 ]; then
	echo "lint: make output captured without --no-print-directory (under a parent make it" \
		"prints Entering/Leaving directory lines into the capture)" >&2
fi
exit $rc
