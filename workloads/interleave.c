// SPDX-License-Identifier: GPL-2.0-only
/*
 * interleave.c - one allocation interleaved over K nodes, verified page by
 * page against the kernel's own node walk.
 *
 * Maps `size` bytes as one private anonymous mapping (aligned to 2 MiB),
 * gives it MPOL_INTERLEAVE or MPOL_WEIGHTED_INTERLEAVE over `nodes` with
 * mbind(2), turns THP off (MADV_NOHUGEPAGE: the unit is the 4 KiB page) or
 * on (MADV_HUGEPAGE: the unit is the folio), and writes one byte per page.
 * Weights come from `weights` and are written to
 * /sys/kernel/mm/mempolicy/weighted_interleave/nodeN through knobs (the
 * runner restores them); the directory is probed, never assumed.  Then
 * move_pages(2) tells where every page lives, and each page is compared with
 * the node weighted_interleave_nid() gives its virtual page number (core/sys/
 * mpol.c): the verification is exact, not a ratio.  Fault-in time is taken
 * per run of pages that the walk sends to one node, giving a throughput per
 * node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include "workloads/lib/faultin.h"
#include "core/sys/mpol.h"
#include "core/api/placement.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"

#define ALIGN_BYTES (2u << 20) /* THP folio size on x86-64: the mapping starts on one */
#define FOLIO_ORDER 9

static const char *const policy_names[] = { "interleave", "weighted_interleave", NULL };

static const struct pn_opt interleave_opts[] = {
	{ "size", PN_OPT_SIZE, "64M", "bytes to allocate (one mapping)", NULL, 4096,
	  1125899906842624.0 },
	{ "nodes", PN_OPT_NODES, "private", "nodes the policy interleaves over", NULL, 0, 0 },
	{ "policy", PN_OPT_ENUM, "weighted_interleave",
	  "MPOL_INTERLEAVE or MPOL_WEIGHTED_INTERLEAVE", policy_names, 0, 0 },
	{ "weights", PN_OPT_STRING, "",
	  "weighted_interleave: one weight 1..255 per node in node-id order (\"3,1\"), set "
	  "through knobs and restored; \"\" = the kernel's current weights",
	  NULL, 0, 0 },
	{ "thp", PN_OPT_BOOL, "false",
	  "false: MADV_NOHUGEPAGE, exact per-page map; true: MADV_HUGEPAGE, map per folio", NULL, 0,
	  0 },
	{ "fault", PN_OPT_ENUM, "populate",
	  "how pages are faulted in: populate (MADV_POPULATE_WRITE per run of pages bound for "
	  "one node; writes where the kernel lacks it) or write (one write per page)",
	  pn_fault_names, 0, 0 },
	{ "max_mem_share", PN_OPT_DOUBLE, "0.5",
	  "refuse sizes above this share of MemAvailable, in [0.01, 0.9]", NULL, 0.01, 0.9 },
	{ NULL },
};

static const struct pn_metric_decl interleave_metrics[] = {
	{ "fault_throughput", PN_UNIT_BYTES_PER_SEC, PN_BETTER_HIGHER, PN_AGG_MEDIAN,
	  "bytes faulted in per second (fault-in only; label node: the runs sent to that node)" },
	{ "pages_total", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST, "pages faulted in" },
	{ "pages_on_node", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST,
	  "pages move_pages found on each node (label node)" },
	{ "expected_pages", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST,
	  "pages the kernel's interleave walk puts on each node (label node)" },
	{ "deviation_pages", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST,
	  "found minus expected pages per node (label node)" },
	{ "exact_match_pages", PN_UNIT_PAGES, PN_BETTER_HIGHER, PN_AGG_LAST,
	  "pages on exactly the node the walk gives their virtual page (folio) number" },
	{ "mismatched_pages", PN_UNIT_PAGES, PN_BETTER_LOWER, PN_AGG_LAST,
	  "pages on another node than the walk gives" },
	{ "unverified_pages", PN_UNIT_PAGES, PN_BETTER_LOWER, PN_AGG_LAST,
	  "pages move_pages could not place" },
	{ "thp_folios", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_LAST,
	  "2 MiB blocks placed whole on their folio's node (thp=true)" },
	{ NULL },
};

