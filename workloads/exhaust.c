// SPDX-License-Identifier: GPL-2.0-only
/*
 * exhaust.c - ask for more than a device holds and record where it spills.
 *
 * Maps `size` bytes (default: the MemTotal of `nodes` plus `over`) in
 * `chunk`-sized private anonymous mappings, each with one policy over
 * `nodes` (preferred: the first node; preferred_many; interleave; strict
 * bind), THP off, one byte written per page.  After every chunk move_pages(2)
 * says where its pages landed, and the chunk's record (fault time, pages per
 * node) goes into a shared page that setup() mapped before the fork: a child
 * that the kernel kills (strict bind beyond capacity) still leaves its curve,
 * which outcome() reports in the parent.
 *
 * Results: the spill curve (bytes requested -> node of each chunk), the
 * first chunk with pages off the policy's nodes, per-chunk fault latency
 * percentiles before and after it, and the kernel's own fallback counters
 * (pgalloc_private_fallback and nodeN numa_private_fallback on the reference
 * series, numa_miss / numa_foreign everywhere) before and after, each beside
 * the census.  A strict bind beyond capacity belongs in its own cgroup with
 * a memory.max and "expect": "killed": outcome() checks how it ended and
 * that nothing outside its cgroup was OOM-killed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include "core/sys/fallback.h"
#include "core/sys/mpol.h"
#include "core/api/placement.h"
#include "core/sys/procfs.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"
#include "workloads/lib/chunkrec.h"

enum policy { POL_PREFERRED, POL_PREFERRED_MANY, POL_INTERLEAVE, POL_BIND };

static const char *const policy_names[] = {
	"preferred", "preferred_many", "interleave", "bind", NULL,
};

static const int policy_modes[] = { MPOL_PREFERRED, MPOL_PREFERRED_MANY, MPOL_INTERLEAVE,
				    MPOL_BIND };

static const struct pn_opt exhaust_opts[] = {
	{ "size", PN_OPT_SIZE, "0", "bytes to allocate; 0 = the MemTotal of nodes plus over", NULL,
	  0, 1125899906842624.0 },
	{ "over", PN_OPT_SIZE, "64M", "with size 0: bytes beyond the nodes' MemTotal", NULL, 0,
	  1125899906842624.0 },
	{ "chunk", PN_OPT_SIZE, "2M", "bytes per mapping (one row of the spill curve)", NULL, 4096,
	  1073741824.0 },
	{ "nodes", PN_OPT_NODES, "private", "the device nodes the policy names", NULL, 0, 0 },
	{ "policy", PN_OPT_ENUM, "preferred", "memory policy (preferred names the first node)",
	  policy_names, 0, 0 },
	{ "max_mem_share", PN_OPT_DOUBLE, "0.5",
	  "refuse sizes above this share of MemAvailable, in [0.01, 0.9]", NULL, 0.01, 0.9 },
	{ NULL },
};

static const struct pn_metric_decl exhaust_metrics[] = {
	{ "pages_total", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST, "pages faulted in" },
	{ "pages_on_node", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST,
	  "pages found on each node (label node)" },
	{ "spilled_pages", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST,
	  "pages off the policy's nodes" },
	{ "spill_at_bytes", PN_UNIT_BYTES, PN_BETTER_NONE, PN_AGG_LAST,
	  "bytes requested before the first chunk with pages off the policy's nodes (-1: none)" },
	{ "chunk_latency_p50_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN,
	  "time to map, bind and fault one chunk (label spill=before|after)" },
	{ "chunk_latency_p99_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN, NULL },
	{ "chunk_latency_max_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN, NULL },
	{ "fallback_counter", PN_UNIT_COUNT, PN_BETTER_NONE, PN_AGG_LAST,
	  "growth of a kernel fallback counter during the run (label counter)" },
	{ NULL },
};

/* The shared page(s): written by the child, read by the parent after it ends. */
struct shared {
	volatile uint64_t done;	    /* chunks recorded */
	volatile int reported;	    /* the child built its results itself */
	volatile uint64_t inflight; /* pages touched in the chunk being faulted */
	struct pn_fallback before, after;
	struct pn_chunkrec rec[];
};

