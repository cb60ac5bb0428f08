// SPDX-License-Identifier: GPL-2.0-only
/*
 * procfs_node.c - one node's memory from its sysfs files (meminfo,
 * numastat, vmstat, hugepages), the nodes with memory, MemAvailable, and
 * the stat_refresh that makes counters exact.  See procfs.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "procfs_int.h"

struct nodemem_ctx {
	struct pn_nodemem *m;
	int64_t huge_total; /* HugePages_Total (count, default size) */
	unsigned seen;	    /* bits: MemTotal, MemFree, MemUsed */
};

static int nodemem_meminfo_cb(void *arg, const char *key, int64_t val)
{
	struct nodemem_ctx *c = arg;
	struct pn_nodemem *m = c->m;
	static const struct {
		const char *key;
		size_t off;
	} map[] = {
		{ "MemTotal", offsetof(struct pn_nodemem, total) },
		{ "MemFree", offsetof(struct pn_nodemem, free) },
		{ "MemUsed", offsetof(struct pn_nodemem, used) },
		{ "AnonPages", offsetof(struct pn_nodemem, anon) },
		{ "FilePages", offsetof(struct pn_nodemem, file) },
		{ "Shmem", offsetof(struct pn_nodemem, shmem) },
		{ "Slab", offsetof(struct pn_nodemem, slab) },
		{ "SReclaimable", offsetof(struct pn_nodemem, slab_reclaimable) },
		{ "SUnreclaim", offsetof(struct pn_nodemem, slab_unreclaimable) },
		{ "KernelStack", offsetof(struct pn_nodemem, kernel_stack) },
		{ "PageTables", offsetof(struct pn_nodemem, page_tables) },
		{ "SecPageTables", offsetof(struct pn_nodemem, sec_page_tables) },
	};

	if (!strcmp(key, "HugePages_Total")) {
		c->huge_total = val;
		return 0;
	}
	for (size_t i = 0; i < PN_ARRAY_SIZE(map); i++) {
		if (strcmp(key, map[i].key) != 0)
			continue;
		*(int64_t *)((char *)m + map[i].off) = val;
		if (i < 3)
			c->seen |= 1u << i;
		break;
	}
	return 0;
}

static int nodemem_numastat_cb(void *arg, const char *key, int64_t val)
{
	struct pn_nodemem *m = arg;

	if (!strcmp(key, "numa_hit"))
		m->numa_hit = val;
	else if (!strcmp(key, "numa_miss"))
		m->numa_miss = val;
	else if (!strcmp(key, "numa_foreign"))
		m->numa_foreign = val;
	else if (!strcmp(key, "interleave_hit"))
		m->interleave_hit = val;
	else if (!strcmp(key, "local_node"))
		m->local_node = val;
	else if (!strcmp(key, "other_node"))
		m->other_node = val;
	return 0;
}

static int nodemem_vmstat_cb(void *arg, const char *key, int64_t val)
{
	struct pn_nodemem *m = arg;
	int64_t page = sysconf(_SC_PAGESIZE);

	/* nr_kernel_stack is in kB here: meminfo's KernelStack is used instead. */
	if (!strcmp(key, "nr_zspages")) {
		if (__builtin_mul_overflow(val, page, &m->zspages))
			return -EINVAL;
	} else if (!strcmp(key, "nr_iommu_pages")) {
		if (__builtin_mul_overflow(val, page, &m->iommu))
			return -EINVAL;
	} else if (!strcmp(key, "numa_private_fallback")) {
		m->numa_private_fallback = val;
	}
	return 0;
}

/* Read a whole node file into a heap buffer (sysfs files are one page). */
static int read_node_file(int node, const char *name, char **out)
{
	char rel[128];
	size_t cap = 16384;
	char *buf;
	ssize_t n;

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/%s", node, name);
	buf = pn_xmalloc(cap);
	n = pn_read_whole(rel, buf, cap);
	if (n < 0) {
		free(buf);
		return pn_error((int)n, "%s%s: %s", pn_sysroot(), rel, strerror((int)-n));
	}
	*out = buf;
	return 0;
}

