// SPDX-License-Identifier: GPL-2.0-only
/*
 * topology_hwloc.c - what hwloc adds to the sysfs topology: node subtypes
 * and DAX devices, the best memory attributes, distances, its version.
 * hwloc reads the same sysroot (HWLOC_FSROOT) so captured trees replay.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "topology.h"
#include "topology_int.h"

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
void pn_topology_hwloc_version(char *buf, size_t len, hwloc_topology_t h)
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
hwloc_topology_t pn_topology_hwloc_load(void)
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

void pn_topology_hwloc_distances(struct pn_topology *t, hwloc_topology_t h)
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
		int i = pn_topology_index(t, (int)d[0]->objs[a]->os_index);

		if (i < 0)
			continue;
		for (unsigned b = 0; b < d[0]->nbobjs; b++) {
			int j = pn_topology_index(t, (int)d[0]->objs[b]->os_index);

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

void pn_topology_hwloc_enrich(struct pn_node_info *ni, hwloc_topology_t h)
{
	hwloc_obj_t o = hwloc_node(h, ni->id);
	const char *dax;

	if (!o)
		return;
	if (o->subtype)
		pn_topology_copy_line(ni->subtype, sizeof(ni->subtype), o->subtype);
	dax = hwloc_obj_get_info_by_name(o, "DAXDevice");
	if (dax)
		pn_topology_copy_line(ni->dax_device, sizeof(ni->dax_device), dax);
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