struct exhaust_priv {
	uint64_t size_bytes, chunk_bytes, capacity_bytes;
	size_t page_bytes, nchunks;
	struct pn_nodeset nodes, others;
	char nodes_str[256];
	enum policy policy;
	bool private_mode; /* every policy node is private (not in N_MEMORY) */
	unsigned long mask[PN_MAX_NODES / (8 * sizeof(unsigned long))];
	struct shared *sh;
	size_t sh_len;
	void **addr;
	int64_t oom_kill_setup; /* /proc/vmstat oom_kill when setup() ran */
};

static int parse_policy(const char *s, enum policy *pol)
{
	for (size_t i = 0; policy_names[i]; i++)
		if (!strcmp(s, policy_names[i])) {
			*pol = (enum policy)i;
			return 0;
		}
	return pn_error(-EINVAL,
			"workload exhaust: policy \"%s\" is not one of preferred, "
			"preferred_many, interleave, bind",
			s);
}

/* Capacity (MemTotal) of the policy's nodes, and whether they are private. */
static int plan_nodes(struct pn_wl *w, struct exhaust_priv *p)
{
	struct pn_nodeset all;
	int ret, n;

	ret = pn_param_nodes(&w->params, "nodes", w->roles, &p->nodes);
	if (ret)
		return pn_error(ret, "workload exhaust: nodes \"%s\" resolves to no node",
				p->nodes_str);
	p->private_mode = true;
	pn_nodeset_for_each (n, &p->nodes) {
		const struct pn_node_info *ni = w->topo ? pn_topology_node(w->topo, n) : NULL;

		if (!ni)
			return pn_error(-EINVAL,
					"workload exhaust: nodes \"%s\": node %d does not "
					"exist on this machine",
					p->nodes_str, n);
		p->capacity_bytes += ni->mem_total_bytes;
		if (!ni->has_private_memory || ni->has_memory)
			p->private_mode = false;
		p->mask[n / (8 * sizeof(unsigned long))] |= 1UL
							    << (n % (8 * sizeof(unsigned long)));
		if (p->policy == POL_PREFERRED) /* one node: the first */
			break;
	}
	if (p->policy == POL_PREFERRED) {
		n = pn_nodeset_next(&p->nodes, -1);
		pn_nodeset_zero(&p->nodes);
		pn_nodeset_set(&p->nodes, n);
	}
	pn_nodeset_or(&all, &w->topo->with_memory, &w->topo->with_private_memory);
	pn_nodeset_andnot(&p->others, &all, &p->nodes);
	return 0;
}

/*
 * A strict bind beyond its nodes' capacity must end inside its own cgroup:
 * without a memory.max from the config, its leaf gets the request plus
 * 64 MiB (page tables, the records) so that whatever the kernel does with
 * the excess, the workload can never take more than it asked for.  The
 * config's memory.max, when given, wins (the runner applies it after).
 */
static void bound_strict_bind(struct pn_wl *w, const struct exhaust_priv *p)
{
	if (p->policy != POL_BIND || p->size_bytes <= p->capacity_bytes || w->memory_max)
		return;
	w->memory_max = p->size_bytes + (64ULL << 20);
	pn_info("workload exhaust: strict bind of %llu MiB beyond the %llu MiB of nodes %s: "
		"its cgroup gets memory.max %llu MiB",
		(unsigned long long)(p->size_bytes >> 20),
		(unsigned long long)(p->capacity_bytes >> 20), p->nodes_str,
		(unsigned long long)(w->memory_max >> 20));
}

