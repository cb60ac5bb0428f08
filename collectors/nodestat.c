// SPDX-License-Identifier: GPL-2.0-only
/*
 * nodestat.c - per-node counters: nodeN/numastat, nodeN/vmstat and
 * nodeN/meminfo of every node that has memory.
 *
 * Nodes: pn_nodes_with_memory() - the online nodes (ids are sparse: read
 * from /sys/devices/system/node/online, never assumed 0..n-1) that are in
 * has_memory or, on kernels with private memory nodes, in
 * has_private_memory.  Fixed at open(); a node onlined later is not added.
 *
 * Column scheme (no collisions: numastat and vmstat share numa_hit etc.):
 *   node<N>.<key>            nodeN/numastat  (events: allocation calls)
 *   node<N>.vmstat.<key>     nodeN/vmstat    (pages; nr_kernel_stack in kB,
 *                                             THP items in huge pages)
 *   node<N>.meminfo.<Key>    nodeN/meminfo   (bytes for "kB" lines;
 *                                             HugePages_* are counts)
 * e.g. node2.numa_miss, node2.vmstat.nr_free_pages, node2.meminfo.MemUsed.
 *
 * Cost per sample: three preads per node (sysfs regenerates each file; no
 * locks, per-CPU sums).  Values are approximate by up to stat_threshold x
 * online CPUs pages per item (see pn_stat_refresh()); numastat is exact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api/collector.h"
#include "core/sys/cfile.h"
#include "core/sys/procfs.h"

static const struct pn_opt nodestat_opts[] = {
	{ NULL },
};

#define NODE_DIR "/sys/devices/system/node"

enum { NS_NUMASTAT, NS_VMSTAT, NS_MEMINFO, NS_NFILES };

static const char *const ns_file[NS_NFILES] = { "numastat", "vmstat", "meminfo" };
static const char *const ns_prefix[NS_NFILES] = { "", "vmstat.", "meminfo." };

struct ns_node {
	int node;
	struct pn_cfile f[NS_NFILES];
};

struct nodestat {
	size_t nnodes;
	struct ns_node *nodes;
};

static int nodestat_supported(const struct pn_env *env, char *why, size_t whylen)
{
	(void)env;
	if (!pn_exists(NODE_DIR)) {
		snprintf(why, whylen, "no %s" NODE_DIR ": kernel without NUMA", pn_sysroot());
		return -ENOENT;
	}
	if (!pn_exists(NODE_DIR "/online")) {
		snprintf(why, whylen, "no %s" NODE_DIR "/online", pn_sysroot());
		return -ENOENT;
	}
	return 0;
}

struct col_ctx {
	struct pn_coll *c;
	int node;
	const char *prefix;
};

static int nodestat_col(void *arg, const char *key)
{
	struct col_ctx *x = arg;
	char name[160];
	int col;

	snprintf(name, sizeof(name), "node%d.%s%s", x->node, x->prefix, key);
	col = pn_series_add_col(&x->c->series, name);
	if (col < 0)
		return pn_error(col, "nodestat: column %s: %s", name, strerror(-col));
	return col;
}

static void nodestat_close(struct pn_coll *c)
{
	struct nodestat *ns = c->priv;

	if (!ns)
		return;
	for (size_t i = 0; i < ns->nnodes; i++)
		for (int f = 0; f < NS_NFILES; f++)
			pn_cfile_close(&ns->nodes[i].f[f]);
	free(ns->nodes);
	free(ns);
	c->priv = NULL;
}

static int nodestat_open(struct pn_coll *c)
{
	struct pn_nodeset nodes;
	struct nodestat *ns;
	int node, ret;

	ret = pn_nodes_with_memory(&nodes);
	if (ret)
		return ret;
	ns = pn_xcalloc(1, sizeof(*ns));
	ns->nodes = pn_xcalloc((size_t)pn_nodeset_count(&nodes), sizeof(*ns->nodes));
	c->priv = ns;
	pn_nodeset_for_each (node, &nodes) {
		struct ns_node *nn = &ns->nodes[ns->nnodes++];

		nn->node = node;
		for (int f = 0; f < NS_NFILES; f++) {
			struct col_ctx x = { .c = c, .node = node, .prefix = ns_prefix[f] };
			char rel[128];

			snprintf(rel, sizeof(rel), NODE_DIR "/node%d/%s", node, ns_file[f]);
			ret = pn_cfile_open(&nn->f[f], rel,
					    f == NS_MEMINFO ? PN_CFILE_NODE_MEMINFO : PN_CFILE_KV,
					    node, nodestat_col, &x);
			if (ret) {
				nodestat_close(c);
				return ret;
			}
		}
	}
	return 0;
}

static int nodestat_sample(struct pn_coll *c, int64_t *row)
{
	struct nodestat *ns = c->priv;

	for (size_t i = 0; i < ns->nnodes; i++) {
		for (int f = 0; f < NS_NFILES; f++) {
			int ret = pn_cfile_sample(&ns->nodes[i].f[f], row);

			if (ret)
				return ret;
		}
	}
	return 0;
}

const struct pn_collector pn_collector_nodestat = {
	.name = "nodestat",
	.summary = "per-node numastat, vmstat and meminfo of every node with memory, raw",
	.opts = nodestat_opts,
	.supported = nodestat_supported,
	.open = nodestat_open,
	.sample = nodestat_sample,
	.close = nodestat_close,
};
