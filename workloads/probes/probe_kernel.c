// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_kernel.c - leak probes of kernel objects created with a node:
 * BPF maps with BPF_F_NUMA_NODE (vmalloc_node and alloc_pages_node paths,
 * and an LPM trie whose nodes are kmalloc_node()ed on update), and the
 * per-node structures of new memory and hugetlb cgroups (for_each_node +
 * kzalloc_node).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"
#include "probe_int.h"

#define PAGE_BYTES 4096UL

/* ---- BPF ---- */

static int bpf_map_create_flags(uint32_t type, uint32_t key, uint32_t value, uint32_t entries,
				int node, uint32_t flags)
{
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = key;
	attr.value_size = value;
	attr.max_entries = entries;
	attr.map_flags = BPF_F_NUMA_NODE | flags;
	attr.numa_node = (uint32_t)node;
	fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

static int bpf_map_create(uint32_t type, uint32_t key, uint32_t value, uint32_t entries, int node)
{
	return bpf_map_create_flags(type, key, value, entries, node, 0);
}

int pn_probe_bpf_supported(const struct pn_probe_env *env, char *why, size_t len)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1, env->home_node);

	if (fd < 0)
		return snprintf(why, len, "bpf(BPF_MAP_CREATE) with BPF_F_NUMA_NODE: %s",
				strerror(-fd)),
		       fd;
	close(fd);
	if (!pn_exists("/proc/vmallocinfo"))
		return snprintf(why, len, "no /proc/vmallocinfo"), -ENOTSUP;
	return 0;
}

/* BPF_MAP_TYPE_ARRAY: array_map_alloc() -> bpf_map_area_alloc() -> vmalloc on the node. */
int pn_probe_bpf_array(const struct pn_probe_env *env, const struct pn_probe_params *p,
		       struct pn_probe_out *out)
{
	int n;

	pn_nodeset_for_each (n, &env->dev_nodes) {
		struct pn_vmalloc_snap s;
		int fd, err = pn_vmalloc_snap(&s);

		if (err)
			return err;
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, PAGE_BYTES, p->count, n);
		if (fd < 0) {
			pn_probe_refused(out, fd);
		} else {
			out->triggered++;
			out->pages[n] = 0;
			pn_vmalloc_new_pages(&s, out->pages);
			pn_probe_hold_fd(out, fd);
		}
		pn_vmalloc_snap_free(&s);
	}
	out->source = "/proc/vmallocinfo N<node>= of areas created by the map";
	return 0;
}

/* Pages of a ring buffer map on each node: mmap it, move_pages(2) census. */
static int ringbuf_census(int fd, size_t data, int64_t *pages)
{
	void *cons = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	void *prod = mmap(NULL, PAGE_BYTES + 2 * data, PROT_READ, MAP_SHARED, fd, PAGE_BYTES);
	int err = 0;

	if (cons == MAP_FAILED || prod == MAP_FAILED)
		err = -errno;
	if (!err)
		err = pn_probe_census(cons, PAGE_BYTES, pages, NULL);
	if (!err) /* producer page and one copy of the (double-mapped) data */
		err = pn_probe_census(prod, PAGE_BYTES + data, pages, NULL);
	if (cons != MAP_FAILED)
		munmap(cons, PAGE_BYTES);
	if (prod != MAP_FAILED)
		munmap(prod, PAGE_BYTES + 2 * data);
	return err;
}

/* BPF_MAP_TYPE_RINGBUF: bpf_ringbuf_area_alloc() -> alloc_pages_node(numa_node). */
int pn_probe_bpf_ringbuf(const struct pn_probe_env *env, const struct pn_probe_params *p,
			 struct pn_probe_out *out)
{
	size_t data = PAGE_BYTES;
	int n;

	while (data < (size_t)p->count * PAGE_BYTES)
		data <<= 1;
	pn_nodeset_for_each (n, &env->dev_nodes) {
		int err, fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)data, n);

		if (fd < 0) {
			pn_probe_refused(out, fd);
			continue;
		}
		out->triggered++;
		out->pages[n] = 0;
		err = ringbuf_census(fd, data, out->pages);
		if (err)
			pn_probe_note(out, "node%d: ring buffer census: %s", n, strerror(-err));
		pn_probe_hold_fd(out, fd);
	}
	out->source = "move_pages(2) census of the mmap()ed ring buffer";
	return 0;
}

/* Per-node slab bytes of every device node (objects and pages), for the
 * kmalloc_node()-type probes. */
static int slab_begin(const struct pn_probe_env *env, struct pn_slab_snap *snap, int64_t *pages)
{
	int n;

	pn_stat_refresh_quiet();
	pn_nodeset_for_each (n, &env->dev_nodes) {
		if (pn_node_slab_bytes(n, &pages[n]))
			pages[n] = -1;
	}
	return pn_slab_snap(snap);
}

/* out->pages[n] += max(slab page growth, ceil(new object bytes / 4096)). */
static void slab_end(const struct pn_probe_env *env, struct pn_slab_snap *snap,
		     const int64_t *before, struct pn_probe_out *out)
{
	int64_t obj[PN_PROBE_MAX_NODES] = { 0 }, after;
	int n;

	pn_stat_refresh_quiet();
	pn_slab_new_bytes(snap, obj);
	pn_slab_snap_free(snap);
	pn_nodeset_for_each (n, &env->dev_nodes) {
		int64_t pg = 0;

		if (before[n] >= 0 && !pn_node_slab_bytes(n, &after) && after > before[n])
			pg = (after - before[n]) / 4096;
		if ((obj[n] + 4095) / 4096 > pg)
			pg = (obj[n] + 4095) / 4096;
		out->pages[n] = (out->pages[n] < 0 ? 0 : out->pages[n]) + pg;
		pn_probe_note(out, "node%d: +%lld slab object bytes", n, (long long)obj[n]);
	}
}

