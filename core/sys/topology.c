// SPDX-License-Identifier: GPL-2.0-only
/*
 * topology.c - NUMA topology from sysfs (node states, cpulists, MemTotal,
 * tiers, HMAT, distances), enriched by hwloc (topology_hwloc.c: subtypes,
 * DAX devices, distances, the XML export); topology_print.c writes it out.
 *
 * sysfs is the authority on which nodes exist: on a private-node kernel hwloc
 * may not report a node that has only private memory, and a node hwloc does
 * not show must still be listed.  Every path goes through the sysroot; hwloc
 * is pointed at the same root with HWLOC_FSROOT so captured trees replay.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "procfs.h"
#include "topology.h"
#include "topology_int.h"

/* ---- small sysfs readers ---- */

static int read_nodeset(const char *rel, struct pn_nodeset *s)
{
	char buf[4096];
	ssize_t n = pn_read_text(rel, buf, sizeof(buf));

	pn_nodeset_zero(s);
	if (n < 0)
		return (int)n;
	return pn_nodeset_parse(s, buf);
}

/* Number of CPUs in a kernel cpu list ("0-3,8,10-11"); -EINVAL on junk.
 * CPU ids may exceed PN_MAX_NODES, so this does not use a nodeset. */
static int count_cpulist(const char *s)
{
	int count = 0;

	while (*s && isspace((unsigned char)*s))
		s++;
	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b;

		if (end == s)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		if (b - a >= 1UL << 20)
			return -EINVAL;
		count += (int)(b - a + 1);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return count;
}

struct memtotal_arg {
	uint64_t bytes;
	bool found;
};

static int memtotal_cb(void *arg, const char *key, int64_t val)
{
	struct memtotal_arg *a = arg;

	if (!strcmp(key, "MemTotal") && val >= 0) {
		a->bytes = (uint64_t)val;
		a->found = true;
	}
	return 0;
}

/* nodeN/meminfo MemTotal in bytes. */
static int read_mem_total(int node, uint64_t *bytes)
{
	char rel[128], *buf;
	struct memtotal_arg a = { 0, false };
	ssize_t n;
	int ret;

	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/meminfo", node);
	buf = pn_xmalloc(16384);
	n = pn_read_text(rel, buf, 16384);
	if (n < 0) {
		ret = (int)n;
		goto out;
	}
	ret = pn_parse_node_meminfo(buf, node, memtotal_cb, &a);
	if (!ret && !a.found)
		ret = -ENODATA;
	if (!ret)
		*bytes = a.bytes;
out:
	free(buf);
	return ret;
}

static void read_hmat(struct pn_node_info *ni)
{
	static const char *const files[] = {
		"read_latency",
		"write_latency",
		"read_bandwidth",
		"write_bandwidth",
	};

	for (int c = 0; c < 2; c++) {
		uint64_t v[4] = { 0 };
		bool any = false;

		for (size_t f = 0; f < PN_ARRAY_SIZE(files); f++) {
			char rel[160];

			snprintf(rel, sizeof(rel), NODE_DIR "/node%d/access%d/initiators/%s",
				 ni->id, c, files[f]);
			if (pn_read_u64(rel, &v[f], false) == 0)
				any = true;
			else
				v[f] = 0;
		}
		if (!any)
			continue;
		ni->hmat[c].read_latency_ns = v[0];
		ni->hmat[c].write_latency_ns = v[1];
		ni->hmat[c].read_bandwidth_mbps = v[2];
		ni->hmat[c].write_bandwidth_mbps = v[3];
		ni->has_hmat = true;
	}
}

/* memory_tierN/nodelist -> node_info.memory_tier = N. */
static void read_tiers(struct pn_topology *t)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	if (pn_path(path, sizeof(path), "/sys/devices/virtual/memory_tiering"))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char rel[384];
		struct pn_nodeset s;
		char *end;
		long tier;
		int n;

		if (strncmp(de->d_name, "memory_tier", 11) != 0 ||
		    !isdigit((unsigned char)de->d_name[11]))
			continue;
		tier = strtol(de->d_name + 11, &end, 10);
		if (*end || tier < 0 || tier > 1000000)
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/virtual/memory_tiering/%s/nodelist",
			 de->d_name);
		if (read_nodeset(rel, &s))
			continue;
		for (int i = 0; i < t->nnodes; i++) {
			n = t->nodes[i].id;
			if (pn_nodeset_test(&s, n))
				t->nodes[i].memory_tier = (int)tier;
		}
	}
	closedir(d);
}

