/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procfs.h - parsers of /proc and /sys counter files, and per-node memory
 * snapshots.
 *
 * The parsers are pure functions over a NUL-terminated buffer (so they can be
 * fuzzed and fed captured files); they never trust the input: malformed lines
 * give -EINVAL (never a crash, never a silent partial result).
 */
#ifndef PN_PROCFS_H
#define PN_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#include "pn.h"

/* Called once per counter; return non-zero to stop (that value is returned). */
typedef int (*pn_kv_cb)(void *arg, const char *key, int64_t val);

/* "key value" lines: /proc/vmstat, nodeN/vmstat, nodeN/numastat. */
int pn_parse_kv(const char *buf, pn_kv_cb cb, void *arg);

/* nodeN/meminfo: "Node 0 MemTotal:  16318988 kB".  Values with "kB" are
 * reported in BYTES; HugePages_* counts are reported as they are.  A line for
 * another node than `node` is -EINVAL. */
int pn_parse_node_meminfo(const char *buf, int node, pn_kv_cb cb, void *arg);

/* /proc/meminfo: "MemAvailable:  1234 kB" -> bytes. */
int pn_parse_meminfo(const char *buf, pn_kv_cb cb, void *arg);

/* /proc/zoneinfo: one call per (node, zone, key).  Keys are the per-zone
 * items ("pages free" is reported as "free", plus "min", "low", "high",
 * "spanned", "present", "managed", "cma", "start_pfn" and the nr_* zone
 * items); the per-node "per-node stats" block is reported with zone "node";
 * per-CPU pageset lines are summed into zone key "pcp_count". */
typedef int (*pn_zone_cb)(void *arg, int node, const char *zone, const char *key, int64_t val);
int pn_parse_zoneinfo(const char *buf, pn_zone_cb cb, void *arg);

/* Memory of one node, bytes, from nodeN/meminfo + numastat + vmstat. */
struct pn_nodemem {
	int node;
	int64_t total, free, used;
	int64_t anon, file, shmem, slab, slab_reclaimable, slab_unreclaimable;
	int64_t kernel_stack, page_tables, sec_page_tables, hugetlb;
	int64_t zspages, iommu; /* 0 where the kernel lacks them */
	int64_t other;		/* used minus every kind above (file includes shmem) */
	/* numastat, events (calls, not pages) */
	int64_t numa_hit, numa_miss, numa_foreign, interleave_hit, local_node, other_node;
	/* numa_private_fallback from nodeN/vmstat, -1 if the kernel lacks it */
	int64_t numa_private_fallback;
};

/* Read a snapshot of node `node` through the sysroot. */
int pn_nodemem_read(int node, struct pn_nodemem *m);

/* Ask the kernel to fold per-CPU counter deltas (/proc/sys/vm/stat_refresh,
 * root only).  Returns 0, or -errno when unavailable (callers note that the
 * snapshot may be off by up to threshold x CPUs pages per item). */
int pn_stat_refresh(void);

/* The nodes whose memory counters are worth sampling: online &
 * (has_memory | has_private_memory) from /sys/devices/system/node, through
 * the sysroot.  Without has_memory (old kernels) every online node.  -ENOENT
 * (logged) if the set is empty or node/online is missing. */
int pn_nodes_with_memory(struct pn_nodeset *out);

/* /proc/meminfo MemAvailable in bytes. */
int pn_mem_available(uint64_t *bytes);

#endif /* PN_PROCFS_H */
