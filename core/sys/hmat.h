/* SPDX-License-Identifier: GPL-2.0-only
 *
 * hmat.h - what the firmware declares about each (initiator, target) pair:
 * the kernel's HMAT/CDAT view in sysfs and hwloc's memory attributes.
 *
 * sysfs (Documentation/admin-guide/mm/numaperf.rst) gives, per target node
 * T and class C, one set of values and the *best* initiators it applies to:
 *   nodeT/accessC/initiators/{read,write}_{latency,bandwidth}  (ns, MiB/s)
 *   nodeT/accessC/initiators/nodeI  -> I is a best initiator of T
 * access0 ranks every initiator (CPUs, GPUs, accelerators), access1 CPU
 * initiators only.  A pair whose initiator is not listed has no declared
 * value in sysfs: the table says "not declared", never borrows the best one.
 * hwloc's memattrs (from the same files on Linux, or from an XML of another
 * machine) are listed per initiator location as hwloc reports them.
 *
 * The values of the topology (topology.c reads the access files) are reused
 * here; this module adds the initiator lists and hwloc's per-initiator view.
 */
#ifndef PN_HMAT_H
#define PN_HMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "topology.h"

enum pn_hw_attr {
	PN_HW_LATENCY,
	PN_HW_READ_LATENCY,
	PN_HW_WRITE_LATENCY,
	PN_HW_BANDWIDTH,
	PN_HW_READ_BANDWIDTH,
	PN_HW_WRITE_BANDWIDTH,
	PN_HW_NATTRS
};

struct pn_hmat_cell {
	int initiator, target;
	bool listed[2];		      /* initiator listed in target's access0 / access1 */
	struct pn_hmat sysfs[2];      /* the class's values when listed, else 0 */
	uint64_t hwloc[PN_HW_NATTRS]; /* ns or MiB/s for this initiator, 0 = none */
};

struct pn_hmat_table {
	int ninit, ntarget;
	int *inits, *targets;	    /* node ids, ascending */
	struct pn_hmat_cell *cells; /* ninit x ntarget, row = initiator */
	bool any_sysfs, any_hwloc;
};

/*
 * Build the table for topology t (through the sysroot, like t itself).
 * Initiators: nodes with CPUs plus any node listed as an initiator; targets:
 * nodes with memory (private included) plus any node with access files.
 * Returns 0 or -errno.
 */
int pn_hmat_load(const struct pn_topology *t, struct pn_hmat_table *tab);
void pn_hmat_free(struct pn_hmat_table *tab);
const struct pn_hmat_cell *pn_hmat_cell(const struct pn_hmat_table *tab, int init, int target);

/*
 * The declared read latency (ns) / read bandwidth (MiB/s) of a pair and
 * where it came from ("access1", "access0", "hwloc"), preferring sysfs
 * access1 (CPU initiators), then access0, then hwloc.  0 and "" if none.
 */
uint64_t pn_hmat_read_latency(const struct pn_hmat_cell *c, const char **src);
uint64_t pn_hmat_read_bandwidth(const struct pn_hmat_cell *c, const char **src);

/*
 * Class of a measured latency ratio to local DRAM (methods-and-anchors.md:
 * real CXL is 1.5-4x local, above 4x is FPGA-class): "local", "near
 * (< 1.5x)", "CXL range (1.5-4x)", "FPGA-class (> 4x local)", "no local
 * reference" (ratio NaN), or "meaningless (emulated)" when emulated.
 */
const char *pn_latency_class(double ratio, bool local, bool emulated);

#endif /* PN_HMAT_H */
