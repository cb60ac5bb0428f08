// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_table.c - the leak probes (probe.h): what each one drives in Linux
 * 6.12, what a private-node kernel must do instead, and the checks common
 * to all of them (root, device nodes present, ZONE_NORMAL device memory for
 * the kernel-object paths).  The table order is the default run order.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"
#include "probe_int.h"

#define NORMAL	   true
#define MOVABLE_OK false

const struct pn_probe pn_probes[] = {
	{
		.name = "hugetlb_spread",
		.subsys = "hugetlb",
		.kpath = "mm/hugetlb.c:set_max_huge_pages -> alloc_pool_huge_folio "
			 "(for_each_node_mask_to_alloc over node_states[N_MEMORY], __GFP_THISNODE)",
		.trigger = "raise /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages by count "
			   "x (device nodes + 1)",
		.private_expect =
			"spreads the pool over N_MEMORY only: no huge page on a private node",
		.cleanup = "nr_hugepages written back, per-node counts restored",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = MOVABLE_OK,
		.default_count = 8,
		.knobs = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages;"
			 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		.supported = pn_probe_hugetlb_supported,
		.run = pn_probe_hugetlb_spread,
	},
	{
		.name = "hugetlb_node",
		.subsys = "hugetlb",
		.kpath = "mm/hugetlb.c:__nr_hugepages_store_common(nid) -> alloc_pool_huge_folio "
			 "-> alloc_buddy_hugetlb_folio (__GFP_THISNODE on the named node)",
		.trigger = "raise "
			   "/sys/devices/system/node/nodeN/hugepages/hugepages-2048kB/nr_hugepages "
			   "by count",
		.private_expect = "the allocation has no private context: the gate refuses the "
				  "node, 0 huge pages there",
		.cleanup = "nodeN nr_hugepages written back",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = MOVABLE_OK,
		.default_count = 8,
		.knobs = "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		.supported = pn_probe_hugetlb_supported,
		.run = pn_probe_hugetlb_node,
	},
	{
		.name = "bpf_array",
		.subsys = "bpf",
		.kpath = "kernel/bpf/syscall.c:__bpf_map_area_alloc -> "
			 "__vmalloc_node_range(numa_node) (array_map_alloc)",
		.trigger = "bpf(BPF_MAP_CREATE, ARRAY, value 4 KiB x count, BPF_F_NUMA_NODE, "
			   "numa_node=N)",
		.private_expect = "vmalloc pages come from DRAM (the gate skips the private "
				  "zones), 0 pages on N",
		.cleanup = "map fd closed (freed by the kernel)",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = NORMAL,
		.default_count = 256,
		.supported = pn_probe_bpf_supported,
		.run = pn_probe_bpf_array,
	},
	{
		.name = "bpf_ringbuf",
		.subsys = "bpf",
		.kpath = "kernel/bpf/ringbuf.c:bpf_ringbuf_area_alloc -> "
			 "alloc_pages_node(numa_node)",
		.trigger = "bpf(BPF_MAP_CREATE, RINGBUF, count pages, BPF_F_NUMA_NODE, "
			   "numa_node=N), mmap it",
		.private_expect =
			"alloc_pages_node() on a private node falls back to DRAM, 0 pages on N",
		.cleanup = "unmapped, map fd closed",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = NORMAL,
		.default_count = 256,
		.supported = pn_probe_bpf_supported,
		.run = pn_probe_bpf_ringbuf,
	},
	{
		.name = "bpf_lpm_trie",
		.subsys = "bpf",
		.kpath = "kernel/bpf/lpm_trie.c:lpm_trie_node_alloc -> "
			 "bpf_map_kmalloc_node(numa_node) (one node per trie_update_elem)",
		.trigger = "bpf(BPF_MAP_CREATE, LPM_TRIE, value 2 KiB, BPF_F_NUMA_NODE, "
			   "numa_node=N), count updates",
		.private_expect = "kmalloc_node(private node) is served from DRAM (no slab node on "
				  "it), 0 pages",
		.cleanup = "map fd closed (freed by the kernel)",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = NORMAL,
		.default_count = 256,
		.supported = pn_probe_bpf_supported,
		.run = pn_probe_bpf_lpm,
	},
	{
		.name = "memcg_create",
		.subsys = "memcg",
		.kpath = "mm/memcontrol.c:mem_cgroup_alloc -> alloc_mem_cgroup_per_node_info "
			 "(for_each_node, kzalloc_node); mm/shrinker.c:alloc_shrinker_info "
			 "(kvzalloc_node)",
		.trigger = "mkdir count cgroups under a cgroup v2 parent with +memory",
		.private_expect = "kzalloc_node(private node) is served from DRAM (no slab node on "
				  "it), 0 pages",
		.cleanup = "cgroups removed",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = NORMAL,
		.default_count = 64,
		.supported = pn_probe_memcg_supported,
		.run = pn_probe_memcg,
	},
	{
		.name = "hugetlb_cgroup",
		.subsys = "cgroup hugetlb",
		.kpath = "mm/hugetlb_cgroup.c:hugetlb_cgroup_css_alloc (for_each_node, "
			 "kzalloc_node on every N_NORMAL_MEMORY node)",
		.trigger = "mkdir count cgroups under a cgroup v2 parent with +hugetlb",
		.private_expect = "a private node is not N_NORMAL_MEMORY: NUMA_NO_NODE, 0 pages",
		.cleanup = "cgroups removed",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = NORMAL,
		.default_count = 512,
		.supported = pn_probe_hugetlb_cg_supported,
		.run = pn_probe_hugetlb_cg,
	},
	{
		.name = "move_pages",
		.subsys = "migration",
		.kpath = "mm/migrate.c:do_pages_move -> do_move_pages_to_node -> "
			 "migrate_pages(alloc_migration_target, __GFP_THISNODE)",
		.trigger = "move_pages(2) of count private anonymous pages to node N",
		.private_expect = "refused while the node has not opted in to mempolicy (the "
				  "probe holds the opt-in off while it moves), 0 pages",
		.cleanup = "pages moved home, unmapped; the opt-in restored",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = MOVABLE_OK,
		.default_count = 256,
		.knobs = "/sys/devices/system/node/node%d/private/mempolicy;"
			 "/sys/kernel/debug/private_node/node%d/mempolicy",
		.run = pn_probe_move_pages,
	},
	{
		.name = "migrate_pages",
		.subsys = "mempolicy",
		.kpath = "mm/mempolicy.c:kernel_migrate_pages -> do_migrate_pages -> "
			 "migrate_to_node(dest)",
		.trigger = "migrate_pages(2) of the probe process from its home node to node N",
		.private_expect = "refused while the node has not opted in to mempolicy (held off "
				  "while it runs), 0 pages",
		.cleanup = "migrated back home, unmapped; the opt-in restored",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = MOVABLE_OK,
		.default_count = 256,
		.knobs = "/sys/devices/system/node/node%d/private/mempolicy;"
			 "/sys/kernel/debug/private_node/node%d/mempolicy",
		.run = pn_probe_migrate_pages,
	},
	{
		.name = "madv_collapse",
		.subsys = "khugepaged",
		.kpath = "mm/khugepaged.c:hpage_collapse_find_target_node -> alloc_charge_folio "
			 "(__folio_alloc on the node holding most source pages)",
		.trigger = "512 small pages placed on node N (move_pages), then "
			   "madvise(MADV_COLLAPSE)",
		.private_expect = "collapse skips private-node folios: no THP allocated on N",
		.cleanup = "unmapped",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = MOVABLE_OK,
		.default_count = 1,
		.knobs = "/sys/devices/system/node/node%d/private/mempolicy;"
			 "/sys/kernel/debug/private_node/node%d/mempolicy",
		.supported = pn_probe_collapse_supported,
		.run = pn_probe_collapse,
	},
	{
		.name = "demotion",
		.subsys = "vmscan/memory-tiers",
		.kpath = "mm/vmscan.c:shrink_folio_list -> demote_folio_list -> alloc_demote_folio "
			 "(next_demotion_node)",
		.trigger = "demotion_enabled=1; a child in its own memcg faults count pages at "
			   "home, MADV_COLD, memory.reclaim",
		.private_expect = "a private node is no demotion target unless it opts in "
				  "(isolate keeps it one, as stock): 0 pages demoted there",
		.cleanup = "demotion_enabled restored, child exited, cgroup removed",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = MOVABLE_OK,
		.default_count = 4096,
		.knobs = "/sys/kernel/mm/numa/demotion_enabled",
		.supported = pn_probe_demotion_supported,
		.run = pn_probe_demotion,
	},
	{
		.name = "damon_migrate",
		.subsys = "damon",
		.kpath = "mm/damon/paddr.c:damon_pa_migrate -> damon_pa_migrate_pages -> "
			 "migrate_pages(alloc_migrate_folio, target_nid)",
		.trigger = "a DAMON paddr kdamond over the probe's buffer, scheme migrate_cold "
			   "target_nid=N, quota = buffer size",
		.private_expect =
			"the migration target allocation has no private context: refused, 0 pages",
		.cleanup = "kdamond off, nr_kdamonds 0, unmapped",
		.kind = PN_PROBE_NODE_PATH,
		.needs_normal = MOVABLE_OK,
		.default_count = 1024,
		.knobs = "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds",
		.supported = pn_probe_damon_supported,
		.run = pn_probe_damon,
	},
};
const size_t pn_nprobes = PN_ARRAY_SIZE(pn_probes);

