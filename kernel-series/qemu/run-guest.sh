#!/bin/bash
# run-guest.sh [options] -- boot a pnbench test guest under QEMU (TCG) and
# exit with the guest script's exit status.
#
#   --kernel PATH|stock|patched  bzImage, or a kind resolved from the cache
#   --dev-nodes N          number of CPU-less device-memory nodes (default 2)
#   --dev-size MiB         size of each device node (default 512, multiple of 16, >= 256)
#   --dram MiB             usable DRAM on node 0 (default 1024, <= 3072)
#   --cpus N               vCPUs (default 2), spread over the initiator nodes
#   --initiators N         CPU nodes 0..N-1 (1..4, default 1, needs --cpus >= N):
#                          node j gets vCPUs [j*cpus/N, (j+1)*cpus/N); node 0
#                          keeps the --dram layout below, nodes 1..N-1 get 256 MiB
#                          of usable DRAM each.  The device nodes follow them:
#                          N..N+ndev-1 (Linux numbers nodes in SRAT order, CPU
#                          affinity entries first, so with the CPU nodes first
#                          its node ids are QEMU's).  With N > 1 every vCPU is a
#                          socket of its own (-smp C,sockets=C): QEMU's default
#                          puts them in one socket whose LLC would span two
#                          nodes, and Linux WARNs at boot (topology_sane)
#   --hmat                 ACPI HMAT (-machine hmat=on): every initiator declares
#                          latency and bandwidth to every node.  DRAM: its own
#                          node 80 ns / 20 GB/s, another CPU node 140 ns / 10 GB/s.
#                          Device node k (the k-th, from 0) has a home initiator
#                          k mod N (its SRAT/HMAT initiator= and best initiator):
#                          from there 250 ns / 8 GB/s for even k, 400 ns / 4 GB/s
#                          for odd k; from any other initiator 150 ns more and
#                          half the bandwidth.  With N = 1 that is the one-initiator
#                          table (node 1: 250/8, node 2: 400/4); with N = 2 node 2's
#                          best initiator is node 0 and node 3's is node 1.
#   --disk MiB             DRAM-backed scratch pmem disk on node 0 (/dev/pmem0 in
#                          the guest, for page-cache storms; default 512, 0 = none)
#   --split-dev            the last device node's memory as two legacy pmem regions,
#                          hence two dax devices (for tests that hot-add memory to a
#                          node twice); see the layout below.  Needs --dev-size >= 384
#   --private              add kmem.private_nodes=<device nodes> (patched kernels;
#                          the list itself is always passed, pnbench.devices=)
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
#   --icount               deterministic guest time: QEMU -icount shift=0,align=off,
#                          sleep=off.  Guest virtual time advances 1 ns per guest
#                          instruction executed (2^0 ns), is not slowed to host time
#                          (align=off) and jumps over idle periods (sleep=off), so the
#                          guest's TSC and clocks count instructions, not host time.
#                          icount runs TCG single-threaded: 1 vCPU (--cpus 1, the
#                          default with --icount; more is refused)
#   --gdb PORT             QEMU gdbstub on tcp:127.0.0.1:PORT (-gdb), the vCPU halted
#                          at reset (-S) until a debugger attaches and continues it.
#                          Works with --icount (same single-vCPU setup).  The stub
#                          single-steps with IRQs and timers masked (QEMU's default
#                          qqemu.sstep=0x7), and a step does not move the icount
#                          clock; a stop (breakpoint, watchpoint, attach) does:
#                          sleep=off takes the stopped vCPU for idle and jumps the
#                          clock to the next timer deadline, so a timer interrupt
#                          follows the resume.  --timeout still applies (wall time,
#                          stops included)
#   --timeout SEC          kill QEMU after SEC seconds (default 600)
#   PNBENCH_QEMU_TCG_THREAD  single (default) or multi: TCG's vCPU threading
#                          (--icount always runs single).  With multi, guests
#                          died with "Oops: int3" at boot (sched_clock_cpu, RIP
#                          on the byte after a jump-label site: an int3 left by
#                          runtime code patching, met in another vCPU's stale
#                          translated code): 1 stock boot in ~300 of a cold
#                          `make check`, 2 in ~12 e2e boots (2026-12-05).
#                          Single runs the vCPUs round-robin on one host thread
#                          (SMP kernel paths unchanged), and on the 2-core host
#                          an e2e guest finished in 47 s against 68 s.
#   --log FILE             keep the serial console log here (always echoed on stdout
#                          unless --quiet)
#   --quiet                do not echo the console on stdout
# Exit status: the guest script's status (PNBENCH-END rc=N), or 125 when the
# guest never reached the end marker (timeout, panic, boot failure).
#
# Memory layout (QEMU "pc" machine; MiB), N initiators, ndev device nodes:
#   Node 0 gets D0 = max(3072, 3584 - (N-1)*256 - ndev*S) MiB, so the guest's
#   total RAM is >= 3.5 GiB and QEMU puts exactly the first 3 GiB below the
#   PCI hole and the rest from 4 GiB up. NUMA nodes take guest RAM in node
#   order, so, with H = D0 + 1024 + (N-1)*256,
#     node 0:  [0, 3072) and [4096, D0 + 1024)
#     node j:  [D0 + 1024 + (j-1)*256, D0 + 1024 + j*256)  j = 1..N-1 (CPU nodes)
#     node k:  [H + (k-N)*S, H + (k-N+1)*S)                  k = N..N+ndev-1
#   i.e. every device node lies above 4 GiB on a clean, 16 MiB aligned range,
#   away from the BIOS tables that SeaBIOS keeps in the top 128 KiB of low RAM.
#   The other CPU nodes' DRAM needs no hiding: 256 MiB (two 128 MiB memory
#   blocks) each, all usable, so a second initiator has local DRAM of its
#   own (and "remote DRAM" means something in the HMAT) while the device
#   nodes stay on the 128 MiB alignment they have with one initiator.
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
#     kmem.private_nodes=<N>-<N+ndev-1>  with --private
#     pnbench.devices=<N>,...,<N+ndev-1> always: the device nodes, for guest
#                                     scripts (empty without device nodes)
#   After ndctl (devdax, align 2M) and kmem, each node gets S - 128 MiB of
#   hot-plugged memory: the devdax data area starts past the struct-page
#   reservation and kmem rounds to 128 MiB memory blocks.
#   --split-dev: the last device node spans S + 128 MiB from its start s:
#     memmap=16M$s, memmap=240M!<s+16M>         region A: block [s+128, s+256)
#     memmap=16M$<s+256M>                         keeps A and B two regions
#     memmap=<S-144>M!<s+272M>                    region B: blocks [s+384, s+S+128)
#   so it still gets S - 128 MiB of hot-plugged memory (one 128 MiB block
#   from A, S - 256 MiB from B: each region loses its first, partial block
#   to its struct-page reservation, hence the extra 128 MiB of span).  A legacy
#   (memmap=!) region is label-less: one namespace of fixed size, which ndctl
#   cannot resize or split, so two dax devices on one node need two regions.
set -euo pipefail
PN_PROG=run-guest
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$here/../scripts/lib.sh"

