# shellcheck shell=bash
# Sourced by demo.sh and vm.sh (which define die): arguments and the
# results directory root's scripts write into.

# OPTION VALUE... -> VALUE, or die when the option has none
optval() {
	[[ $# -ge 2 && -n "$2" && "$2" != --* ]] || die "$1 needs a value (see --help)"
	printf '%s' "$2"
}

# -o DIR as an argument, before anything looks at the machine: named, and not
# a symlink (usage errors, exit 2, come before a missing kernel's exit 4)
outdir_name_ok() { # DIR
	local d=$1
	[[ -n "$d" ]] || die "-o: an empty directory name"
	[[ ! -L "$d" ]] || die "-o $d: is a symlink (to $(readlink "$d")); results are never written through one: name the directory itself"
}

# The results directory: not a symlink, made if missing, empty, owned by the
# caller and writable by nobody else, so nobody can plant a symlink or FIFO
# in it while the guests run.
safe_outdir() { # DIR
	local d=$1
	outdir_name_ok "$d"
	# -m is for the directory itself (a new one: 0755 whatever the umask)
	# shellcheck disable=SC2174
	mkdir -p -m 0755 -- "$d" || die "cannot create $d" 3
	[[ -O "$d" ]] || die "-o $d: owned by another user; name a directory of your own"
	[[ -z "$(find "$d" -maxdepth 0 -perm /022)" ]] ||
		die "-o $d: writable by others (mode $(stat -c %a "$d")); results are not written there"
	[[ -z "$(ls -A "$d")" ]] || die "$d is not empty: name a new directory with -o"
}

# FILE is an x86 kernel boot image (the boot protocol's "HdrS" at 0x202),
# what QEMU's -kernel boots
is_kernel_image() {
	[[ -f "$1" && -r "$1" ]] && [[ "$(dd if="$1" bs=1 skip=514 count=4 2>/dev/null)" == HdrS ]]
}
