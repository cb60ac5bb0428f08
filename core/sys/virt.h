/* SPDX-License-Identifier: GPL-2.0-only
 *
 * virt.h - is this a virtual machine, and is it emulated (QEMU TCG)?
 *
 * Latency and bandwidth measured in a guest say little about the hardware,
 * and under TCG nothing at all (every load is emulated), so results carry
 * this verdict.  Sources, each recorded: the CPUID hypervisor bit and vendor
 * leaf 0x40000000 (live machine only), the "hypervisor" flag and model name
 * in /proc/cpuinfo, /sys/hypervisor/type, the DMI vendor and product name
 * and the clock source (kvm-clock).  A container is not a VM and is not
 * reported.  /proc and /sys go through the sysroot, so fixtures replay.
 */
#ifndef PN_VIRT_H
#define PN_VIRT_H

#include <stdbool.h>

enum pn_virt_kind {
	PN_VIRT_NONE,	    /* no sign of a hypervisor */
	PN_VIRT_HYPERVISOR, /* hardware-assisted guest (KVM, Hyper-V, Xen, ...) */
	PN_VIRT_EMULATED,   /* QEMU TCG or another pure emulator */
};

struct pn_virt {
	enum pn_virt_kind kind;
	char vendor[32];    /* "KVMKVMKVM", "TCGTCGTCGTCG", "Microsoft Hv", "" */
	char product[64];   /* DMI product name or "" */
	char evidence[256]; /* what was seen, "cpuid-hv-bit,cpuinfo-flag,dmi:QEMU" */
};

/* use_cpuid: also ask the CPU (false when replaying a captured tree). */
void pn_virt_detect(struct pn_virt *v, bool use_cpuid);
const char *pn_virt_kind_name(enum pn_virt_kind k); /* "none", "hypervisor", "emulated" */

#endif /* PN_VIRT_H */
