// SPDX-License-Identifier: GPL-2.0-only
/*
 * topology.c - NUMA topology from sysfs (node states, cpulists, MemTotal,
 * tiers, HMAT) enriched by hwloc (subtypes, DAX devices, distances, the XML
 * export).
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

#include <cjson/cJSON.h>
#include <hwloc.h>

#include "procfs.h"
#include "topology.h"

#define NODE_DIR "/sys/devices/system/node"

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

/* Copy the first line of src into dst (at most dstlen - 1 bytes). */
static void copy_line(char *dst, size_t dstlen, const char *src)
{
	size_t n = strcspn(src, "\n");

	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
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

static int node_index(const struct pn_topology *t, int id)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return i;
	return -1;
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
			j = node_index(t, col);
			if (j >= 0 && t->distance[i * t->nnodes + j] < 0)
				t->distance[i * t->nnodes + j] = (int)v;
		}
	}
}

/* ---- hwloc ---- */

struct env_save {
	const char *name;
	char *old;
	bool had;
};

static void env_set(struct env_save *e, const char *name, const char *val)
{
	const char *o = getenv(name);

	e->name = name;
	e->had = o != NULL;
	e->old = o ? pn_strdup(o) : NULL;
	if (val)
		setenv(name, val, 1);
	else
		unsetenv(name);
}

static void env_restore(struct env_save *e)
{
	if (!e->name)
		return;
	if (e->had)
		setenv(e->name, e->old, 1);
	else
		unsetenv(e->name);
	free(e->old);
	e->old = NULL;
	e->name = NULL;
}

/*
 * The library version ("2.9.0") is only known at run time as the root
 * object's hwlocVersion info; the API version (2.8.0 for 2.9.x) is the
 * fallback when hwloc could not load.
 */