static int lpm_update(int fd, uint32_t ip, const void *value)
{
	struct {
		uint32_t prefixlen;
		uint8_t data[4];
	} key = { 32,
		  { (uint8_t)(ip >> 24), (uint8_t)(ip >> 16), (uint8_t)(ip >> 8), (uint8_t)ip } };
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = (uint64_t)(uintptr_t)&key;
	attr.value = (uint64_t)(uintptr_t)value;
	attr.flags = BPF_ANY;
	return syscall(SYS_bpf, BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)) ? -errno : 0;
}

/* BPF_MAP_TYPE_LPM_TRIE: trie_update_elem() -> lpm_trie_node_alloc() ->
 * bpf_map_kmalloc_node(numa_node), one node per inserted prefix. */
int pn_probe_bpf_lpm(const struct pn_probe_env *env, const struct pn_probe_params *p,
		     struct pn_probe_out *out)
{
	static const char value[2048];
	int n;

	pn_nodeset_for_each (n, &env->dev_nodes) {
		int64_t before[PN_PROBE_MAX_NODES] = { 0 };
		struct pn_slab_snap snap;
		int fd, err = 0;
		unsigned int i;

		fd = bpf_map_create_flags(BPF_MAP_TYPE_LPM_TRIE, 8, sizeof(value), p->count, n,
					  BPF_F_NO_PREALLOC);
		if (fd < 0) {
			pn_probe_refused(out, fd);
			continue;
		}
		pn_probe_hold_fd(out, fd);
		if ((err = slab_begin(env, &snap, before)))
			return err;
		for (i = 0; i < p->count && !err; i++)
			err = lpm_update(fd, 0x0a000000U + i * 256U, value);
		if (err)
			pn_probe_refused(out, err);
		else
			out->triggered++;
		slab_end(env, &snap, before, out);
	}
	out->source = "slab growth on the node: max(nr_slab_* pages, new object bytes / 4096)";
	return 0;
}

/* ---- cgroups ---- */

int pn_probe_cgroup_supported(const char *ctrl, char *why, size_t len)
{
	char buf[512];

	if (pn_read_text("/sys/fs/cgroup/cgroup.controllers", buf, sizeof(buf)) < 0)
		return snprintf(why, len, "cgroup v2 not mounted at /sys/fs/cgroup"), -ENOENT;
	if (!strstr(buf, ctrl))
		return snprintf(why, len, "cgroup v2 has no %s controller", ctrl), -ENOTSUP;
	return 0;
}

int pn_probe_memcg_supported(const struct pn_probe_env *env, char *why, size_t len)
{
	(void)env;
	return pn_probe_cgroup_supported("memory", why, len);
}

int pn_probe_hugetlb_cg_supported(const struct pn_probe_env *env, char *why, size_t len)
{
	(void)env;
	return pn_probe_cgroup_supported("hugetlb", why, len);
}

/* mkdir count child cgroups of a parent that enables ctrl for them; the
 * slab and vmalloc pages that appear on each device node meanwhile. */
static int cgroup_probe(const char *ctrl, const struct pn_probe_env *env,
			const struct pn_probe_params *p, struct pn_probe_out *out)
{
	int64_t before[PN_PROBE_MAX_NODES] = { 0 };
	char cg[256], rel[320], full[4096], plus[32];
	struct pn_vmalloc_snap s;
	struct pn_slab_snap snap;
	unsigned int i, made = 0;
	int err;

	err = pn_probe_cgroup_make(ctrl, ctrl, cg, sizeof(cg));
	if (err)
		return err;
	pn_probe_hold_rmdir(out, cg);
	snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", cg);
	snprintf(plus, sizeof(plus), "+%s", ctrl);
	err = pn_write_text(rel, plus);
	if (err)
		return err;
	err = slab_begin(env, &snap, before);
	if (!err)
		err = pn_vmalloc_snap(&s);
	if (err)
		return err;
	for (i = 0; i < p->count; i++) {
		snprintf(rel, sizeof(rel), "%s/c%u", cg, i);
		if (pn_path(full, sizeof(full), rel) || mkdir(full, 0755)) {
			pn_probe_refused(out, -errno);
			break;
		}
		pn_probe_hold_rmdir(out, rel);
		made++;
	}
	out->triggered = made;
	slab_end(env, &snap, before, out);
	pn_vmalloc_new_pages(&s, out->pages);
	pn_vmalloc_snap_free(&s);
	pn_probe_note(out, "%u %s cgroups created", made, ctrl);
	return 0;
}

/* mem_cgroup_alloc(): for_each_node -> alloc_mem_cgroup_per_node_info() -> kzalloc_node. */
int pn_probe_memcg(const struct pn_probe_env *env, const struct pn_probe_params *p,
		   struct pn_probe_out *out)
{
	out->source = "slab growth on the node (max of pages, object bytes / 4096) + vmallocinfo "
		      "N<node>=";
	return cgroup_probe("memory", env, p, out);
}

/* hugetlb_cgroup_css_alloc(): for_each_node -> kzalloc_node(N_NORMAL_MEMORY node). */
int pn_probe_hugetlb_cg(const struct pn_probe_env *env, const struct pn_probe_params *p,
			struct pn_probe_out *out)
{
	out->source = "slab growth on the node (max of pages, object bytes / 4096) + vmallocinfo "
		      "N<node>=";
	return cgroup_probe("hugetlb", env, p, out);
}