/* nodeN/distance lists the distance to every online node, in id order. */
static void read_sysfs_distances(struct pn_topology *t)
{
	for (int i = 0; i < t->nnodes; i++) {
		char rel[128], buf[8192], *p = buf;
		int col = -1, j = 0;

		snprintf(rel, sizeof(rel), NODE_DIR "/node%d/distance", t->nodes[i].id);
		if (pn_read_text(rel, buf, sizeof(buf)) < 0)
			continue;
		for (;;) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			p = end;
			col = pn_nodeset_next(&t->online, col);
			if (col < 0) {
				pn_warn("topology: %s has more entries than online nodes; ignored",
					rel);
				break;
			}
			j = pn_topology_index(t, col);
			if (j >= 0 && t->distance[i * t->nnodes + j] < 0)
				t->distance[i * t->nnodes + j] = (int)v;
		}
	}
}

/* ---- load ---- */

static int read_states(struct pn_topology *t)
{
	int ret;

	ret = read_nodeset(NODE_DIR "/online", &t->online);
	if (ret == -ENOENT) {
		/* Old or odd trees: the node directories are the online nodes. */
		ret = pn_nodeset_read_dir(NODE_DIR, &t->online);
		if (!ret && pn_nodeset_empty(&t->online))
			ret = -ENOENT;
	}
	if (ret == -ENOENT && !pn_exists(NODE_DIR))
		return pn_error(ret,
				"topology: %s%s is missing: a kernel without NUMA "
				"(CONFIG_NUMA=n), or /sys is not mounted",
				pn_sysroot(), NODE_DIR);
	if (ret)
		return pn_error(ret, "topology: cannot read %s%s/online: %s", pn_sysroot(),
				NODE_DIR, strerror(-ret));
	if (read_nodeset(NODE_DIR "/possible", &t->possible))
		t->possible = t->online;
	/* Missing masks are derived per node below (cpulist, MemTotal). */
	read_nodeset(NODE_DIR "/has_cpu", &t->with_cpu);
	read_nodeset(NODE_DIR "/has_memory", &t->with_memory);
	read_nodeset(NODE_DIR "/has_normal_memory", &t->with_normal_memory);
	t->kernel_has_private = pn_exists(NODE_DIR "/has_private_memory");
	if (t->kernel_has_private &&
	    (ret = read_nodeset(NODE_DIR "/has_private_memory", &t->with_private_memory)))
		return pn_error(ret, "topology: %s%s/has_private_memory: %s", pn_sysroot(),
				NODE_DIR, strerror(-ret));
	return 0;
}

static void read_node(struct pn_topology *t, struct pn_node_info *ni, bool derive_cpu,
		      bool derive_mem)
{
	char rel[128], buf[4096];
	int ret;

	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/cpulist", ni->id);
	if (pn_read_text(rel, buf, sizeof(buf)) >= 0) {
		pn_topology_copy_line(ni->cpulist, sizeof(ni->cpulist), buf);
		ret = count_cpulist(buf);
		if (ret < 0)
			pn_warn("topology: %s%s: not a cpu list", pn_sysroot(), rel);
		else
			ni->ncpus = ret;
	}
	/* A malformed meminfo is reported and leaves MemTotal at 0 (unknown):
	 * the rest of the topology is still worth having. */
	ret = read_mem_total(ni->id, &ni->mem_total_bytes);
	if (ret)
		pn_warn("topology: %s%s/node%d/meminfo: %s", pn_sysroot(), NODE_DIR, ni->id,
			ret == -EINVAL	  ? "malformed (not \"Node N Key: value\" lines of this "
					    "node); MemTotal unknown"
			: ret == -ENODATA ? "no MemTotal line"
					  : strerror(-ret));
	if (derive_cpu && ni->ncpus > 0)
		pn_nodeset_set(&t->with_cpu, ni->id);
	if (derive_mem && ni->mem_total_bytes > 0)
		pn_nodeset_set(&t->with_memory, ni->id);
	ni->has_cpu = pn_nodeset_test(&t->with_cpu, ni->id);
	ni->has_memory = pn_nodeset_test(&t->with_memory, ni->id);
	ni->has_normal_memory = pn_nodeset_test(&t->with_normal_memory, ni->id);
	ni->has_private_memory = pn_nodeset_test(&t->with_private_memory, ni->id);
	ni->memory_tier = -1;
	read_hmat(ni);
}

