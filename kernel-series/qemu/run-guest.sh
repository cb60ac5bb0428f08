#!/bin/bash
# run-guest.sh [options] -- boot a pnbench test guest under QEMU (TCG) and
# exit with the guest script's exit status.
#
#   --kernel PATH|stock|patched  bzImage, or a kind resolved from the cache
#   --dev-nodes N          number of CPU-less device-memory nodes (default 2)
#   --dev-size MiB         size of each device node (default 512, multiple of 16, >= 256)
#   --dram MiB             usable DRAM on node 0 (default 1024, <= 3072)
#   --cpus N               vCPUs, all on node 0 (default 2)
#   --hmat                 ACPI HMAT (-machine hmat=on): node 0 (the CPUs) is the
#                          initiator of every node and declares latency and
#                          bandwidth to each (DRAM 80 ns / 20 GB/s, device node k
#                          250 ns / 8 GB/s for odd k, 400 ns / 4 GB/s for even k).
#                          A second CPU node would be numbered before the
#                          memory-only nodes by Linux (SRAT CPU entries first),
#                          so the device nodes would no longer be 1..N.
#   --disk MiB             DRAM-backed scratch pmem disk on node 0 (/dev/pmem0 in
#                          the guest, for page-cache storms; default 512, 0 = none)
#   --private              add kmem.private_nodes=<device nodes> (patched kernels)
#   --no-online            do not hot-plug the device memory (same VM shape)
#   --online movable|kernel  zone the hot-plugged device memory goes to:
#                          ZONE_MOVABLE (memhp_default_state=online_movable, the
#                          default) or ZONE_NORMAL (online_kernel), where slab,
#                          vmalloc, page tables and kernel stacks can land too
#   --append "ARGS"        extra kernel command line
#   --script FILE          guest script (runs as /guest/run.sh)
#   --add BIN              host binary (+ shared libs) into /usr/local/bin; repeatable
#   --file SRC:DST         host file into the initramfs at DST; repeatable
#   --share DIR            export DIR to the guest over virtio-9p at /mnt/host
#   --timeout SEC          kill QEMU after SEC seconds (default 600)
#   --log FILE             keep the serial console log here (always echoed on stdout
#                          unless --quiet)
#   --quiet                do not echo the console on stdout
# Exit status: the guest script's status (PNBENCH-END rc=N), or 125 when the
# guest never reached the end marker (timeout, panic, boot failure).
#
# Memory layout (QEMU "pc" machine; MiB):
#   Node 0 gets D0 = max(3072, 3584 - N*S) MiB, so the guest's total RAM is
#   >= 3.5 GiB and QEMU puts exactly the first 3 GiB below the PCI hole and
#   the rest from 4 GiB up. NUMA nodes take guest RAM in node order, so
#     node 0:  [0, 3072) and [4096, D0 + 1024)
#     node k:  [D0 + 1024 + (k-1)*S, D0 + 1024 + k*S)      k = 1..N
#   i.e. every device node lies above 4 GiB on a clean, 16 MiB aligned range,
#   away from the BIOS tables that SeaBIOS keeps in the top 128 KiB of low RAM.
#   Kernel command line:
#     memmap=16M$<start_k>            reserve each device node's first 16 MiB so
#                                     that adjacent pmem ranges are not merged
#                                     into one e820 entry / one nvdimm region
#     memmap=<S-16>M!<start_k+16M>    the rest of node k is legacy pmem
#                                     (region target_node k)
#     memmap=<disk>M!<dram>M          scratch disk: node-0 RAM right after the
#                                     usable DRAM becomes a raw legacy pmem
#                                     block device (target_node 0)
#     memmap=<rest>M$<dram+disk>M     hide the remaining node-0 RAM below 3 GiB
#     memmap=<D0-3072>M$4G            (and above 4 GiB), so that storms
#                                     filling "all of RAM" stay cheap under TCG
#   After ndctl (devdax, align 2M) and kmem, each node gets S - 128 MiB of
#   hot-plugged memory: the devdax data area starts past the struct-page
#   reservation and kmem rounds to 128 MiB memory blocks.
set -euo pipefail
PN_PROG=run-guest
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$here/../scripts/lib.sh"

kernel=stock ndev=2 dsize=512 dram=1024 disk=512 cpus=2 private=0 online=1 online_type=movable append='' hmat=0
script='' share='' timeout=600 log='' quiet=0 mk=()
while (($#)); do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--dev-nodes) ndev=$2; shift 2 ;;
	--dev-size) dsize=$2; shift 2 ;;
	--dram) dram=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--hmat) hmat=1; shift ;;
	--disk) disk=$2; shift 2 ;;
	--private) private=1; shift ;;
	--no-online) online=0; shift ;;
	--online) online_type=$2; shift 2 ;;
	--append) append="$append $2"; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--add) mk+=(--add "$2"); shift 2 ;;
	--file) mk+=(--file "$2"); shift 2 ;;
	--share) share=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) PN_DIE_RC=2 pn_die "unknown argument '$1' (see --help)" ;;
	esac
done

qemu=$(command -v qemu-system-x86_64 || true)
[[ -n "$qemu" ]] || PN_DIE_RC=4 pn_die "qemu-system-x86_64 not found: apt-get install qemu-system-x86"
case "$kernel" in
stock | patched)
	kind=$kernel
	kernel=$("$here/../scripts/kernel-path.sh" "$kind") ||
		PN_DIE_RC=4 pn_die "no $kind kernel in cache: run make -C kernel-series kernel-$kind"
	;;