struct interleave_priv {
	uint64_t size_bytes;
	size_t page_bytes, npages;
	struct pn_nodeset nodes;
	char nodes_str[256];
	bool weighted, thp, set_weights;
	enum pn_fault_mode fault;
	unsigned int weights[PN_MAX_NODES];  /* asked for, by node id */
	unsigned int in_force[PN_MAX_NODES]; /* read back in run() */
	unsigned long mask[PN_MAX_NODES / (8 * sizeof(unsigned long))];
	void *map; /* the aligned mapping */
	void *raw; /* what mmap returned */
	size_t raw_len;
	int *status;			 /* npages */
	uint64_t touch_ns[PN_MAX_NODES]; /* fault-in time by expected node */
	struct pn_mpol_ilmap il;	 /* the walk run() verifies against */
	struct pn_mpol_ilcmp cmp;
};

static int check_nodes(const struct pn_wl *w, const struct interleave_priv *p)
{
	int n;

	if (!w->topo)
		return 0;
	pn_nodeset_for_each (n, &p->nodes)
		if (!pn_topology_node(w->topo, n))
			return pn_error(-EINVAL,
					"workload interleave: nodes \"%s\": node %d does not "
					"exist on this machine",
					p->nodes_str, n);
	return 0;
}

/* Weights: probe the sysfs directory, parse the option, ask for knobs. */
static int plan_weights(struct pn_wl *w, struct interleave_priv *p)
{
	const char *ws = pn_param_str(&w->params, "weights");
	struct pn_nodeset have, missing;
	char why[256], key[64], val[16], list[128], autop[128];
	int ret, n;

	if (!p->weighted) {
		if (ws[0])
			return pn_error(-EINVAL,
					"workload interleave: weights \"%s\" needs policy "
					"weighted_interleave",
					ws);
		return 0;
	}
	ret = pn_mpol_wil_probe(&have);
	if (ret)
		return pn_error(-EOPNOTSUPP,
				"workload interleave: policy weighted_interleave: %s is missing "
				"(a kernel before 6.9 or without NUMA)",
				PN_WIL_DIR);
	pn_nodeset_andnot(&missing, &p->nodes, &have);
	if (!pn_nodeset_empty(&missing)) {
		pn_nodeset_format(&missing, list, sizeof(list));
		return pn_error(-EINVAL,
				"workload interleave: no weight file for node(s) %s in %s (this "
				"kernel creates them only for some nodes)",
				list, PN_WIL_DIR);
	}
	if (!ws[0])
		return 0;
	ret = pn_mpol_wil_parse(ws, &p->nodes, p->weights, why, sizeof(why));
	if (ret)
		return pn_error(ret, "workload interleave: weights %s", why);
	p->set_weights = true;
	/*
	 * 6.16+ recompute weights in "auto" mode, and writing a weight turns
	 * it off for good: set it "false" first, so the knob list restores it
	 * last, after the weights (auto or __auto_type: pn_mpol_wil_auto_path()).
	 */
	if (!pn_mpol_wil_auto_path(autop, sizeof(autop))) {
		ret = pn_wl_knob(w, autop, "false");
		if (ret)
			return ret;
	}
	pn_nodeset_for_each (n, &p->nodes) {
		snprintf(key, sizeof(key), "weighted_interleave.%d", n);
		snprintf(val, sizeof(val), "%u", p->weights[n]);
		ret = pn_wl_knob(w, key, val);
		if (ret)
			return ret;
	}
	return 0;
}