const struct pn_probe *pn_probe_find(const char *name)
{
	size_t i;

	for (i = 0; i < pn_nprobes; i++)
		if (!strcmp(pn_probes[i].name, name))
			return &pn_probes[i];
	return NULL;
}

void pn_stat_refresh_quiet(void)
{
	pn_write_text("/proc/sys/vm/stat_refresh", "1");
}

static void knob_one(const char *path, void (*fn)(void *, const char *, const char *), void *ctx)
{
	char val[128];

	if (pn_read_text(path, val, sizeof(val)) < 0)
		return;
	val[strcspn(val, "\n")] = '\0';
	fn(ctx, path, val);
}

void pn_probe_knobs(const struct pn_probe *probe, const struct pn_probe_env *env,
		    void (*fn)(void *ctx, const char *path, const char *value), void *ctx)
{
	char list[512], *tok, *save = NULL;

	if (!probe->knobs)
		return;
	snprintf(list, sizeof(list), "%s", probe->knobs);
	for (tok = strtok_r(list, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char path[256], *pct = strstr(tok, "%d");
		int n;

		if (!pct) {
			knob_one(tok, fn, ctx);
			continue;
		}
		pn_nodeset_for_each (n, &env->dev_nodes) {
			snprintf(path, sizeof(path), "%.*s%d%s", (int)(pct - tok), tok, n, pct + 2);
			knob_one(path, fn, ctx);
		}
	}
}

int pn_probe_supported(const struct pn_probe *probe, const struct pn_probe_env *env, char *why,
		       size_t whylen)
{
	int n;

	why[0] = '\0';
	if (!env->is_root)
		return snprintf(why, whylen, "needs root"), -EPERM;
	if (pn_nodeset_empty(&env->dev_nodes))
		return snprintf(why, whylen, "no device node to probe"), -ENODEV;
	pn_nodeset_for_each (n, &env->dev_nodes) {
		char rel[64];

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d", n);
		if (n >= PN_PROBE_MAX_NODES || !pn_exists(rel))
			return snprintf(why, whylen, "device node %d is not online here", n),
			       -ENODEV;
		if (probe->needs_normal && pn_probe_node_kernel_pages(n) <= 0)
			return snprintf(why, whylen,
					"node %d memory is movable-only (no ZONE_NORMAL): kernel "
					"allocations never land there (online it as ZONE_NORMAL)",
					n),
			       -ENOTSUP;
	}
	return probe->supported ? probe->supported(env, why, whylen) : 0;
}

/* Used pages (MemTotal - MemFree) of every device node, -1 if unreadable. */
static void used_snap(const struct pn_probe_env *env, int64_t *used)
{
	int n;

	pn_stat_refresh_quiet();
	pn_nodeset_for_each (n, &env->dev_nodes) {
		int64_t total, free;

		used[n] = -1;
		if (!pn_node_free_pages(n, &free) && !pn_node_total_pages(n, &total))
			used[n] = total - free;
	}
}

int pn_probe_run(const struct pn_probe *probe, const struct pn_probe_env *env,
		 const struct pn_probe_params *p, struct pn_probe_out *out)
{
	struct pn_probe_params q = *p;
	int64_t before[PN_PROBE_MAX_NODES], after[PN_PROBE_MAX_NODES];
	size_t i;
	int err, n;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < PN_PROBE_MAX_NODES; i++)
		out->pages[i] = out->used_delta[i] = -1;
	if (!q.count)
		q.count = probe->default_count ? probe->default_count : 1;
	if (!q.settle_ms)
		q.settle_ms = !strcmp(probe->name, "damon_migrate") ? 3000 : 500;
	used_snap(env, before);
	err = probe->run(env, &q, out);
	used_snap(env, after);
	pn_nodeset_for_each (n, &env->dev_nodes) {
		if (before[n] >= 0 && after[n] >= 0)
			out->used_delta[n] = after[n] - before[n];
	}
	return err;
}