esac
[[ -f "$kernel" ]] || pn_die "kernel image $kernel not found"
case "$online_type" in
movable | kernel) ;;
*) PN_DIE_RC=2 pn_die "--online wants movable or kernel (got '$online_type')" ;;
esac
for v in ndev dsize dram disk cpus timeout; do
	[[ "${!v}" =~ ^[0-9]+$ ]] || PN_DIE_RC=2 pn_die "--${v} wants a number (got '${!v}')"
done
((ndev == 0 || (dsize % 16 == 0 && dsize >= 256))) || PN_DIE_RC=2 pn_die "--dev-size must be a multiple of 16 MiB and >= 256"
((dram >= 256 && dram <= 3072 && dram % 16 == 0)) || PN_DIE_RC=2 pn_die "--dram must be a multiple of 16 within 256..3072 MiB"
((disk % 16 == 0 && (disk == 0 || dram + disk <= 3072 - 16))) ||
	PN_DIE_RC=2 pn_die "--disk must be a multiple of 16 MiB and fit below 3 GiB - 16 MiB with --dram"

d0=$((3584 - ndev * dsize))
((d0 < 3072)) && d0=3072
total=$((d0 + ndev * dsize))

machine=pc ini=''
((hmat)) && machine=pc,hmat=on ini=,initiator=0
numa=(-object "memory-backend-ram,id=m0,size=${d0}M" -numa "node,nodeid=0,cpus=0-$((cpus - 1)),memdev=m0$ini")
cmd="console=ttyS0,115200 quiet log_buf_len=4M panic=-1"
cmd+=" memhp_default_state=online_$online_type pnbench.online_type=$online_type"
((disk > 0)) && cmd+=" memmap=${disk}M!${dram}M"
((dram + disk < 3072)) && cmd+=" memmap=$((3072 - dram - disk))M\$$((dram + disk))M"
((d0 > 3072)) && cmd+=" memmap=$((d0 - 3072))M\$4096M"
devlist=''
for ((k = 1; k <= ndev; k++)); do
	start=$((d0 + 1024 + (k - 1) * dsize))
	numa+=(-object "memory-backend-ram,id=m$k,size=${dsize}M" -numa "node,nodeid=$k,memdev=m$k$ini")
	cmd+=" memmap=16M\$${start}M memmap=$((dsize - 16))M!$((start + 16))M"
done
if ((hmat)); then
	for ((t = 0; t <= ndev; t++)); do
		if ((t == 0)); then lat=80 bw=20000
		elif ((t % 2 == 1)); then lat=250 bw=8000
		else lat=400 bw=4000; fi
		numa+=(-numa "hmat-lb,initiator=0,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat")
		numa+=(-numa "hmat-lb,initiator=0,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=${bw}M")
	done
fi
((ndev > 0)) && devlist=1-$ndev
((ndev == 1)) && devlist=1
((private && ndev > 0)) && cmd+=" kmem.private_nodes=$devlist"
((online)) || cmd+=" pnbench.online=0"
cmd+="$append"

work=$(mktemp -d /tmp/pnbench-guest.XXXXXX)
trap 'rm -rf "$work"' EXIT
initrd=$work/initramfs.cpio.gz
"$here/mkinitramfs.sh" -o "$initrd" ${script:+--script "$script"} "${mk[@]}"
[[ -n "$log" ]] || log=$work/console.log

extra=()
if [[ -n "$share" ]]; then
	[[ -d "$share" ]] || pn_die "--share $share is not a directory"
	extra+=(-virtfs "local,path=$share,mount_tag=host,security_model=none,id=host")
fi

pn_log "booting $(basename "$kernel") ($kernel): ${cpus} vCPU$( ((hmat)) && echo ", HMAT"), node0 ${d0} MiB (${dram} usable), ${ndev} device node(s) x ${dsize} MiB (online_$online_type), total ${total} MiB, timeout ${timeout}s"
pn_log "cmdline: $cmd"
t0=$(date +%s)
set +e
timeout -s KILL "$timeout" "$qemu" -accel tcg -M "$machine" -cpu "${PNBENCH_QEMU_CPU:-qemu64}" -smp "$cpus" -m "${total}M" \
	"${numa[@]}" -kernel "$kernel" -initrd "$initrd" -append "$cmd" \
	-nographic -no-reboot -monitor none -serial stdio "${extra[@]}" </dev/null |
	if ((quiet)); then cat >"$log"; else tee "$log"; fi
qrc=${PIPESTATUS[0]}
set -e
secs=$(($(date +%s) - t0))
# the serial console writes CRLF line ends
sed -i 's/\r$//' "$log"
rc=$(sed -n 's/^PNBENCH-END rc=\([0-9]*\).*/\1/p' "$log" | tail -n1)
if [[ -z "$rc" ]]; then
	((qrc == 137)) && pn_log "timeout after ${timeout}s"
	pn_log "guest did not finish (qemu exit $qrc after ${secs}s); console log: $log"
	exit 125
fi
pn_log "guest finished in ${secs}s, rc=$rc"
exit "$rc"
