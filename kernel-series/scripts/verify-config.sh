#!/bin/bash
# verify-config.sh <fragment> <.config> <stock|patched>
#
# Check that every "CONFIG_X=y" (or =m, =<value>) requested by the fragment
# survived olddefconfig, and every "# CONFIG_X is not set" is really off.
# Symbols after the "# --- series only" header exist only in the patched
# kernel and are skipped for "stock". Fails naming every missing symbol.
set -euo pipefail
PN_PROG=verify-config
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

(($# == 3)) || PN_DIE_RC=2 pn_die "usage: verify-config.sh <fragment> <.config> <stock|patched>"
frag=$1 cfg=$2 kind=$3
pn_check_kind "$kind"
[[ -f "$frag" ]] || pn_die "fragment $frag not found"
[[ -f "$cfg" ]] || pn_die "config $cfg not found"

missing=() wrong_on=() series_only=0 checked=0
while IFS= read -r line || [[ -n "$line" ]]; do
	if [[ "$line" == "# --- series only"* ]]; then
		series_only=1
		continue
	fi
	if [[ "$line" =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
		sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		if ((series_only)) && [[ "$kind" == stock ]]; then
			continue
		fi
		checked=$((checked + 1))
		grep -qxF "$sym=$val" "$cfg" || missing+=("$sym=$val (have: $(grep -E "^(# )?${sym}[= ]" "$cfg" || echo 'absent'))")
	elif [[ "$line" =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		sym=${BASH_REMATCH[1]}
		checked=$((checked + 1))
		if grep -qE "^$sym=" "$cfg"; then
			wrong_on+=("$sym")
		fi
	fi
done <"$frag"

if ((${#missing[@]} + ${#wrong_on[@]})); then
	for m in "${missing[@]}"; do pn_log "requested but not in final .config: $m"; done
	for m in "${wrong_on[@]}"; do pn_log "requested off but enabled: $m"; done
	pn_die "$((${#missing[@]} + ${#wrong_on[@]})) config symbol(s) of $frag did not survive olddefconfig (missing dependencies?)"
fi
pn_log "all $checked requested symbols present in $cfg ($kind)"