static int exhaust_setup(struct pn_wl *w)
{
	struct exhaust_priv *p;
	long psz = sysconf(_SC_PAGESIZE);
	double share = pn_param_double(&w->params, "max_mem_share");
	int ret;

	p = pn_xcalloc(1, sizeof(*p));
	w->priv = p;
	p->page_bytes = psz > 0 ? (size_t)psz : 4096;
	p->size_bytes = pn_param_size(&w->params, "size");
	p->chunk_bytes = pn_param_size(&w->params, "chunk");
	snprintf(p->nodes_str, sizeof(p->nodes_str), "%s", pn_param_str(&w->params, "nodes"));
	ret = parse_policy(pn_param_str(&w->params, "policy"), &p->policy);
	if (ret)
		return ret;
	if (!w->topo)
		return pn_error(-EINVAL, "workload exhaust: needs the topology (node sizes)");
	if (w->max_mem_share > 0.0 && w->max_mem_share < share)
		share = w->max_mem_share;
	if (p->chunk_bytes % p->page_bytes)
		return pn_error(-EINVAL,
				"workload exhaust: chunk %llu bytes is not a multiple of "
				"the page size",
				(unsigned long long)p->chunk_bytes);
	if (p->policy == POL_PREFERRED_MANY && !numa_has_preferred_many())
		return pn_error(-EOPNOTSUPP, "workload exhaust: policy preferred_many needs "
					     "MPOL_PREFERRED_MANY (Linux 5.15+)");
	ret = plan_nodes(w, p);
	if (ret)
		return ret;
	if (!p->size_bytes)
		p->size_bytes = p->capacity_bytes + pn_param_size(&w->params, "over");
	p->size_bytes = (p->size_bytes + p->chunk_bytes - 1) / p->chunk_bytes * p->chunk_bytes;
	ret = pn_mem_guard(p->size_bytes, share,
			   "workload exhaust: size (MemTotal of the nodes "
			   "plus over, or size)");
	if (ret)
		return ret;
	w->mem_bytes = p->size_bytes;
	bound_strict_bind(w, p);
	p->nchunks = (size_t)(p->size_bytes / p->chunk_bytes);
	p->addr = pn_xcalloc(p->nchunks, sizeof(*p->addr));
	/* Shared with the child: its records survive its death. */
	p->sh_len = sizeof(struct shared) + p->nchunks * sizeof(struct pn_chunkrec);
	p->sh = mmap(NULL, p->sh_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->sh == MAP_FAILED) {
		p->sh = NULL;
		return pn_error(-errno, "workload exhaust: shared records: %s", strerror(errno));
	}
	p->oom_kill_setup = pn_vmstat_item("oom_kill");
	return 0;
}

static int fault_chunk(struct exhaust_priv *p, size_t i, int *status)
{
	size_t len = (size_t)p->chunk_bytes, npages = len / p->page_bytes;
	struct pn_chunkrec *rec = &p->sh->rec[i];
	uint64_t t0 = pn_now_ns();
	volatile char *c;
	void *a;

	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return pn_error(-errno, "workload exhaust: mmap of chunk %zu: %s", i,
				strerror(errno));
	p->addr[i] = a;
	madvise(a, len, MADV_NOHUGEPAGE); /* pages, not folios: counters count pages */
	if (mbind(a, len, policy_modes[p->policy], p->mask, PN_MAX_NODES + 1, 0))
		return pn_error(-errno, "workload exhaust: mbind(%s, nodes %s): %s%s",
				policy_names[p->policy], p->nodes_str, strerror(errno),
				errno == EINVAL ? " (a private node needs its mempolicy opt-in)"
						: "");
	c = a;
	for (size_t o = 0, k = 1; o < len; o += p->page_bytes, k++) {
		c[o] = 1;
		p->sh->inflight = k;
	}
	rec->lat_ns = pn_now_ns() - t0;
	if (pn_mpol_query(a, npages, p->page_bytes, status))
		return -EIO;
	pn_chunkrec_fill(rec, status, npages);
	p->sh->done = i + 1;
	p->sh->inflight = 0;
	return 0;
}