kernel=stock ndev=2 dsize=512 dram=1024 disk=512 cpus=2 ninit=1 private=0 online=1 online_type=movable append='' hmat=0 split=0
script='' share='' timeout=600 log='' quiet=0 mk=() icount=0 cpus_set=0 gdbport=''
while (($#)); do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--dev-nodes) ndev=$2; shift 2 ;;
	--dev-size) dsize=$2; shift 2 ;;
	--dram) dram=$2; shift 2 ;;
	--cpus) cpus=$2; cpus_set=1; shift 2 ;;
	--initiators) ninit=$2; shift 2 ;;
	--hmat) hmat=1; shift ;;
	--icount) icount=1; shift ;;
	--gdb) gdbport=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--private) private=1; shift ;;
	--split-dev) split=1; shift ;;
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
for v in ndev dsize dram disk cpus ninit timeout; do
	[[ "${!v}" =~ ^[0-9]+$ ]] || PN_DIE_RC=2 pn_die "--${v} wants a number (got '${!v}')"
done
if [[ -n "$gdbport" ]]; then
	if ! [[ "$gdbport" =~ ^[0-9]+$ ]] || ((gdbport < 1 || gdbport > 65535)); then
		PN_DIE_RC=2 pn_die "--gdb wants a TCP port 1..65535 (got '$gdbport')"
	fi
fi
if ((icount)); then
	((cpus_set)) || cpus=1
	((cpus == 1)) || PN_DIE_RC=2 pn_die "--icount runs one vCPU (TCG is single-threaded under icount): got --cpus $cpus"
fi
((ninit >= 1 && ninit <= 4)) || PN_DIE_RC=2 pn_die "--initiators wants 1..4 (got $ninit)"
((cpus >= ninit)) || PN_DIE_RC=2 pn_die "--initiators $ninit needs --cpus $ninit or more (got $cpus)"
((ndev == 0 || (dsize % 16 == 0 && dsize >= 256))) || PN_DIE_RC=2 pn_die "--dev-size must be a multiple of 16 MiB and >= 256"
((!split || (ndev > 0 && dsize >= 384))) || PN_DIE_RC=2 pn_die "--split-dev needs a device node and --dev-size >= 384"
((dram >= 256 && dram <= 3072 && dram % 16 == 0)) || PN_DIE_RC=2 pn_die "--dram must be a multiple of 16 within 256..3072 MiB"
((disk % 16 == 0 && (disk == 0 || dram + disk <= 3072 - 16))) ||
	PN_DIE_RC=2 pn_die "--disk must be a multiple of 16 MiB and fit below 3 GiB - 16 MiB with --dram"

cnode=256 # usable DRAM of each CPU node after node 0 (MiB)
d0=$((3584 - (ninit - 1) * cnode - ndev * dsize))
((d0 < 3072)) && d0=3072
total=$((d0 + (ninit - 1) * cnode + ndev * dsize + split * 128))
first=$ninit last=$((ninit + ndev - 1)) # device nodes