static int interleave_setup(struct pn_wl *w)
{
	struct interleave_priv *p;
	long psz = sysconf(_SC_PAGESIZE);
	double share = pn_param_double(&w->params, "max_mem_share");
	int ret, n;

	p = pn_xcalloc(1, sizeof(*p));
	w->priv = p;
	p->page_bytes = psz > 0 ? (size_t)psz : 4096;
	p->size_bytes = pn_param_size(&w->params, "size");
	p->thp = pn_param_bool(&w->params, "thp");
	p->fault = pn_fault_mode_of(pn_param_str(&w->params, "fault"));
	p->weighted = !strcmp(pn_param_str(&w->params, "policy"), "weighted_interleave");
	snprintf(p->nodes_str, sizeof(p->nodes_str), "%s", pn_param_str(&w->params, "nodes"));
	if (w->max_mem_share > 0.0 && w->max_mem_share < share)
		share = w->max_mem_share;
	p->size_bytes = (p->size_bytes + p->page_bytes - 1) / p->page_bytes * p->page_bytes;
	p->npages = (size_t)(p->size_bytes / p->page_bytes);

	ret = pn_param_nodes(&w->params, "nodes", w->roles, &p->nodes);
	if (ret)
		return pn_error(ret, "workload interleave: nodes \"%s\" resolves to no node",
				p->nodes_str);
	ret = check_nodes(w, p);
	if (ret)
		return ret;
	ret = plan_weights(w, p);
	if (ret)
		return ret;
	ret = pn_mem_guard(p->size_bytes, share, "workload interleave: size");
	if (ret)
		return ret;
	w->mem_bytes = p->size_bytes;
	pn_nodeset_for_each (n, &p->nodes)
		p->mask[n / (8 * sizeof(unsigned long))] |= 1UL
							    << (n % (8 * sizeof(unsigned long)));
	return 0;
}

/* The weights in force (read back: what the kernel will use), into il. */
static int load_walk(struct pn_wl *w, struct interleave_priv *p)
{
	unsigned int *now = p->in_force;
	int n;

	if (!p->weighted)
		return pn_mpol_ilmap_init(&p->il, &p->nodes, NULL);
	pn_nodeset_for_each (n, &p->nodes) {
		if (pn_mpol_wil_read(n, &now[n])) {
			pn_res_note(&w->res, "weight of node %d unreadable: counted as 1", n);
			now[n] = 1;
		}
		if (p->set_weights && now[n] != p->weights[n])
			pn_res_note(&w->res, "node %d: weight %u asked, %u in force", n,
				    p->weights[n], now[n]);
	}
	return pn_mpol_ilmap_init(&p->il, &p->nodes, now);
}

