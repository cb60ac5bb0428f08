/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topology.h - the machine's NUMA topology, from hwloc (honouring the sysroot
 * through HWLOC_FSROOT) and, where hwloc has no answer, sysfs/libnuma.
 *
 * Node ids are sparse; nodes may have CPUs and no memory, memory and no CPUs,
 * or (on private-node kernels) only private memory.
 */
#ifndef PN_TOPOLOGY_H
#define PN_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>

#include "core/lib/pn.h"

struct cJSON;

struct pn_hmat { /* one initiator class ("access0" / "access1"); 0 = absent */
	uint64_t read_latency_ns, write_latency_ns;
	uint64_t read_bandwidth_mbps, write_bandwidth_mbps;
};

struct pn_node_info {
	int id;
	bool has_cpu, has_memory, has_normal_memory, has_private_memory;
	uint64_t mem_total_bytes; /* nodeN/meminfo MemTotal */
	int ncpus;
	char cpulist[256];	/* nodeN/cpulist */
	char subtype[32];	/* hwloc subtype (DRAM, NVM, SPM, ...) or "" */
	char dax_device[32];	/* hwloc DAXDevice info or "" */
	int memory_tier;	/* /sys/devices/virtual/memory_tiering, -1 unknown */
	struct pn_hmat hmat[2]; /* access0, access1 */
	bool has_hmat;
};

struct pn_topology {
	struct pn_nodeset possible, online, with_cpu, with_memory, with_normal_memory,
		with_private_memory;
	int nnodes;		    /* entries in nodes[] (online nodes) */
	struct pn_node_info *nodes; /* sorted by id */
	int *distance;		    /* nnodes x nnodes, by index into nodes[]; -1 unknown */
	int ncpus;
	char *hwloc_xml; /* hwloc XML export, NUL-terminated; NULL if hwloc failed */
	char hwloc_version[32];
	bool kernel_has_private; /* has_private_memory exists */
};

/* Load through the sysroot.  Returns 0 or -errno (message printed). */
int pn_topology_load(struct pn_topology *t);
void pn_topology_free(struct pn_topology *t);
const struct pn_node_info *pn_topology_node(const struct pn_topology *t, int id);
int pn_topology_distance(const struct pn_topology *t, int from, int to); /* -1 unknown */
/* JSON for run.json "topology" (no XML: that goes to topology.xml). */
struct cJSON *pn_topology_to_json(const struct pn_topology *t);
/* Human table for `pnbench topology`. */
void pn_topology_print(const struct pn_topology *t, FILE *out);

#endif /* PN_TOPOLOGY_H */