/* HugePages_Total x /proc/meminfo Hugepagesize, bytes. */
static int meminfo_hugepagesize(int64_t huge_total, int64_t *bytes)
{
	char buf[16384];
	ssize_t n = pn_read_whole("/proc/meminfo", buf, sizeof(buf));
	const char *p;
	int64_t kb;

	if (n < 0)
		return (int)n;
	p = strstr(buf, "Hugepagesize:");
	if (!p || !pn_procfs_parse_num(skip_blanks(p + 13), &kb) || kb <= 0)
		return -ENOENT;
	if (kb > INT64_MAX / 1024 || __builtin_mul_overflow(kb * 1024, huge_total, bytes))
		return -EINVAL;
	return 0;
}

/*
 * Bytes held by hugetlb pools on the node, all page sizes: the sum of
 * nodeN/hugepages/hugepages-<size>kB/nr_hugepages.  Without that directory
 * (kernel without HUGETLBFS, or a tree that lacks it) fall back to meminfo's
 * HugePages_Total, which counts the default size only, times /proc/meminfo's
 * Hugepagesize.  Returns -ENOENT when neither is available.
 */
int pn_node_hugetlb_bytes(int node, int64_t huge_total, int64_t *bytes)
{
	char rel[128], path[4096];
	struct dirent *de;
	int64_t sum = 0;
	DIR *d;

	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/hugepages", node);
	if (pn_path(path, sizeof(path), rel) == 0 && (d = opendir(path))) {
		while ((de = readdir(d))) {
			unsigned long long kb;
			char f[512];
			uint64_t nr;
			int64_t b;

			if (sscanf(de->d_name, "hugepages-%llukB", &kb) != 1)
				continue;
			if (snprintf(f, sizeof(f), "%s/%s/nr_hugepages", rel, de->d_name) >=
			    (int)sizeof(f))
				continue;
			if (pn_read_u64(f, &nr, false))
				continue;
			if (kb > INT64_MAX / 1024 || nr > INT64_MAX ||
			    __builtin_mul_overflow((int64_t)kb * 1024, (int64_t)nr, &b) ||
			    __builtin_add_overflow(sum, b, &sum)) {
				closedir(d);
				return pn_error(-EINVAL, "%s: hugetlb size overflows", path);
			}
		}
		closedir(d);
		*bytes = sum;
		return 0;
	}
	if (huge_total == 0) {
		*bytes = 0;
		return 0;
	}
	return meminfo_hugepagesize(huge_total, bytes);
}

int pn_nodemem_read(int node, struct pn_nodemem *m)
{
	struct nodemem_ctx c = { .m = m };
	char *buf = NULL;
	int64_t sum = 0;
	int ret;

	if (node < 0 || node >= PN_MAX_NODES)
		return pn_error(-EINVAL, "node %d: out of range", node);
	memset(m, 0, sizeof(*m));
	m->node = node;
	m->numa_private_fallback = -1;

	ret = read_node_file(node, "meminfo", &buf);
	if (ret)
		return ret;
	ret = pn_parse_node_meminfo(buf, node, nodemem_meminfo_cb, &c);
	free(buf);
	buf = NULL;
	if (ret)
		return pn_error(ret, "node%d/meminfo: malformed", node);
	if (c.seen != 7)
		return pn_error(-EINVAL, "node%d/meminfo: MemTotal, MemFree or MemUsed missing",
				node);

	ret = read_node_file(node, "numastat", &buf);
	if (ret)
		return ret;
	ret = pn_parse_kv(buf, nodemem_numastat_cb, m);
	free(buf);
	buf = NULL;
	if (ret)
		return pn_error(ret, "node%d/numastat: malformed", node);

	ret = read_node_file(node, "vmstat", &buf);
	if (ret)
		return ret;
	ret = pn_parse_kv(buf, nodemem_vmstat_cb, m);
	free(buf);
	if (ret)
		return pn_error(ret, "node%d/vmstat: malformed", node);

	ret = pn_node_hugetlb_bytes(node, c.huge_total, &m->hugetlb);
	if (ret)
		return pn_error(ret, "node%d: hugetlb pool size unknown", node);

	/*
	 * other: node memory in use that no per-node counter attributes to a
	 * kind.  FilePages includes Shmem and the swap cache, so shmem is not
	 * subtracted again.  What ends up here: vmalloc (other than stacks),
	 * percpu, socket buffers, raw driver alloc_pages, BPF, memmap /
	 * page_ext of the node's own memory (memmap_on_memory), per-CPU free
	 * lists (pcp pages are not in MemFree), and counter drift of up to
	 * stat_threshold x CPUs pages per item.  It can be negative for the same
	 * drift reasons.  Take a baseline when the node comes online and look
	 * at deltas.
	 */
	if (__builtin_add_overflow(sum, m->anon, &sum) ||
	    __builtin_add_overflow(sum, m->file, &sum) ||
	    __builtin_add_overflow(sum, m->slab, &sum) ||
	    __builtin_add_overflow(sum, m->kernel_stack, &sum) ||
	    __builtin_add_overflow(sum, m->page_tables, &sum) ||
	    __builtin_add_overflow(sum, m->sec_page_tables, &sum) ||
	    __builtin_add_overflow(sum, m->hugetlb, &sum) ||
	    __builtin_add_overflow(sum, m->zspages, &sum) ||
	    __builtin_add_overflow(sum, m->iommu, &sum) ||
	    __builtin_sub_overflow(m->used, sum, &m->other))
		return pn_error(-EINVAL, "node%d: counters overflow", node);
	return 0;
}

