/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topology_int.h - what topology.c, topology_hwloc.c and topology_print.c
 * share: the hwloc steps of pn_topology_load() and two small helpers.
 */
#ifndef PN_TOPOLOGY_INT_H
#define PN_TOPOLOGY_INT_H

#include <stddef.h>
#include <string.h>

#include <hwloc.h>

#include "topology.h"

#define NODE_DIR "/sys/devices/system/node"

/* Index of node id in t->nodes, or -1. */
static inline int pn_topology_index(const struct pn_topology *t, int id)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return i;
	return -1;
}

/* Copy the first line of src into dst (at most dstlen - 1 bytes). */
static inline void pn_topology_copy_line(char *dst, size_t dstlen, const char *src)
{
	size_t n = strcspn(src, "\n");

	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* hwloc loaded on the sysroot, or NULL (warned) when it cannot load. */
hwloc_topology_t pn_topology_hwloc_load(void);
/* "2.9.0", or "api 2.8.0" when h is NULL (hwloc could not load). */
void pn_topology_hwloc_version(char *buf, size_t len, hwloc_topology_t h);
/* Subtype, DAX device and best memory attributes of one node. */
void pn_topology_hwloc_enrich(struct pn_node_info *ni, hwloc_topology_t h);
/* hwloc's distance matrix into t->distance (sysfs overrides it later). */
void pn_topology_hwloc_distances(struct pn_topology *t, hwloc_topology_t h);

#endif /* PN_TOPOLOGY_INT_H */
