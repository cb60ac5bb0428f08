// SPDX-License-Identifier: GPL-2.0-only
/*
 * hmat.c - the declared (initiator, target) matrix from sysfs access
 * classes and hwloc memattrs (see hmat.h).
 *
 * hwloc is not loaded again from /sys: the topology's XML export (made on
 * the sysroot by topology.c) carries the memattrs, so the same view is
 * reloaded from that buffer, which also works for an XML of another machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "hmat.h"

#define NODE_DIR "/sys/devices/system/node"

static const hwloc_memattr_id_t attr_ids[PN_HW_NATTRS] = {
	HWLOC_MEMATTR_ID_LATENCY,	 HWLOC_MEMATTR_ID_READ_LATENCY,
	HWLOC_MEMATTR_ID_WRITE_LATENCY,	 HWLOC_MEMATTR_ID_BANDWIDTH,
	HWLOC_MEMATTR_ID_READ_BANDWIDTH, HWLOC_MEMATTR_ID_WRITE_BANDWIDTH,
};

/* nodeT/accessC/initiators/nodeI entries.  -ENOENT if the class is absent. */
static int read_initiators(int target, int cls, struct pn_nodeset *out)
{
	char rel[128];

	snprintf(rel, sizeof(rel), NODE_DIR "/node%d/access%d/initiators", target, cls);
	return pn_nodeset_read_dir(rel, out);
}

static int *ids_of(const struct pn_nodeset *s, int *n)
{
	int *v = pn_xcalloc((size_t)pn_nodeset_count(s) + 1, sizeof(int)), i = 0, id;

	pn_nodeset_for_each (id, s)
		v[i++] = id;
	*n = i;
	return v;
}

static int index_of(const int *v, int n, int id)
{
	for (int i = 0; i < n; i++)
		if (v[i] == id)
			return i;
	return -1;
}

static struct pn_hmat_cell *cell_at(struct pn_hmat_table *tab, int i, int j)
{
	return &tab->cells[(size_t)i * (size_t)tab->ntarget + (size_t)j];
}

/* Initiator and target sets; inits[c][k] gets the access lists per target. */
static void plan(const struct pn_topology *t, struct pn_nodeset *init, struct pn_nodeset *targ,
		 struct pn_nodeset (*lists)[2])
{
	pn_nodeset_zero(init);
	pn_nodeset_zero(targ);
	for (int k = 0; k < t->nnodes; k++) {
		const struct pn_node_info *ni = &t->nodes[k];

		if (ni->has_cpu || ni->ncpus > 0)
			pn_nodeset_set(init, ni->id);
		if (ni->has_memory || ni->has_private_memory || ni->mem_total_bytes)
			pn_nodeset_set(targ, ni->id);
		for (int c = 0; c < 2; c++) {
			if (read_initiators(ni->id, c, &lists[k][c]))
				continue;
			pn_nodeset_set(targ, ni->id);
			pn_nodeset_or(init, init, &lists[k][c]);
		}
	}
}

static void fill_sysfs(const struct pn_topology *t, struct pn_hmat_table *tab,
		       struct pn_nodeset (*lists)[2])
{
	for (int k = 0; k < t->nnodes; k++) {
		const struct pn_node_info *ni = &t->nodes[k];
		int j = index_of(tab->targets, tab->ntarget, ni->id);

		if (j < 0)
			continue;
		for (int i = 0; i < tab->ninit; i++) {
			struct pn_hmat_cell *c = cell_at(tab, i, j);

			for (int cls = 0; cls < 2; cls++) {
				if (!pn_nodeset_test(&lists[k][cls], tab->inits[i]))
					continue;
				c->listed[cls] = true;
				c->sysfs[cls] = ni->hmat[cls];
				tab->any_sysfs = true;
			}
		}
	}
}

static hwloc_obj_t hw_node(hwloc_topology_t h, int id)
{
	hwloc_obj_t o = NULL;

	while ((o = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, o)))
		if ((int)o->os_index == id)
			return o;
	return NULL;
}

/* Does hwloc location loc cover initiator node o (all of its CPUs)? */
static bool covers(const struct hwloc_location *loc, hwloc_obj_t o)
{
	hwloc_const_cpuset_t cs = NULL;

	if (!o->cpuset || hwloc_bitmap_iszero(o->cpuset))
		return false;
	if (loc->type == HWLOC_LOCATION_TYPE_CPUSET)
		cs = loc->location.cpuset;
	else if (loc->type == HWLOC_LOCATION_TYPE_OBJECT && loc->location.object)
		cs = loc->location.object->cpuset;
	return cs && hwloc_bitmap_isincluded(o->cpuset, cs);
}