static int map_region(struct interleave_priv *p)
{
	uintptr_t a;

	p->raw_len = (size_t)p->size_bytes + ALIGN_BYTES;
	p->raw = mmap(NULL, p->raw_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->raw == MAP_FAILED) {
		p->raw = NULL;
		return pn_error(-errno, "workload interleave: mmap of %zu bytes: %s", p->raw_len,
				strerror(errno));
	}
	a = ((uintptr_t)p->raw + ALIGN_BYTES - 1) & ~(uintptr_t)(ALIGN_BYTES - 1);
	p->map = (char *)p->raw + (a - (uintptr_t)p->raw); /* the 2 MiB boundary inside it */
	if (madvise(p->map, (size_t)p->size_bytes, p->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		return pn_error(-errno, "workload interleave: madvise(%s): %s",
				p->thp ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", strerror(errno));
	if (mbind(p->map, (size_t)p->size_bytes,
		  p->weighted ? MPOL_WEIGHTED_INTERLEAVE : MPOL_INTERLEAVE, p->mask,
		  PN_MAX_NODES + 1, 0)) {
		int err = errno;

		return pn_error(-err, "workload interleave: mbind(%s, nodes %s): %s (errno %d)%s",
				p->weighted ? "MPOL_WEIGHTED_INTERLEAVE" : "MPOL_INTERLEAVE",
				p->nodes_str, strerror(err), err,
				err == EINVAL ? "; a private node needs its mempolicy opt-in, and "
						"weighted interleave needs Linux 6.9+"
					      : "");
	}
	return 0;
}

/* Fault one run of pages the walk sends to node cur, timed for that node. */
static int fault_run(struct interleave_priv *p, size_t first, size_t end, int cur)
{
	uint64_t t0 = pn_now_ns();
	int err = pn_fault_in((char *)p->map + first * p->page_bytes, (end - first) * p->page_bytes,
			      p->page_bytes, &p->fault);

	p->touch_ns[cur] += pn_now_ns() - t0;
	if (err)
		return pn_error(err, "workload interleave: fault-in of pages %zu..%zu (%s): %s",
				first, end - 1, pn_fault_desc(p->fault), strerror(-err));
	return 0;
}

/*
 * Fault every page in, one run of consecutive pages the walk sends to one
 * node at a time, so that each node's fault-in time is its own.  *ns is the
 * whole time; 0 with *ns = 0 when asked to stop.
 */
static int fault_all(struct pn_wl *w, struct interleave_priv *p, uint64_t *ns)
{
	unsigned int shift = 0, order = p->thp ? FOLIO_ORDER : 0;
	uint64_t base = (uintptr_t)p->map, start = pn_now_ns();
	size_t first = 0;
	int cur = -1, ret;

	*ns = 0;
	while (((size_t)1 << shift) < p->page_bytes)
		shift++;
	for (size_t i = 0; i < p->npages; i++) {
		uint64_t addr = base + ((uint64_t)i << shift);
		int want = pn_mpol_ilmap_nid(&p->il, pn_mpol_ilx_anon(base, addr, order, shift));

		if (want == cur)
			continue;
		if (cur >= 0) {
			ret = fault_run(p, first, i, cur);
			if (ret)
				return ret;
		}
		first = i;
		cur = want;
		if (pn_wl_should_stop(w))
			return 0;
	}
	if (cur >= 0) {
		ret = fault_run(p, first, p->npages, cur);
		if (ret)
			return ret;
	}
	*ns = pn_now_ns() - start;
	return 0;
}

static const struct pn_col map_cols[] = {
	{ "node", PN_COL_INT, PN_UNIT_NONE },
	{ "weight", PN_COL_INT, PN_UNIT_NONE },
	{ "expected_pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "placed_pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "deviation_pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "fault_ns", PN_COL_INT, PN_UNIT_NS },
	{ "fault_throughput", PN_COL_NUM, PN_UNIT_BYTES_PER_SEC },
};

static void report_nodes(struct pn_wl *w, struct interleave_priv *p)
{
	const struct pn_mpol_ilcmp *c = &p->cmp;
	int t = pn_res_table(&w->res, "interleave_map",
			     "per node of the policy: weight in force, pages the kernel's walk "
			     "puts there, pages found there, fault-in time of its runs",
			     map_cols, PN_ARRAY_SIZE(map_cols));
	char lab[32];

	for (int i = 0; i < p->il.nnodes; i++) {
		int n = p->il.node[i];
		int64_t dev = (int64_t)c->actual[n] - (int64_t)c->expected[n];
		double bps = p->touch_ns[n] ? (double)c->expected[n] * (double)p->page_bytes * 1e9 /
						      (double)p->touch_ns[n]
					    : 0.0;

		snprintf(lab, sizeof(lab), "node=%d", n);
		pn_wl_metric(w, "expected_pages", lab, (double)c->expected[n]);
		pn_wl_metric(w, "deviation_pages", lab, (double)dev);
		pn_wl_metric(w, "fault_throughput", lab, bps);
		if (t >= 0)
			pn_res_table_row(&w->res, t, (int64_t)n, (int64_t)p->il.weight[i],
					 (int64_t)c->expected[n], (int64_t)c->actual[n], dev,
					 (int64_t)p->touch_ns[n], bps);
	}
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!c->actual[n])
			continue;
		snprintf(lab, sizeof(lab), "node=%d", n);
		pn_wl_metric(w, "pages_on_node", lab, (double)c->actual[n]);
	}
}

static void report(struct pn_wl *w, struct interleave_priv *p, uint64_t ns)
{
	struct pn_res *r = &w->res;
	const struct pn_mpol_ilcmp *c = &p->cmp;

	pn_wl_metric(w, "fault_throughput", NULL,
		     ns ? (double)p->size_bytes * 1e9 / (double)ns : 0.0);
	pn_wl_metric(w, "pages_total", NULL, (double)p->npages);
	pn_wl_metric(w, "exact_match_pages", NULL, (double)c->matched);
	pn_wl_metric(w, "mismatched_pages", NULL, (double)c->mismatched);
	pn_wl_metric(w, "unverified_pages", NULL, (double)c->unverified);
	if (p->thp)
		pn_wl_metric(w, "thp_folios", NULL, (double)c->folio_blocks);
	report_nodes(w, p);
	pn_res_check_eq(r, "every page on the node the interleave walk gives it", (int64_t)c->pages,
			(int64_t)c->matched, "pages");
	if (c->first_mismatch >= 0)
		pn_res_note(r,
			    "%s over %s: %llu of %llu page(s) off the walk; first: page %lld "
			    "expected on node %d, found on node %d",
			    policy_names[p->weighted], p->nodes_str,
			    (unsigned long long)c->mismatched, (unsigned long long)c->pages,
			    (long long)c->first_mismatch, c->first_expected, c->first_actual);
	if (p->thp && !c->folio_blocks)
		pn_res_note(r, "thp=true but no 2 MiB block was placed as one folio (THP disabled "
			       "or no huge page free): compared page by page");
}

/* The census the runner explains node growth with, from the same status. */
static void census(struct pn_wl *w, struct interleave_priv *p)
{
	struct pn_res *r = &w->res;

	r->explicit_pages = p->npages;
	for (size_t i = 0; i < p->npages; i++) {
		int n = p->status[i];

		if (n < 0 || n >= PN_MAX_NODES) {
			r->unverified_pages++;
			continue;
		}
		r->placed_pages[n]++;
		if (pn_nodeset_test(&p->nodes, n))
			r->intended_pages++;
		else
			r->misplaced_pages++;
	}
	r->verified = true;
}

static int interleave_run(struct pn_wl *w)
{
	struct interleave_priv *p = w->priv;
	uint64_t ns;
	int ret;

	ret = load_walk(w, p);
	if (ret)
		return pn_error(ret, "workload interleave: no node to interleave over");
	ret = map_region(p);
	if (ret)
		return ret;
	ret = fault_all(w, p, &ns);
	if (ret)
		return ret;
	pn_res_note(&w->res, "fault-in: %s, one call per run of pages bound for one node",
		    pn_fault_desc(p->fault));
	if (pn_should_stop())
		return -EINTR;
	p->status = pn_xcalloc(p->npages, sizeof(*p->status));
	ret = pn_mpol_query(p->map, p->npages, p->page_bytes, p->status);
	if (ret)
		return ret;
	memset(&p->cmp, 0, sizeof(p->cmp));
	pn_mpol_ilmap_compare(&p->il, (uintptr_t)p->map, p->page_bytes, p->thp ? FOLIO_ORDER : 0,
			      p->status, p->npages, &p->cmp);
	census(w, p);
	report(w, p, ns);
	return 0;
}

static void interleave_teardown(struct pn_wl *w)
{
	struct interleave_priv *p = w->priv;

	if (!p)
		return;
	if (p->raw)
		munmap(p->raw, p->raw_len);
	free(p->status);
	free(p);
	w->priv = NULL;
}

const struct pn_workload pn_workload_interleave = {
	.name = "interleave",
	.summary =
		"(weighted) interleave over K nodes, every page checked against the kernel's walk",
	.opts = interleave_opts,
	.explicit_alloc = true, /* its pages on the devices are its policy's */
	.metrics = interleave_metrics,
	.needs = PN_NEED_NUMA | PN_NEED_NODES,
	.setup = interleave_setup,
	.run = interleave_run,
	.teardown = interleave_teardown,
};