static int count_online_cpus(void)
{
	char buf[4096];

	if (pn_read_text("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0)
		return -ENOENT;
	return count_cpulist(buf);
}

int pn_topology_load(struct pn_topology *t)
{
	struct pn_nodeset all;
	hwloc_topology_t h;
	bool derive_cpu, derive_mem;
	int ret, n, i;

	memset(t, 0, sizeof(*t));
	ret = read_states(t);
	if (ret)
		return ret;
	derive_cpu = !pn_exists(NODE_DIR "/has_cpu");
	derive_mem = !pn_exists(NODE_DIR "/has_memory");
	if (derive_cpu)
		pn_warn("topology: %s%s/has_cpu is missing; derived from the nodes' cpulist",
			pn_sysroot(), NODE_DIR);
	if (derive_mem)
		pn_warn("topology: %s%s/has_memory is missing; derived from the nodes' MemTotal",
			pn_sysroot(), NODE_DIR);

	h = pn_topology_hwloc_load();
	pn_topology_hwloc_version(t->hwloc_version, sizeof(t->hwloc_version), h);

	/* Nodes: every online node, plus any node only hwloc knows. */
	all = t->online;
	if (h) {
		hwloc_obj_t o = NULL;

		while ((o = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, o)))
			if (o->os_index < PN_MAX_NODES &&
			    !pn_nodeset_test(&all, (int)o->os_index)) {
				pn_warn("topology: hwloc reports node %u that sysfs does not list "
					"online",
					o->os_index);
				pn_nodeset_set(&all, (int)o->os_index);
			}
	}
	t->nnodes = pn_nodeset_count(&all);
	t->nodes = pn_xcalloc((size_t)t->nnodes, sizeof(*t->nodes));
	t->distance = pn_xmalloc((size_t)t->nnodes * (size_t)t->nnodes * sizeof(int));
	for (i = 0; i < t->nnodes * t->nnodes; i++)
		t->distance[i] = -1;
	i = 0;
	pn_nodeset_for_each (n, &all) {
		t->nodes[i].id = n;
		read_node(t, &t->nodes[i], derive_cpu, derive_mem);
		i++;
	}
	read_tiers(t);

	if (h) {
		char *xml = NULL;
		int len = 0;

		for (i = 0; i < t->nnodes; i++)
			pn_topology_hwloc_enrich(&t->nodes[i], h);
		pn_topology_hwloc_distances(t, h);
		if (hwloc_topology_export_xmlbuffer(h, &xml, &len, 0) == 0 && xml) {
			t->hwloc_xml = pn_strdup(xml);
			hwloc_free_xmlbuffer(h, xml);
		} else {
			pn_warn("topology: hwloc XML export failed: %s", strerror(errno));
		}
	}
	read_sysfs_distances(t);

	ret = count_online_cpus();
	if (ret > 0) {
		t->ncpus = ret;
	} else if (h) {
		t->ncpus = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	} else {
		for (i = 0; i < t->nnodes; i++)
			t->ncpus += t->nodes[i].ncpus;
	}
	if (h)
		hwloc_topology_destroy(h);
	return 0;
}

void pn_topology_free(struct pn_topology *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->distance);
	free(t->hwloc_xml);
	memset(t, 0, sizeof(*t));
}

const struct pn_node_info *pn_topology_node(const struct pn_topology *t, int id)
{
	int i = pn_topology_index(t, id);

	return i < 0 ? NULL : &t->nodes[i];
}

int pn_topology_distance(const struct pn_topology *t, int from, int to)
{
	int i = pn_topology_index(t, from), j = pn_topology_index(t, to);

	if (i < 0 || j < 0)
		return -1;
	return t->distance[i * t->nnodes + j];
}
