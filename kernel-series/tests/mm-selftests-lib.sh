# shellcheck shell=bash
# Result handling for tests/mm-selftests.sh. Source it; do not run it.
#
# results.tsv (one line per test run_vmtests.sh started, in its order):
#   seq  test  status  skipped_cases  cases  seconds  log
# status: pass | fail | skip (exit 4, the whole test) | timeout (our per-test
# timeout fired); skipped_cases / cases: the kselftest counts of the test's
# own output ("Totals: pass:P fail:F ... skip:S", uffd-unit-tests' "pass=P,
# skip=S, fail=F", else its "ok N ... # SKIP" lines), "-" when it reports none.

# mmst_split TAP DIR: per-test logs DIR/NN-<test>.log, results.tsv on stdout.
mmst_split() {
	local tap=$1 dir=$2
	[[ -f "$tap" ]] || return 0
	awk -v dir="$dir" '
	function norm(s) {
		sub(/^(bash )?\.\//, "", s)
		if (sub(/^sudo -u nobody \.\//, "", s)) s = s " (as nobody)"
		# uffd-stress hugetlb sizes follow the free huge pages: not part of the name
		if (s ~ /^uffd-stress hugetlb(-private)? [0-9]+ /) { split(s, w, " "); s = w[1] " " w[2] " N " w[4] }
		return s
	}
	function fname(s) { gsub(/[^A-Za-z0-9_.-]+/, "_", s); return s }
	function finish(line, st, name) {
		name = line
		sub(/^(not )?ok [0-9]+ /, "", name); sub(/ # .*$/, "", name)
		name = norm(name)
		if (line ~ /^not ok/) st = timeout ? "timeout" : "fail"
		else st = (line ~ / # SKIP/) ? "skip" : "pass"
		if (tot_seen) { sk = tskip; nc = tcases } else if (nok) { sk = nskip; nc = nok } else { sk = "-"; nc = "-" }
		seq++
		f = sprintf("%s/%02d-%s.log", dir, seq, fname(name))
		printf "%s", buf > f; close(f)
		printf "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", seq, name, st, sk, nc, secs, f
		insec = 0
	}
	/^# running / { insec = 1; buf = ""; timeout = 0; tlimit = 0; tot_seen = 0; nok = 0; nskip = 0; secs = "-" }
	insec {
		buf = buf $0 "\n"
		l = $0; sub(/^# /, "", l)
		# the wrapper exit was 124/137: a timeout only when it lasted that long
		if (l ~ /^MMST-TIMEOUT /) { split(l, a, " "); tlimit = a[2] + 0 }
		if (l ~ /^MMST-ELAPSED /) { split(l, a, " "); secs = a[2] + 0; if (tlimit && secs >= tlimit) timeout = 1 }
		if (match(l, /Totals: pass:[0-9]+ fail:[0-9]+ xfail:[0-9]+ xpass:[0-9]+ skip:[0-9]+ error:[0-9]+/)) {
			split(substr(l, RSTART, RLENGTH), a, /[: ]+/)
			tot_seen = 1; tskip = a[11]; tcases = a[3] + a[5] + a[7] + a[9] + a[11] + a[13]
		}
		if (match(l, /unit tests: pass=[0-9]+, skip=[0-9]+, fail=[0-9]+/)) {
			split(substr(l, RSTART, RLENGTH), a, /[=, ]+/)
			tot_seen = 1; tskip = a[6]; tcases = a[4] + a[6] + a[8]
		}
		if (l ~ /^(# )?(not )?ok [0-9]+ /) { nok++; if (l ~ /# SKIP/) nskip++ }
	}
	/^(not )?ok [0-9]+ / && insec { finish($0) }
	' "$tap"
}

# mmst_cell STATUS SKIPPED: the table cell, e.g. "pass (3 skipped)".
mmst_cell() {
	local st=$1 sk=$2
	if [[ -z "$st" ]]; then
		echo "-"
	elif [[ "$sk" =~ ^[0-9]+$ ]] && ((sk > 0)) && [[ $st != skip ]]; then
		echo "$st ($sk skipped)"
	else
		echo "$st"
	fi
}

# mmst_known FILE KIND TEST: print the reason when FILE allows TEST on KIND.
# Entries: "<kind or *> | <test> | <why>"; '#' starts a comment line.
mmst_known() {
	[[ -f "$1" ]] || return 1
	awk -F' *[|] *' -v k="$2" -v t="$3" '
		/^[ \t]*(#|$)/ { next }
		{ sub(/^[ \t]+/, "", $1) }
		($1 == k || $1 == "*") && $2 == t { print $3; found = 1; exit }
		END { exit !found }' "$1"
}

# mmst_verdict STOCK_ST STOCK_SK ST SK: why ST/SK is a regression against a
# stock pass (empty: none).
mmst_verdict() {
	local sst=$1 ssk=$2 st=$3 sk=$4
	[[ $sst == pass ]] || return 0
	case "$st" in
	'') echo "missing (not reached)" ;;
	fail | timeout) echo "$st" ;;
	skip) echo "skipped whole" ;;
	pass)
		[[ "$sk" =~ ^[0-9]+$ ]] || return 0
		[[ "$ssk" =~ ^[0-9]+$ ]] || ssk=0
		((sk > ssk)) && echo "lost coverage: $sk cases skipped (stock $ssk)"
		;;
	esac
	return 0
}

mmst_label() {
	case "$1" in
	private) echo "patched+private" ;;
	private-optin) echo "private+opt-in" ;;
	*) echo "$1" ;;
	esac
}

# mmst_table OUT KIND...: the tab-separated table on stdout.
mmst_table() {
	local out=$1 k t line
	shift
	local -A st sk
	local names=()
	for k in "$@"; do
		[[ -f "$out/$k/results.tsv" ]] || continue
		while IFS=$'\t' read -r _ t s c _; do
			[[ -n "${st[$k|$t]+x}" ]] && continue
			st[$k|$t]=$s sk[$k|$t]=$c
			[[ " ${names[*]} " == *" $t "* ]] || names+=("$t")
		done <"$out/$k/results.tsv"
	done
	line='test'
	for k in "$@"; do line+=$'\t'$(mmst_label "$k"); done
	echo "$line"
	for t in "${names[@]}"; do
		line=$t
		for k in "$@"; do line+=$'\t'$(mmst_cell "${st[$k|$t]:-}" "${sk[$k|$t]:-}"); done
		echo "$line"
	done
}

# mmst_counts OUT KIND: "N pass, N fail, N skip, N timeout".
mmst_counts() {
	awk -F'\t' '{ n[$3]++ } END { printf "%d pass, %d fail, %d skip, %d timeout", n["pass"], n["fail"], n["skip"], n["timeout"] }' \
		"$1/$2/results.tsv" 2>/dev/null
}

# mmst_category RUN_VMTESTS TEST: the run_vmtests.sh category (its -t) of
# the run_test line that starts TEST: the line with TEST's command (named as
# in the table), else the first line starting TEST's program (empty: none).
mmst_category() {
	awk -v test="$2" '
		BEGIN { prog = test; sub(/ .*/, "", prog) }
		match($0, /CATEGORY="[a-z_0-9]+"/) {
			c = substr($0, RSTART + 10, RLENGTH - 11)
			line = $0
			if (!sub(/.*run_test /, "", line)) next
			sub(/^bash /, "", line)
			if (sub(/^sudo -u nobody /, "", line)) line = line " (as nobody)"
			sub(/^\.\//, "", line)
			if (line == test) { print c; found = 1; exit }
			split(line, w, " ")
			if (w[1] == prog && first == "") first = c
		}
		END { if (!found && first != "") print first }' "$1"
}

# mmst_rerun_statuses OUT KIND TEST: TEST's status in each rerun of KIND
# (OUT/rerun-N/<kind>/results.tsv, mm-selftests.sh --reruns), one a line.
mmst_rerun_statuses() {
	local f
	for f in "$1"/rerun-*/"$2"/results.tsv; do
		[[ -f $f ]] && awk -F'\t' -v t="$3" '$2 == t { print $3; exit }' "$f"
	done
}

# mmst_rerun_counts OUT KIND TEST: when TEST ran again on stock in the
# reruns, print how many of stock's runs failed or timed out, a blank and
# the pass counts of every run, the first included ("stock passed 2 of 3
# runs, patched 1 of 3"); else 1.  A failure stock shows too is the
# test's, not the series' (mmst_regressions: U, not R).
mmst_rerun_counts() {
	local out=$1 k=$2 t=$3 sp sf kp
	local -a ss ks
	mapfile -t ss < <(mmst_rerun_statuses "$out" stock "$t")
	((${#ss[@]})) || return 1
	mapfile -t ks < <(mmst_rerun_statuses "$out" "$k" "$t")
	sp=$(printf '%s\n' "${ss[@]}" | grep -cx pass)
	sf=$(printf '%s\n' "${ss[@]}" | grep -cxE 'fail|timeout')
	kp=$(printf '%s\n' "${ks[@]}" | grep -cx pass)
	echo "$sf stock passed $((sp + 1)) of $((${#ss[@]} + 1)) runs, $(mmst_label "$k") $kp of $((${#ks[@]} + 1))"
}

# mmst_regressions OUT KNOWN KIND...: "R|A|U <kind> <test>: <why>" lines;
# R = regression, A = allowed by KNOWN (with its reason), U = unstable: a
# failure stock also showed in a rerun (mmst_rerun_counts).
mmst_regressions() {
	local out=$1 known=$2 k t s c why reason
	shift 2
	local -A sst ssk
	while IFS=$'\t' read -r _ t s c _; do sst[$t]=$s ssk[$t]=$c; done <"$out/stock/results.tsv"
	for k in "$@"; do
		[[ $k == stock ]] && continue
		local -A kst=() ksk=()
		[[ -f "$out/$k/results.tsv" ]] &&
			while IFS=$'\t' read -r _ t s c _; do kst[$t]=$s ksk[$t]=$c; done <"$out/$k/results.tsv"
		# a test stock does not have (the series' own) must not fail
		for t in "${!kst[@]}"; do
			[[ -z "${sst[$t]+x}" ]] || continue
			case "${kst[$t]}" in fail | timeout) why="new test: ${kst[$t]}" ;; *) continue ;; esac
			if reason=$(mmst_known "$known" "$k" "$t"); then
				echo "A $(mmst_label "$k") $t: $why -- known: $reason"
			else
				echo "R $(mmst_label "$k") $t: $why"
			fi
		done
		for t in "${!sst[@]}"; do
			why=$(mmst_verdict "${sst[$t]}" "${ssk[$t]}" "${kst[$t]:-}" "${ksk[$t]:-}")
			[[ -n "$why" ]] || continue
			if reason=$(mmst_known "$known" "$k" "$t"); then
				echo "A $(mmst_label "$k") $t: $why -- known: $reason"
			elif [[ $why == fail || $why == timeout ]] && reason=$(mmst_rerun_counts "$out" "$k" "$t"); then
				if ((${reason%% *} > 0)); then
					echo "U $(mmst_label "$k") $t: $why -- unstable, fails on stock too: ${reason#* }"
				else
					echo "R $(mmst_label "$k") $t: $why -- reruns: ${reason#* }"
				fi
			else
				echo "R $(mmst_label "$k") $t: $why"
			fi
		done
		unset kst ksk
	done | sort -k2,2 -k3
}

# mmst_report OUT KNOWN KIND...: write OUT/table.txt, print it; 1 on regression.
mmst_report() {
	local out=$1 known=$2 k rc=0 regs='' n
	shift 2
	{
		mmst_table "$out" "$@" | column -t -s $'\t'
		echo
		for k in "$@"; do
			printf '%-16s %s; wall %ss%s\n' "$(mmst_label "$k"):" "$(mmst_counts "$out" "$k")" \
				"$(cat "$out/$k/wall.txt" 2>/dev/null || echo '?')" \
				"$([[ -f "$out/$k/share/done" ]] || echo '; run_vmtests.sh DID NOT FINISH')"
		done
	} >"$out/table.txt"
	if [[ " $* " == *" stock "* && -f "$out/stock/results.tsv" ]]; then
		regs=$(mmst_regressions "$out" "$known" "$@")
		[[ -n "$regs" ]] && printf '\n%s\n' "$regs" >>"$out/table.txt"
		grep -q '^R ' <<<"$regs" && rc=1
	else
		echo "(no stock run: nothing to compare against)" >>"$out/table.txt"
	fi
	for k in "$@"; do [[ -f "$out/$k/share/done" ]] || rc=1; done
	cat "$out/table.txt"
	if ((rc)); then
		echo "mm-selftests: FAIL"
	elif [[ " $* " == *" stock "* ]]; then
		n=$(grep -c '^U ' <<<"$regs")
		if ((n)); then
			echo "mm-selftests: PASS (no regression against stock; $n unstable, failing on stock too in a rerun: not counted)"
		else
			echo "mm-selftests: PASS (no regression against stock)"
		fi
	else
		echo "mm-selftests: no stock run, nothing compared"
	fi
	return "$rc"
}