/* Pages off the policy's nodes in every chunk recorded. */
static uint64_t total_spilled(const struct exhaust_priv *p)
{
	return pn_chunkrec_spilled(p->sh->rec, (size_t)p->sh->done, &p->nodes);
}

static const struct pn_col curve_cols[] = {
	{ "chunk", PN_COL_INT, PN_UNIT_NONE },
	{ "requested_bytes", PN_COL_INT, PN_UNIT_BYTES },
	{ "node", PN_COL_INT, PN_UNIT_NONE },
	{ "policy_pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "elsewhere_pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "nodes", PN_COL_STR, PN_UNIT_NONE },
	{ "fault_ns", PN_COL_INT, PN_UNIT_NS },
};

static const struct pn_col order_cols[] = {
	{ "node", PN_COL_INT, PN_UNIT_NONE },
	{ "first_chunk", PN_COL_INT, PN_UNIT_NONE },
	{ "first_requested_bytes", PN_COL_INT, PN_UNIT_BYTES },
	{ "pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "policy_node", PN_COL_BOOL, PN_UNIT_NONE },
};

/* The curve, chunk by chunk, and the order in which nodes were first used. */
static void report_curve(struct pn_wl *w, const struct exhaust_priv *p, uint64_t *per_node)
{
	int t = pn_res_table(&w->res, "spill_curve",
			     "every chunk in request order: bytes requested so far, the node most "
			     "of it landed on, pages on and off the policy's nodes",
			     curve_cols, PN_ARRAY_SIZE(curve_cols));
	int o = pn_res_table(&w->res, "spill_order",
			     "nodes in the order the allocation first reached them", order_cols,
			     PN_ARRAY_SIZE(order_cols));
	int64_t *first = pn_xcalloc(PN_MAX_NODES, sizeof(*first));
	int *seq = pn_xcalloc(PN_MAX_NODES, sizeof(*seq)), nseq = 0;
	char nodes[96];

	for (int n = 0; n < PN_MAX_NODES; n++)
		first[n] = -1;
	for (uint64_t i = 0; i < p->sh->done; i++) {
		const struct pn_chunkrec *rec = &p->sh->rec[i];
		uint64_t on = pn_chunkrec_on(rec, &p->nodes);

		for (int k = 0; k < PN_CHUNKREC_SLOTS && rec->node[k] >= 0; k++) {
			per_node[rec->node[k]] += rec->on[k];
			if (first[rec->node[k]] < 0) {
				first[rec->node[k]] = (int64_t)i;
				seq[nseq++] = rec->node[k];
			}
		}
		pn_chunkrec_nodes_str(rec, nodes, sizeof(nodes));
		if (t >= 0)
			pn_res_table_row(&w->res, t, (int64_t)i,
					 (int64_t)((i + 1) * p->chunk_bytes),
					 (int64_t)pn_chunkrec_dominant(rec), (int64_t)on,
					 (int64_t)(rec->pages - rec->unknown - on), nodes,
					 (int64_t)rec->lat_ns);
	}
	for (int k = 0; k < nseq && o >= 0; k++)
		pn_res_table_row(&w->res, o, (int64_t)seq[k], first[seq[k]],
				 (int64_t)((uint64_t)first[seq[k]] * p->chunk_bytes),
				 (int64_t)per_node[seq[k]],
				 (int)pn_nodeset_test(&p->nodes, seq[k]));
	free(first);
	free(seq);
}

static void report_latency(struct pn_wl *w, const struct exhaust_priv *p, size_t spill)
{
	size_t n = (size_t)p->sh->done;
	double *v = pn_xcalloc(n + 1, sizeof(*v));
	static const char *const lab[] = { "spill=before", "spill=after" };

	for (int part = 0; part < 2; part++) {
		size_t lo = part ? spill : 0, hi = part ? n : spill, m = 0;

		for (size_t i = lo; i < hi; i++)
			v[m++] = (double)p->sh->rec[i].lat_ns;
		if (!m)
			continue;
		pn_wl_metric(w, "chunk_latency_p50_ns", lab[part], pn_percentile(v, m, 50.0));
		pn_wl_metric(w, "chunk_latency_p99_ns", lab[part], pn_percentile(v, m, 99.0));
		pn_wl_metric(w, "chunk_latency_max_ns", lab[part], pn_percentile(v, m, 100.0));
	}
	free(v);
}

static const struct pn_col counter_cols[] = {
	{ "counter", PN_COL_STR, PN_UNIT_NONE },
	{ "before", PN_COL_INT, PN_UNIT_COUNT },
	{ "after", PN_COL_INT, PN_UNIT_COUNT },
	{ "delta", PN_COL_INT, PN_UNIT_COUNT },
	{ "census_spilled_pages", PN_COL_INT, PN_UNIT_PAGES },
	{ "agree", PN_COL_BOOL, PN_UNIT_NONE },
};

static bool agrees(int64_t delta, uint64_t census)
{
	int64_t diff = delta - (int64_t)census, tol = (int64_t)census / 100;

	return (diff < 0 ? -diff : diff) <= (tol > 16 ? tol : 16);
}

/* Kernel fallback counters beside the census. */
static void report_counters(struct pn_wl *w, const struct exhaust_priv *p, uint64_t spilled)
{
	const struct pn_fallback *b = &p->sh->before, *a = &p->sh->after;
	const struct {
		const char *name;
		int64_t before, after;
	} c[] = {
		{ "pgalloc_private_fallback", b->private_fallback, a->private_fallback },
		{ "numa_private_fallback(policy nodes)", b->node_private_fallback,
		  a->node_private_fallback },
		{ "numa_miss(other nodes)", b->miss_elsewhere, a->miss_elsewhere },
		{ "numa_foreign(policy nodes)", b->foreign_policy, a->foreign_policy },
	};
	int t = pn_res_table(&w->res, "fallback_counters",
			     "kernel counters before and after the allocation, beside the pages "
			     "the census found off the policy's nodes (agree: within max(16, 1%))",
			     counter_cols, PN_ARRAY_SIZE(counter_cols));
	char lab[64];

	for (size_t i = 0; i < PN_ARRAY_SIZE(c); i++) {
		int64_t d = c[i].after - c[i].before;

		if (c[i].before < 0 || c[i].after < 0)
			continue; /* this kernel lacks it */
		snprintf(lab, sizeof(lab), "counter=%s", c[i].name);
		pn_wl_metric(w, "fallback_counter", lab, (double)d);
		if (t >= 0)
			pn_res_table_row(&w->res, t, c[i].name, c[i].before, c[i].after, d,
					 (int64_t)spilled, (int)agrees(d, spilled));
	}
	/* On private nodes the series counts exactly the fallbacks of private
	 * requests, and only this workload makes them. */
	if (p->private_mode && b->private_fallback >= 0 && a->private_fallback >= 0)
		pn_res_check(&w->res, "pgalloc_private_fallback agrees with the census",
			     agrees(a->private_fallback - b->private_fallback, spilled), "workload",
			     "census within max(16, 1%)", "counter %lld, census %llu pages",
			     (long long)(a->private_fallback - b->private_fallback),
			     (unsigned long long)spilled);
}

/* Did a policy node fill (>= 90 % of its free pages taken) before the spill? */
static void check_spill_order(struct pn_wl *w, const struct exhaust_priv *p, size_t spill)
{
	uint64_t before[PN_MAX_NODES] = { 0 };
	double best = 0.0;
	int n, best_node = -1;
	int64_t free_sum = 0;

	pn_nodeset_for_each (n, &p->nodes)
		free_sum += p->sh->before.free_policy[n];
	if (spill >= p->sh->done) {
		/* No spill: fine unless the request could not have fit. */
		if (p->size_bytes / p->page_bytes < (uint64_t)free_sum / 2)
			pn_res_check_eq(&w->res, "no spill while the nodes had room", 0,
					(int64_t)total_spilled(p), "pages");
		return;
	}
	for (size_t i = 0; i < spill; i++)
		for (int k = 0; k < PN_CHUNKREC_SLOTS && p->sh->rec[i].node[k] >= 0; k++)
			before[p->sh->rec[i].node[k]] += p->sh->rec[i].on[k];
	pn_nodeset_for_each (n, &p->nodes) {
		double f = p->sh->before.free_policy[n] > 0
				   ? (double)before[n] / (double)p->sh->before.free_policy[n]
				   : 0.0;

		if (f > best) {
			best = f;
			best_node = n;
		}
	}
	pn_res_check(&w->res, "spill only after a policy node filled", best >= 0.9, "workload",
		     ">= 90% of a node's free pages taken before the first page elsewhere",
		     "node %d: %.1f%% of its %lld free pages before chunk %zu", best_node,
		     best * 100.0,
		     (long long)(best_node >= 0 ? p->sh->before.free_policy[best_node] : 0), spill);
}

/* Everything from the shared records; in_child: also the census. */
static void report(struct pn_wl *w, struct exhaust_priv *p, bool in_child)
{
	struct pn_res *r = &w->res;
	uint64_t *per_node = pn_xcalloc(PN_MAX_NODES, sizeof(*per_node));
	uint64_t pages = 0, unknown = 0, spilled = total_spilled(p);
	size_t spill = pn_chunkrec_first_spill(p->sh->rec, (size_t)p->sh->done, &p->nodes);
	char lab[32];

	for (uint64_t i = 0; i < p->sh->done; i++) {
		pages += p->sh->rec[i].pages;
		unknown += p->sh->rec[i].unknown;
	}
	report_curve(w, p, per_node);
	report_latency(w, p, spill);
	pn_wl_metric(w, "pages_total", NULL, (double)pages);
	pn_wl_metric(w, "spilled_pages", NULL, (double)spilled);
	pn_wl_metric(w, "spill_at_bytes", NULL,
		     spill < p->sh->done ? (double)(spill * p->chunk_bytes) : -1.0);
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!per_node[n])
			continue;
		snprintf(lab, sizeof(lab), "node=%d", n);
		pn_wl_metric(w, "pages_on_node", lab, (double)per_node[n]);
		r->placed_pages[n] = per_node[n];
	}
	report_counters(w, p, spilled);
	/* The census explains the nodes' growth.  A child that died leaves the
	 * chunks it recorded, plus the pages of the chunk it was faulting: for a
	 * strict bind to one node they are on that node (bind never leaves it). */
	r->explicit_pages = pages;
	r->unverified_pages = unknown;
	r->misplaced_pages = spilled;
	r->intended_pages = pages - unknown - spilled;
	r->verified = true;
	if (!in_child && p->sh->inflight) {
		r->explicit_pages += p->sh->inflight;
		if (p->policy == POL_BIND && pn_nodeset_count(&p->nodes) == 1) {
			r->placed_pages[pn_nodeset_next(&p->nodes, -1)] += p->sh->inflight;
			r->intended_pages += p->sh->inflight;
		} else {
			r->unverified_pages += p->sh->inflight;
		}
	}
	if (in_child)
		pn_res_check_eq(r, "every page verified", 0, (int64_t)unknown, "pages");
	if (p->policy == POL_BIND)
		pn_res_check_eq(r, "strict bind: pages off its nodes", 0, (int64_t)spilled,
				"pages");
	else
		check_spill_order(w, p, spill);
	free(per_node);
}