int pn_stat_refresh(void)
{
	/* Writing any value runs refresh_vm_stats on every CPU (root only). */
	return pn_write_text("/proc/sys/vm/stat_refresh", "1\n");
}

#define NODE_DIR "/sys/devices/system/node"

static int read_nodeset(const char *rel, struct pn_nodeset *s)
{
	char buf[4096];
	ssize_t n = pn_read_whole(rel, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (pn_nodeset_parse(s, buf))
		return pn_error(-EINVAL, "%s%s: not a node list: %.40s", pn_sysroot(), rel, buf);
	return 0;
}

int pn_nodes_with_memory(struct pn_nodeset *out)
{
	struct pn_nodeset online, mem, priv;
	int ret;

	pn_nodeset_zero(out);
	ret = read_nodeset(NODE_DIR "/online", &online);
	if (ret == -ENOENT)
		return pn_error(ret, "no %s" NODE_DIR "/online: kernel without NUMA?",
				pn_sysroot());
	if (ret)
		return ret == -EINVAL ? ret
				      : pn_error(ret, "%s" NODE_DIR "/online: %s", pn_sysroot(),
						 strerror(-ret));
	ret = read_nodeset(NODE_DIR "/has_memory", &mem);
	if (ret == -ENOENT)
		mem = online;
	else if (ret)
		return ret;
	ret = read_nodeset(NODE_DIR "/has_private_memory", &priv);
	if (ret == 0)
		pn_nodeset_or(&mem, &mem, &priv);
	else if (ret != -ENOENT)
		return ret;
	pn_nodeset_and(out, &online, &mem);
	if (pn_nodeset_empty(out))
		return pn_error(-ENOENT, "%s" NODE_DIR ": no online node with memory",
				pn_sysroot());
	return 0;
}

struct avail_ctx {
	int64_t bytes, private_free;
	bool found;
};

static int avail_cb(void *arg, const char *key, int64_t val)
{
	struct avail_ctx *a = arg;

	if (!strcmp(key, "MemAvailable")) {
		a->bytes = val;
		a->found = true;
	} else if (!strcmp(key, "PrivateFree")) {
		a->private_free = val;
	}
	return 0;
}

int pn_mem_available(uint64_t *bytes)
{
	struct avail_ctx a = { 0 };
	char buf[16384];
	ssize_t n = pn_read_whole("/proc/meminfo", buf, sizeof(buf));
	int ret;

	if (n < 0)
		return pn_error((int)n, "%s/proc/meminfo: %s", pn_sysroot(), strerror((int)-n));
	ret = pn_parse_meminfo(buf, avail_cb, &a);
	if (ret < 0)
		return pn_error(ret, "/proc/meminfo: malformed");
	if (!a.found || a.bytes < 0)
		return pn_error(-EINVAL, "/proc/meminfo: no MemAvailable");
	/* kernels that report PrivateFree leave it out of MemAvailable */
	*bytes = (uint64_t)a.bytes + (uint64_t)(a.private_free > 0 ? a.private_free : 0);
	return 0;
}
