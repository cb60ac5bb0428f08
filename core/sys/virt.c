// SPDX-License-Identifier: GPL-2.0-only
/*
 * virt.c - hypervisor and emulator detection (see virt.h).
 *
 * TCG gives itself away by what is missing: QEMU's CPU models set the
 * hypervisor bit, but only an accelerator (KVM, HVF, WHPX) answers the
 * hypervisor vendor leaf or offers kvm-clock.  A QEMU machine (DMI vendor
 * or model name "QEMU") with the bit and without either is emulated.
 */
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/lib/pn.h"
#include "virt.h"

const char *pn_virt_kind_name(enum pn_virt_kind k)
{
	switch (k) {
	case PN_VIRT_NONE: return "none";
	case PN_VIRT_HYPERVISOR: return "hypervisor";
	case PN_VIRT_EMULATED: return "emulated";
	}
	return "?";
}

static void add(struct pn_virt *v, const char *what)
{
	size_t n = strlen(v->evidence);

	snprintf(v->evidence + n, sizeof(v->evidence) - n, "%s%s", n ? "," : "", what);
}

/* First line of a small file, stripped; "" if absent. */
static void read_line(const char *rel, char *buf, size_t len)
{
	if (pn_read_text(rel, buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* CPUID: hypervisor bit (leaf 1 ECX bit 31) and vendor leaf 0x40000000. */
static bool cpuid_probe(struct pn_virt *v)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1U << 31)))
		return false;
	add(v, "cpuid-hv-bit");
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	if (a >= 0x40000000 && sig[0] >= ' ') {
		snprintf(v->vendor, sizeof(v->vendor), "%s", sig);
		add(v, "cpuid-vendor");
	}
	return true;
#else
	(void)v;
	return false;
#endif
}

/* /proc/cpuinfo: the "hypervisor" flag; the model name when it says QEMU. */
static bool cpuinfo_probe(struct pn_virt *v, bool *qemu_model)
{
	static char buf[1 << 16];
	const char *flags, *model;
	bool hv = false;

	*qemu_model = false;
	if (pn_read_text("/proc/cpuinfo", buf, sizeof(buf)) < 0)
		return false;
	flags = strstr(buf, "\nflags");
	if (flags) {
		size_t n = strcspn(flags + 1, "\n");
		char line[4096];

		snprintf(line, sizeof(line), " %.*s ", (int)(n < 4000 ? n : 4000), flags + 1);
		hv = strstr(line, " hypervisor ") != NULL;
	}
	model = strstr(buf, "model name");
	if (model && strstr(model, "QEMU") && strstr(model, "QEMU") < strchr(model, '\n'))
		*qemu_model = true;
	if (hv)
		add(v, "cpuinfo-flag");
	if (*qemu_model)
		add(v, "cpuinfo-model:QEMU");
	return hv;
}

void pn_virt_detect(struct pn_virt *v, bool use_cpuid)
{
	char hyp[64], vendor[64], clock[64];
	bool hv = false, qemu_model, qemu;

	memset(v, 0, sizeof(*v));
	if (use_cpuid)
		hv |= cpuid_probe(v);
	hv |= cpuinfo_probe(v, &qemu_model);
	read_line("/sys/hypervisor/type", hyp, sizeof(hyp));
	if (*hyp) {
		hv = true;
		add(v, "sys-hypervisor");
	}
	read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	read_line("/sys/class/dmi/id/product_name", v->product, sizeof(v->product));
	qemu = qemu_model || strstr(vendor, "QEMU") || strstr(v->product, "QEMU");
	if (qemu || strstr(vendor, "VMware") || strstr(vendor, "Xen") ||
	    strstr(v->product, "Virtual Machine") || strstr(vendor, "innotek")) {
		hv = true;
		add(v, "dmi");
	}
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", clock,
		  sizeof(clock));
	if (!strcmp(clock, "kvm-clock"))
		add(v, "kvm-clock");
	if (!hv)
		return;
	v->kind = PN_VIRT_HYPERVISOR;
	if (!strcmp(v->vendor, "TCGTCGTCGTCG") ||
	    (qemu && !*v->vendor && strcmp(clock, "kvm-clock") != 0)) {
		v->kind = PN_VIRT_EMULATED;
		add(v, "no-accelerator");
	}
}