machine=pc smp=$cpus
((hmat)) && machine=pc,hmat=on
((ninit > 1)) && smp=$cpus,sockets=$cpus,cores=1,threads=1
home() { echo $((($1 - first) % ninit)); } # a device node's home initiator
numa=()
for ((j = 0; j < ninit; j++)); do
	lo=$((j * cpus / ninit)) hi=$(((j + 1) * cpus / ninit - 1))
	cl=$lo
	((hi > lo)) && cl=$lo-$hi
	size=$cnode ini=''
	((j == 0)) && size=$d0
	((hmat)) && ini=,initiator=$j
	numa+=(-object "memory-backend-ram,id=m$j,size=${size}M" -numa "node,nodeid=$j,cpus=$cl,memdev=m$j$ini")
done
# no_timer_check: under TCG on a loaded host the boot-time check that the
# 8254 timer reaches the IO-APIC can miss its window and panic the guest
# ("IO-APIC + timer doesn't work", seen with 8 runnable tasks on 2 cores)
cmd="console=ttyS0,115200 quiet log_buf_len=4M panic=-1 no_timer_check"
cmd+=" memhp_default_state=online_$online_type pnbench.online_type=$online_type"
((disk > 0)) && cmd+=" memmap=${disk}M!${dram}M"
((dram + disk < 3072)) && cmd+=" memmap=$((3072 - dram - disk))M\$$((dram + disk))M"
((d0 > 3072)) && cmd+=" memmap=$((d0 - 3072))M\$4096M"
devlist='' devices=''
for ((k = first; k <= last; k++)); do
	start=$((d0 + 1024 + (ninit - 1) * cnode + (k - first) * dsize))
	ini=''
	((hmat)) && ini=,initiator=$(home "$k")
	if ((split && k == last)); then
		numa+=(-object "memory-backend-ram,id=m$k,size=$((dsize + 128))M" -numa "node,nodeid=$k,memdev=m$k$ini")
		cmd+=" memmap=16M\$${start}M memmap=240M!$((start + 16))M"
		cmd+=" memmap=16M\$$((start + 256))M memmap=$((dsize - 144))M!$((start + 272))M"
	else
		numa+=(-object "memory-backend-ram,id=m$k,size=${dsize}M" -numa "node,nodeid=$k,memdev=m$k$ini")
		cmd+=" memmap=16M\$${start}M memmap=$((dsize - 16))M!$((start + 16))M"
	fi
	devices+=${devices:+,}$k
done
if ((hmat)); then
	for ((i = 0; i < ninit; i++)); do
		for ((t = 0; t <= last; t++)); do
			if ((t == i)); then lat=80 bw=20000
			elif ((t < first)); then lat=140 bw=10000
			else
				if (((t - first) % 2 == 0)); then lat=250 bw=8000; else lat=400 bw=4000; fi
				(($(home "$t") == i)) || lat=$((lat + 150)) bw=$((bw / 2))
			fi
			numa+=(-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat")
			numa+=(-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=${bw}M")
		done
	done
fi
((ndev > 0)) && devlist=$first-$last
((ndev == 1)) && devlist=$first
((private && ndev > 0)) && cmd+=" kmem.private_nodes=$devlist"
cmd+=" pnbench.devices=$devices"
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

((icount)) && extra+=(-icount 'shift=0,align=off,sleep=off')
[[ -n "$gdbport" ]] && extra+=(-gdb "tcp:127.0.0.1:$gdbport" -S)

others='' # the CPU nodes after node 0
for ((j = 1; j < ninit; j++)); do others+=${others:+,}$j; done
pn_log "booting $(basename "$kernel") ($kernel): ${cpus} vCPU$( ((ninit > 1)) && echo " over nodes 0,$others")$( ((hmat)) && echo ", HMAT")$( ((icount)) && echo ", icount")${gdbport:+, gdbstub 127.0.0.1:$gdbport (halted until a debugger continues)}, node0 ${d0} MiB (${dram} usable)$( ((ninit > 1)) && echo ", node(s) $others ${cnode} MiB each"), ${ndev} device node(s) [${devices:-none}] x ${dsize} MiB$( ((split)) && echo " (node $last: two regions, +128 MiB)") (online_$online_type), total ${total} MiB, timeout ${timeout}s"
pn_log "cmdline: $cmd"
tcg_thread=${PNBENCH_QEMU_TCG_THREAD:-single}
[[ "$tcg_thread" == single || "$tcg_thread" == multi ]] ||
	PN_DIE_RC=2 pn_die "PNBENCH_QEMU_TCG_THREAD must be single or multi, got '$tcg_thread'"
((icount)) && tcg_thread=single
t0=$(date +%s)
set +e
timeout -s KILL "$timeout" "$qemu" -accel "tcg,thread=$tcg_thread" -M "$machine" -cpu "${PNBENCH_QEMU_CPU:-qemu64}" -smp "$smp" -m "${total}M" \
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