static void fill_hwloc_target(hwloc_topology_t h, struct pn_hmat_table *tab, int j)
{
	hwloc_obj_t tgt = hw_node(h, tab->targets[j]);

	if (!tgt)
		return;
	for (int a = 0; a < PN_HW_NATTRS; a++) {
		struct hwloc_location loc[64];
		hwloc_uint64_t val[64];
		unsigned nr = PN_ARRAY_SIZE(loc);

		if (hwloc_memattr_get_initiators(h, attr_ids[a], tgt, 0, &nr, loc, val) < 0)
			continue;
		if (nr > PN_ARRAY_SIZE(loc))
			nr = PN_ARRAY_SIZE(loc);
		for (int i = 0; i < tab->ninit; i++) {
			hwloc_obj_t ini = hw_node(h, tab->inits[i]);

			for (unsigned k = 0; ini && k < nr; k++) {
				if (!covers(&loc[k], ini))
					continue;
				cell_at(tab, i, j)->hwloc[a] = val[k];
				tab->any_hwloc = true;
				break;
			}
		}
	}
}

static void fill_hwloc(const struct pn_topology *t, struct pn_hmat_table *tab)
{
	hwloc_topology_t h;

	if (!t->hwloc_xml)
		return;
	if (hwloc_topology_init(&h) < 0)
		return;
	if (hwloc_topology_set_xmlbuffer(h, t->hwloc_xml, (int)strlen(t->hwloc_xml) + 1) < 0 ||
	    hwloc_topology_set_flags(h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) < 0 ||
	    hwloc_topology_load(h) < 0) {
		pn_warn("hmat: hwloc could not reload the topology XML: %s", strerror(errno));
		hwloc_topology_destroy(h);
		return;
	}
	for (int j = 0; j < tab->ntarget; j++)
		fill_hwloc_target(h, tab, j);
	hwloc_topology_destroy(h);
}

int pn_hmat_load(const struct pn_topology *t, struct pn_hmat_table *tab)
{
	struct pn_nodeset init, targ, (*lists)[2];

	memset(tab, 0, sizeof(*tab));
	if (!t || t->nnodes <= 0)
		return -EINVAL;
	lists = pn_xcalloc((size_t)t->nnodes, sizeof(*lists));
	plan(t, &init, &targ, lists);
	tab->inits = ids_of(&init, &tab->ninit);
	tab->targets = ids_of(&targ, &tab->ntarget);
	tab->cells = pn_xcalloc((size_t)tab->ninit * (size_t)tab->ntarget + 1, sizeof(*tab->cells));
	for (int i = 0; i < tab->ninit; i++)
		for (int j = 0; j < tab->ntarget; j++) {
			cell_at(tab, i, j)->initiator = tab->inits[i];
			cell_at(tab, i, j)->target = tab->targets[j];
		}
	fill_sysfs(t, tab, lists);
	fill_hwloc(t, tab);
	free(lists);
	return 0;
}

void pn_hmat_free(struct pn_hmat_table *tab)
{
	if (!tab)
		return;
	free(tab->inits);
	free(tab->targets);
	free(tab->cells);
	memset(tab, 0, sizeof(*tab));
}

const struct pn_hmat_cell *pn_hmat_cell(const struct pn_hmat_table *tab, int init, int target)
{
	int i = index_of(tab->inits, tab->ninit, init);
	int j = index_of(tab->targets, tab->ntarget, target);

	if (i < 0 || j < 0)
		return NULL;
	return &tab->cells[(size_t)i * (size_t)tab->ntarget + (size_t)j];
}

static uint64_t pick(const struct pn_hmat_cell *c, bool latency, const char **src)
{
	static const char *const names[2] = { "access0", "access1" };

	for (int cls = 1; cls >= 0; cls--) {
		const struct pn_hmat *m = &c->sysfs[cls];
		uint64_t v = latency ? m->read_latency_ns : m->read_bandwidth_mbps;

		if (c->listed[cls] && v) {
			*src = names[cls];
			return v;
		}
	}
	/* hwloc: the read attribute, else the generic one (Linux gives both). */
	for (int k = 0; k < 2; k++) {
		enum pn_hw_attr a = latency ? (k ? PN_HW_LATENCY : PN_HW_READ_LATENCY)
					    : (k ? PN_HW_BANDWIDTH : PN_HW_READ_BANDWIDTH);

		if (c->hwloc[a]) {
			*src = "hwloc";
			return c->hwloc[a];
		}
	}
	*src = "";
	return 0;
}

uint64_t pn_hmat_read_latency(const struct pn_hmat_cell *c, const char **src)
{
	return pick(c, true, src);
}

uint64_t pn_hmat_read_bandwidth(const struct pn_hmat_cell *c, const char **src)
{
	return pick(c, false, src);
}

const char *pn_latency_class(double ratio, bool local, bool emulated)
{
	if (emulated)
		return "meaningless (emulated)";
	if (local)
		return "local";
	if (!(ratio > 0))
		return "no local reference";
	if (ratio > 4.0)
		return "FPGA-class (> 4x local)";
	return ratio >= 1.5 ? "CXL range (1.5-4x)" : "near (< 1.5x)";
}