static int exhaust_run(struct pn_wl *w)
{
	struct exhaust_priv *p = w->priv;
	size_t cpages = (size_t)(p->chunk_bytes / p->page_bytes);
	int *status = pn_xcalloc(cpages, sizeof(*status));
	int ret = 0;

	pn_fallback_read(&p->nodes, &p->others, &p->sh->before);
	for (size_t i = 0; i < p->nchunks && !ret; i++) {
		if (pn_wl_should_stop(w))
			break;
		ret = fault_chunk(p, i, status);
	}
	free(status);
	pn_fallback_read(&p->nodes, &p->others, &p->sh->after);
	report(w, p, true);
	p->sh->reported = 1;
	if (!ret && p->sh->done < p->nchunks && pn_should_stop())
		ret = -EINTR;
	return ret;
}

/* Parent: how the child ended.  A strict bind beyond capacity must end in its
 * cgroup (killed, SIGBUS, ENOMEM) or keep every page on its nodes, and nothing
 * outside the cgroup may be OOM-killed. */
static void exhaust_outcome(struct pn_wl *w, const struct pn_outcome *o)
{
	struct exhaust_priv *p = w->priv;
	int64_t kills;
	bool died;

	if (!p || !p->sh)
		return;
	died = o->end == PN_END_OOM_KILL || o->end == PN_END_SIGNAL || o->end == PN_END_LOST;
	if (!p->sh->reported) {
		pn_fallback_read(&p->nodes, &p->others, &p->sh->after);
		report(w, p, false);
		pn_res_note(&w->res,
			    "the child ended (%s) after %llu of %zu chunks and %llu "
			    "page(s) of the next: curve and census from its shared records",
			    pn_end_name(o->end), (unsigned long long)p->sh->done, p->nchunks,
			    (unsigned long long)p->sh->inflight);
	}
	if (p->policy == POL_BIND && (died || p->size_bytes > p->capacity_bytes)) {
		bool ended = died || (o->end == PN_END_ERROR && o->err == -ENOMEM);

		pn_res_check(&w->res,
			     "strict bind beyond capacity (device or memory.max): ended "
			     "in its cgroup, or kept every page on its nodes",
			     ended || !total_spilled(p), "workload",
			     "OOM kill / SIGBUS / ENOMEM, or 0 pages elsewhere",
			     "%s%s%s (signal %d, cgroup oom_kill %lld), %llu pages elsewhere",
			     pn_end_name(o->end), o->detail[0] ? ": " : "", o->detail, o->signal,
			     (long long)o->oom_kills, (unsigned long long)total_spilled(p));
	}
	kills = pn_vmstat_item("oom_kill");
	if (kills >= 0 && p->oom_kill_setup >= 0)
		pn_res_check_le(
			&w->res, "host unharmed: OOM kills outside the workload's cgroup", 0,
			kills - p->oom_kill_setup - (o->oom_kills > 0 ? o->oom_kills : 0), "kills");
}

static void exhaust_teardown(struct pn_wl *w)
{
	struct exhaust_priv *p = w->priv;

	if (!p)
		return;
	for (size_t i = 0; p->addr && i < p->nchunks; i++)
		if (p->addr[i])
			munmap(p->addr[i], (size_t)p->chunk_bytes);
	free(p->addr);
	if (p->sh)
		munmap(p->sh, p->sh_len);
	free(p);
	w->priv = NULL;
}

const struct pn_workload pn_workload_exhaust = {
	.name = "exhaust",
	.summary = "more than a device holds: spill curve, latency before/after, fallback counters",
	.opts = exhaust_opts,
	.explicit_alloc = true, /* its pages on the devices are its policy's */
	.metrics = exhaust_metrics,
	.needs = PN_NEED_NUMA | PN_NEED_NODES,
	.setup = exhaust_setup,
	.run = exhaust_run,
	.outcome = exhaust_outcome,
	.teardown = exhaust_teardown,
};
