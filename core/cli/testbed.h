/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testbed.h - the QEMU testbed's configs (configs/topologies/,
 * configs/kernels/) and the commands that boot it: `pnbench demo`
 * (scripts/demo.sh) and `pnbench vm` (scripts/vm.sh).  The configs are read
 * here, with cJSON, and handed to the scripts as checked values; the scripts
 * never parse JSON.
 */
#ifndef PN_TESTBED_H
#define PN_TESTBED_H

#include <stdbool.h>

/* A guest machine: CPU nodes 0..initiators-1 (node 0 with the DRAM of
 * dram_mib, the others 256 MiB each), then device_nodes CPU-less nodes
 * (initiators..initiators+device_nodes-1) whose memory is hot-plugged
 * through devdax/kmem, onlined in each zone of `online` (one demo cell per
 * entry). */
struct pn_topology_cfg {
	char name[64];
	unsigned int cpus, dram_mib, device_nodes, device_mib, disk_mib;
	unsigned int initiators; /* CPU nodes (run-guest.sh --initiators), default 1 */
	bool online_movable, online_kernel;
	bool hmat; /* ACPI HMAT with declared latency and bandwidth (run-guest.sh --hmat) */
};

/* A kernel variant: the cached reference build ("stock", "patched") or a
 * bzImage path, whether the device memory comes online private, extra
 * command line, and the model whose expected cells apply. */
struct pn_kernel_cfg {
	char name[64];
	char kernel[512];
	char append[256];
	char model[16]; /* stock, isolate or private */
	bool private_nodes;
};

/* 0, or PN_EXIT_USAGE after an error naming the file and field. */
int pn_topology_cfg_load(const char *path, struct pn_topology_cfg *t);
int pn_kernel_cfg_load(const char *path, struct pn_kernel_cfg *k);

/* `pnbench testbed topology|kernel FILE`: the checked values, key=value. */
int pn_cmd_testbed(int argc, char **argv);
/* `pnbench demo ...` and `pnbench vm ...`: exec the script next to the
 * binary (build/../scripts) or under $PNBENCH_SRCDIR. */
int pn_cmd_demo(int argc, char **argv);
int pn_cmd_vm(int argc, char **argv);

#endif