static void format_hwloc_version(char *buf, size_t len, hwloc_topology_t h)
{
	unsigned v = hwloc_get_api_version();
	const char *lib =
		h ? hwloc_obj_get_info_by_name(hwloc_get_root_obj(h), "hwlocVersion") : NULL;

	if (lib)
		snprintf(buf, len, "%s", lib);
	else
		snprintf(buf, len, "api %u.%u.%u", (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
}

/*
 * Load hwloc on the sysroot.  Replaying a captured tree needs the Linux
 * backend only (the x86 backend would read this machine's CPUID) and must
 * not claim to be this system (binding calls must not reach the kernel).
 * The variables are restored afterwards.  NULL if hwloc cannot load it.
 */
static hwloc_topology_t load_hwloc(void)
{
	const char *root = pn_sysroot();
	struct env_save e[3] = { { 0 } };
	hwloc_topology_t h = NULL;

	if (*root) {
		env_set(&e[0], "HWLOC_FSROOT", root);
		env_set(&e[1], "HWLOC_COMPONENTS", "linux,stop");
		env_set(&e[2], "HWLOC_THISSYSTEM", "0");
	} else {
		/* An inherited HWLOC_FSROOT would make hwloc disagree with sysfs. */
		env_set(&e[0], "HWLOC_FSROOT", NULL);
	}
	if (hwloc_topology_init(&h) < 0) {
		pn_warn("topology: hwloc_topology_init: %s", strerror(errno));
		h = NULL;
		goto out;
	}
	if (hwloc_topology_set_flags(h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) < 0 ||
	    hwloc_topology_load(h) < 0) {
		pn_warn("topology: hwloc could not load %s: %s; using sysfs only",
			*root ? root : "the live system", strerror(errno));
		hwloc_topology_destroy(h);
		h = NULL;
	}
out:
	for (int i = 0; i < 3; i++)
		env_restore(&e[i]);
	return h;
}

static hwloc_obj_t hwloc_node(hwloc_topology_t h, int id)
{
	hwloc_obj_t o = NULL;

	while ((o = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, o)))
		if ((int)o->os_index == id)
			return o;
	return NULL;
}

static void hwloc_distances(struct pn_topology *t, hwloc_topology_t h)
{
	struct hwloc_distances_s *d[4];
	unsigned nr = PN_ARRAY_SIZE(d);

	if (hwloc_distances_get_by_type(
		    h, HWLOC_OBJ_NUMANODE, &nr, d,
		    HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) < 0 ||
	    nr == 0)
		return;
	if (nr > PN_ARRAY_SIZE(d))
		nr = PN_ARRAY_SIZE(d);
	/* The first matrix is the OS (SLIT) one; the others, if any, are ignored. */
	for (unsigned a = 0; a < d[0]->nbobjs; a++) {
		int i = node_index(t, (int)d[0]->objs[a]->os_index);

		if (i < 0)
			continue;
		for (unsigned b = 0; b < d[0]->nbobjs; b++) {
			int j = node_index(t, (int)d[0]->objs[b]->os_index);

			if (j >= 0)
				t->distance[i * t->nnodes + j] =
					(int)d[0]->values[a * d[0]->nbobjs + b];
		}
	}
	for (unsigned k = 0; k < nr; k++)
		hwloc_distances_release(h, d[k]);
}

/* Best value over all initiators of attribute id for node o; 0 if none. */
static uint64_t hwloc_best_attr(hwloc_topology_t h, hwloc_obj_t o, hwloc_memattr_id_t id,
				bool lower_better)
{
	struct hwloc_location loc[16];
	hwloc_uint64_t val[16], best = 0;
	unsigned nr = PN_ARRAY_SIZE(loc);

	if (hwloc_memattr_get_initiators(h, id, o, 0, &nr, loc, val) < 0)
		return 0;
	if (nr > PN_ARRAY_SIZE(loc))
		nr = PN_ARRAY_SIZE(loc);
	for (unsigned i = 0; i < nr; i++)
		if (!best || (lower_better ? val[i] < best : val[i] > best))
			best = val[i];
	return best;
}

static void hwloc_enrich_node(struct pn_node_info *ni, hwloc_topology_t h)
{
	hwloc_obj_t o = hwloc_node(h, ni->id);
	const char *dax;

	if (!o)
		return;
	if (o->subtype)
		copy_line(ni->subtype, sizeof(ni->subtype), o->subtype);
	dax = hwloc_obj_get_info_by_name(o, "DAXDevice");
	if (dax)
		copy_line(ni->dax_device, sizeof(ni->dax_device), dax);
	if (!ni->mem_total_bytes && o->attr)
		ni->mem_total_bytes = o->attr->numanode.local_memory;
	/*
	 * sysfs access0/access1 are exact; hwloc's memattrs (which it reads
	 * from the same files on Linux, but also from XML or other OSes) fill
	 * the CPU-initiator class only when sysfs had nothing at all (else
	 * hwloc would echo access0 as access1).
	 */
	if (!ni->has_hmat) {
		struct pn_hmat *m = &ni->hmat[1];

		m->read_latency_ns = hwloc_best_attr(h, o, HWLOC_MEMATTR_ID_READ_LATENCY, true);
		m->write_latency_ns = hwloc_best_attr(h, o, HWLOC_MEMATTR_ID_WRITE_LATENCY, true);
		m->read_bandwidth_mbps =
			hwloc_best_attr(h, o, HWLOC_MEMATTR_ID_READ_BANDWIDTH, false);
		m->write_bandwidth_mbps =
			hwloc_best_attr(h, o, HWLOC_MEMATTR_ID_WRITE_BANDWIDTH, false);
		if (!m->read_latency_ns && !m->write_latency_ns) {
			uint64_t l = hwloc_best_attr(h, o, HWLOC_MEMATTR_ID_LATENCY, true);

			m->read_latency_ns = m->write_latency_ns = l;
		}
		if (!m->read_bandwidth_mbps && !m->write_bandwidth_mbps) {
			uint64_t b = hwloc_best_attr(h, o, HWLOC_MEMATTR_ID_BANDWIDTH, false);

			m->read_bandwidth_mbps = m->write_bandwidth_mbps = b;
		}
		if (m->read_latency_ns || m->write_latency_ns || m->read_bandwidth_mbps ||
		    m->write_bandwidth_mbps)
			ni->has_hmat = true;
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
		copy_line(ni->cpulist, sizeof(ni->cpulist), buf);
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

	h = load_hwloc();
	format_hwloc_version(t->hwloc_version, sizeof(t->hwloc_version), h);

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
			hwloc_enrich_node(&t->nodes[i], h);
		hwloc_distances(t, h);
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
	int i = node_index(t, id);

	return i < 0 ? NULL : &t->nodes[i];
}

int pn_topology_distance(const struct pn_topology *t, int from, int to)
{
	int i = node_index(t, from), j = node_index(t, to);

	if (i < 0 || j < 0)
		return -1;
	return t->distance[i * t->nnodes + j];
}

/* ---- output ---- */

static void add_nodeset(cJSON *o, const char *name, const struct pn_nodeset *s)
{
	char buf[4096];

	if (pn_nodeset_format(s, buf, sizeof(buf)))
		buf[0] = '\0';
	cJSON_AddStringToObject(o, name, buf);
}

static cJSON *hmat_json(const struct pn_hmat *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "read_latency_ns", (double)m->read_latency_ns);
	cJSON_AddNumberToObject(o, "write_latency_ns", (double)m->write_latency_ns);
	cJSON_AddNumberToObject(o, "read_bandwidth_mbps", (double)m->read_bandwidth_mbps);
	cJSON_AddNumberToObject(o, "write_bandwidth_mbps", (double)m->write_bandwidth_mbps);
	return o;
}

static bool hmat_present(const struct pn_hmat *m)
{
	return m->read_latency_ns || m->write_latency_ns || m->read_bandwidth_mbps ||
	       m->write_bandwidth_mbps;
}

cJSON *pn_topology_to_json(const struct pn_topology *t)
{
	cJSON *o = cJSON_CreateObject(), *nodes, *dist;

	cJSON_AddStringToObject(o, "hwloc_version", t->hwloc_version);
	cJSON_AddNumberToObject(o, "ncpus", t->ncpus);
	cJSON_AddBoolToObject(o, "kernel_has_private", t->kernel_has_private);
	add_nodeset(o, "possible", &t->possible);
	add_nodeset(o, "online", &t->online);
	add_nodeset(o, "has_cpu", &t->with_cpu);
	add_nodeset(o, "has_memory", &t->with_memory);
	add_nodeset(o, "has_normal_memory", &t->with_normal_memory);
	add_nodeset(o, "has_private_memory", &t->with_private_memory);

	nodes = cJSON_AddArrayToObject(o, "nodes");
	for (int i = 0; i < t->nnodes; i++) {
		const struct pn_node_info *ni = &t->nodes[i];
		cJSON *n = cJSON_CreateObject();

		cJSON_AddNumberToObject(n, "id", ni->id);
		cJSON_AddBoolToObject(n, "has_cpu", ni->has_cpu);
		cJSON_AddBoolToObject(n, "has_memory", ni->has_memory);
		cJSON_AddBoolToObject(n, "has_normal_memory", ni->has_normal_memory);
		cJSON_AddBoolToObject(n, "has_private_memory", ni->has_private_memory);
		cJSON_AddStringToObject(n, "cpus", ni->cpulist);
		cJSON_AddNumberToObject(n, "ncpus", ni->ncpus);
		cJSON_AddNumberToObject(n, "mem_total_bytes", (double)ni->mem_total_bytes);
		cJSON_AddStringToObject(n, "subtype", ni->subtype);
		cJSON_AddStringToObject(n, "dax_device", ni->dax_device);
		cJSON_AddNumberToObject(n, "memory_tier", ni->memory_tier);
		if (ni->has_hmat) {
			cJSON *hm = cJSON_AddObjectToObject(n, "hmat");

			for (int c = 0; c < 2; c++)
				if (hmat_present(&ni->hmat[c]))
					cJSON_AddItemToObject(hm, c ? "access1" : "access0",
							      hmat_json(&ni->hmat[c]));
		}
		cJSON_AddItemToArray(nodes, n);
	}

	dist = cJSON_AddObjectToObject(o, "distances");
	for (int i = 0; i < t->nnodes; i++) {
		char key[16];
		cJSON *row = cJSON_CreateObject();

		for (int j = 0; j < t->nnodes; j++) {
			int d = t->distance[i * t->nnodes + j];

			if (d < 0)
				continue;
			snprintf(key, sizeof(key), "%d", t->nodes[j].id);
			cJSON_AddNumberToObject(row, key, d);
		}
		snprintf(key, sizeof(key), "%d", t->nodes[i].id);
		cJSON_AddItemToObject(dist, key, row);
	}
	return o;
}

static void print_mask(FILE *out, const char *name, const struct pn_nodeset *s)
{
	char buf[4096];

	if (pn_nodeset_format(s, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "(too long)");
	fprintf(out, "  %-19s %s\n", name, *buf ? buf : "-");
}

void pn_topology_print(const struct pn_topology *t, FILE *out)
{
	fprintf(out, "NUMA topology: %d node%s, %d cpu%s (hwloc %s%s)\n", t->nnodes,
		t->nnodes == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s", t->hwloc_version,
		t->hwloc_xml ? "" : ", hwloc unavailable: sysfs only");
	print_mask(out, "possible", &t->possible);
	print_mask(out, "online", &t->online);
	print_mask(out, "has_cpu", &t->with_cpu);
	print_mask(out, "has_memory", &t->with_memory);
	print_mask(out, "has_normal_memory", &t->with_normal_memory);
	if (t->kernel_has_private)
		print_mask(out, "has_private_memory", &t->with_private_memory);
	else
		fprintf(out, "  %-19s %s\n", "has_private_memory",
			"(kernel has no private memory nodes)");

	fprintf(out, "\n%4s  %-22s %-16s %10s  %4s  %-8s  %s\n", "node", "role", "cpus", "memory",
		"tier", "subtype", "distances");
	for (int i = 0; i < t->nnodes; i++) {
		const struct pn_node_info *ni = &t->nodes[i];
		char role[64] = "", mem[32], tier[16];

		/* Role hints from the node states; the config decides actual roles. */
		if (ni->has_private_memory)
			strcat(role, "private ");
		if (ni->has_cpu && ni->has_memory)
			strcat(role, "cpu+mem ");
		else if (ni->has_cpu)
			strcat(role, "cpu-only ");
		else if (ni->has_memory)
			strcat(role, "memory-only ");
		if (ni->has_memory && !ni->has_normal_memory)
			strcat(role, "movable ");
		if (!*role)
			strcpy(role, "-");
		pn_format_size(ni->mem_total_bytes, mem, sizeof(mem));
		if (ni->memory_tier >= 0)
			snprintf(tier, sizeof(tier), "%d", ni->memory_tier);
		else
			snprintf(tier, sizeof(tier), "-");
		fprintf(out, "%4d  %-22s %-16s %10s  %4s  %-8s ", ni->id, role,
			*ni->cpulist ? ni->cpulist : "-", mem, tier,
			*ni->subtype ? ni->subtype : "-");
		for (int j = 0; j < t->nnodes; j++) {
			int d = t->distance[i * t->nnodes + j];

			if (d < 0)
				fprintf(out, " %d:?", t->nodes[j].id);
			else
				fprintf(out, " %d:%d", t->nodes[j].id, d);
		}
		fputc('\n', out);
		if (*ni->dax_device)
			fprintf(out, "%4s  dax device %s\n", "", ni->dax_device);
		for (int c = 0; c < 2; c++) {
			const struct pn_hmat *m = &ni->hmat[c];

			if (!hmat_present(m))
				continue;
			fprintf(out,
				"%4s  hmat access%d: latency r/w %llu/%llu ns, "
				"bandwidth r/w %llu/%llu MB/s\n",
				"", c, (unsigned long long)m->read_latency_ns,
				(unsigned long long)m->write_latency_ns,
				(unsigned long long)m->read_bandwidth_mbps,
				(unsigned long long)m->write_bandwidth_mbps);
		}
	}
}
