// SPDX-License-Identifier: GPL-2.0-only
/*
 * explicit.c - explicit allocations on a node set.
 *
 * Maps `size` bytes in `chunk`-sized anonymous private mappings, gives each
 * an explicit memory policy with mbind(2) (bind, preferred, preferred_many or
 * interleave over `nodes`), writes one byte per page to fault it in, and
 * times every chunk (mmap + mbind + touch).  Then it asks the kernel where
 * every page lives (move_pages(2)) and counts pages outside the intended
 * nodes as misplaced: a preferred policy on a full device legitimately falls
 * back, and that is reported, not hidden.
 *
 * setup() (in the runner) validates and plans; run() (in the workload's own
 * process) maps, touches and verifies.  The memory stays mapped until
 * teardown(), so the runner's after-read of the node counters sees it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include "workloads/lib/faultin.h"
#include "core/api/placement.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"

enum policy { POL_BIND, POL_PREFERRED, POL_PREFERRED_MANY, POL_INTERLEAVE };

static const char *const policy_names[] = {
	"bind", "preferred", "preferred_many", "interleave", NULL,
};

static const int policy_modes[] = {
	MPOL_BIND,
	MPOL_PREFERRED,
	MPOL_PREFERRED_MANY,
	MPOL_INTERLEAVE,
};

static const struct pn_opt explicit_opts[] = {
	{ "size", PN_OPT_SIZE, "64M", "bytes to allocate", NULL, 4096, 1125899906842624.0 },
	{ "chunk", PN_OPT_SIZE, "2M", "bytes per mapping (a multiple of the page size, <= size)",
	  NULL, 4096, 1125899906842624.0 },
	{ "nodes", PN_OPT_NODES, "private", "nodes the policy names", NULL, 0, 0 },
	{ "policy", PN_OPT_ENUM, "bind", "memory policy given with mbind(2)", policy_names, 0, 0 },
	{ "touch", PN_OPT_BOOL, "true", "fault every page in (false: map and bind only)", NULL, 0,
	  0 },
	{ "fault", PN_OPT_ENUM, "populate",
	  "how pages are faulted in: populate (MADV_POPULATE_WRITE, the kernel's floor; writes "
	  "where the kernel lacks it) or write (one write per page: the page-fault path)",
	  pn_fault_names, 0, 0 },
	{ "verify", PN_OPT_BOOL, "true", "check where every page lives (move_pages)", NULL, 0, 0 },
	{ "max_mem_share", PN_OPT_DOUBLE, "0.5",
	  "refuse sizes above this share of MemAvailable, in [0.01, 0.9]", NULL, 0.01, 0.9 },
	{ NULL },
};

static const struct pn_metric_decl explicit_metrics[] = {
	{ "alloc_fault_throughput", PN_UNIT_BYTES_PER_SEC, PN_BETTER_HIGHER, PN_AGG_MEDIAN,
	  "bytes mapped, bound and faulted in per second (mmap + mbind + fault-in)" },
	{ "chunk_latency_p50_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN,
	  "median time to map, bind and fault in one chunk" },
	{ "chunk_latency_p99_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN, NULL },
	{ "chunk_latency_max_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN, NULL },
	{ "pages_total", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST, "pages requested" },
	{ "pages_on_node", PN_UNIT_PAGES, PN_BETTER_NONE, PN_AGG_LAST,
	  "verified pages per node (label node)" },
	{ NULL },
};

struct explicit_priv {
	uint64_t size_bytes, chunk_bytes;
	size_t page_bytes;
	struct pn_nodeset nodes;
	char nodes_str[256];
	enum policy policy;
	bool touch, verify;
	enum pn_fault_mode fault;
	size_t nchunks, nmapped;
	void **addr; /* nchunks mappings, NULL when not mapped */
	size_t *len;
	double *lat_ns; /* per completed chunk */
	unsigned long mask[PN_MAX_NODES / (8 * sizeof(unsigned long))];
};

static int parse_policy(const char *s, enum policy *p)
{
	for (size_t i = 0; policy_names[i]; i++) {
		if (!strcmp(s, policy_names[i])) {
			*p = (enum policy)i;
			return 0;
		}
	}
	return pn_error(-EINVAL,
			"workload explicit: policy \"%s\" is not one of bind, "
			"preferred, preferred_many, interleave",
			s);
}

/* Check the node set against the topology: every node must exist. */
static int check_nodes(const struct pn_wl *w, const struct explicit_priv *p)
{
	char online[256];
	int n;

	if (!w->topo)
		return 0; /* mbind() will tell */
	if (pn_nodeset_format(&w->topo->online, online, sizeof(online)))
		snprintf(online, sizeof(online), "(too many to list)");
	pn_nodeset_for_each (n, &p->nodes) {
		const struct pn_node_info *ni = pn_topology_node(w->topo, n);

		if (!ni)
			return pn_error(-EINVAL,
					"workload explicit: nodes \"%s\": node %d does not "
					"exist on this machine (online nodes: %s)",
					p->nodes_str, n, online);
		/* The kernel drops memoryless nodes from a multi-node policy
		 * without a word; say so rather than measure something else. */
		if (!ni->has_memory && !ni->has_private_memory && pn_nodeset_count(&p->nodes) > 1)
			pn_warn("workload explicit: node %d has no memory; the kernel ignores it "
				"in the %s policy",
				n, pn_param_str(&w->params, "policy"));
	}
	return 0;
}

static int explicit_setup(struct pn_wl *w)
{
	struct explicit_priv *p;
	long psz = sysconf(_SC_PAGESIZE);
	double share = pn_param_double(&w->params, "max_mem_share");
	int ret, n;

	p = pn_xcalloc(1, sizeof(*p));
	w->priv = p;
	p->page_bytes = psz > 0 ? (size_t)psz : 4096;
	p->size_bytes = pn_param_size(&w->params, "size");
	p->chunk_bytes = pn_param_size(&w->params, "chunk");
	p->touch = pn_param_bool(&w->params, "touch");
	p->fault = pn_fault_mode_of(pn_param_str(&w->params, "fault"));
	p->verify = pn_param_bool(&w->params, "verify");
	snprintf(p->nodes_str, sizeof(p->nodes_str), "%s", pn_param_str(&w->params, "nodes"));

	ret = parse_policy(pn_param_str(&w->params, "policy"), &p->policy);
	if (ret)
		return ret;
	if (!(share > 0.0 && share <= 0.9))
		return pn_error(-EINVAL, "workload explicit: max_mem_share %g is outside (0, 0.9]",
				share);
	/* The suite's limit bounds every workload, whatever its own option says. */
	if (w->max_mem_share > 0.0 && w->max_mem_share < share)
		share = w->max_mem_share;
	if (!p->size_bytes || !p->chunk_bytes)
		return pn_error(-EINVAL, "workload explicit: size and chunk must be non-zero");
	if (p->chunk_bytes % p->page_bytes)
		return pn_error(-EINVAL,
				"workload explicit: chunk %llu bytes is not a multiple "
				"of the page size (%zu bytes)",
				(unsigned long long)p->chunk_bytes, p->page_bytes);
	if (p->chunk_bytes > p->size_bytes)
		return pn_error(-EINVAL,
				"workload explicit: chunk (%llu bytes) is larger than "
				"size (%llu bytes)",
				(unsigned long long)p->chunk_bytes,
				(unsigned long long)p->size_bytes);
	/* Whole pages only. */
	p->size_bytes = (p->size_bytes + p->page_bytes - 1) / p->page_bytes * p->page_bytes;

	ret = pn_param_nodes(&w->params, "nodes", w->roles, &p->nodes);
	if (ret)
		return pn_error(
			ret, "workload explicit: nodes \"%s\" resolves to no node%s", p->nodes_str,
			!strcmp(p->nodes_str, "private")
				? " (the config names no private nodes and the kernel reports none)"
				: "");
	ret = check_nodes(w, p);
	if (ret)
		return ret;
	if (p->policy == POL_PREFERRED_MANY && !numa_has_preferred_many())
		return pn_error(-EOPNOTSUPP,
				"workload explicit: policy preferred_many needs "
				"MPOL_PREFERRED_MANY (Linux 5.15+), which this kernel lacks");

	ret = pn_mem_guard(p->size_bytes, share, "workload explicit: size");
	if (ret)
		return ret;
	w->mem_bytes = p->size_bytes;

	/* preferred names one node: the first of the set. */
	pn_nodeset_for_each (n, &p->nodes) {
		p->mask[n / (8 * sizeof(unsigned long))] |= 1UL
							    << (n % (8 * sizeof(unsigned long)));
		if (p->policy == POL_PREFERRED)
			break;
	}

	p->nchunks = (size_t)((p->size_bytes + p->chunk_bytes - 1) / p->chunk_bytes);
	p->addr = pn_xcalloc(p->nchunks, sizeof(*p->addr));
	p->len = pn_xcalloc(p->nchunks, sizeof(*p->len));
	p->lat_ns = pn_xcalloc(p->nchunks, sizeof(*p->lat_ns));
	return 0;
}

/* A hint for an mbind() failure, from what the topology knows of the nodes. */
static void mbind_hint(const struct pn_wl *w, const struct explicit_priv *p, char *buf, size_t len)
{
	int n;

	buf[0] = '\0';
	if (!w->topo)
		return;
	pn_nodeset_for_each (n, &p->nodes) {
		const struct pn_node_info *ni = pn_topology_node(w->topo, n);

		if (!ni) {
			snprintf(buf, len, "; node %d does not exist", n);
			return;
		}
		if (ni->has_private_memory && !ni->has_memory) {
			snprintf(buf, len,
				 "; node %d is a private memory node: the kernel refuses "
				 "policies on it unless the caller opted in",
				 n);
			return;
		}
		if (!ni->has_memory) {
			snprintf(buf, len, "; node %d has no memory", n);
			return;
		}
	}
}

static int map_chunk(struct pn_wl *w, struct explicit_priv *p, size_t i)
{
	uint64_t off = (uint64_t)i * p->chunk_bytes;
	size_t len = (size_t)(p->size_bytes - off < p->chunk_bytes ? p->size_bytes - off
								   : p->chunk_bytes);
	char hint[160];
	void *a;

	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return pn_error(-errno, "workload explicit: mmap of chunk %zu (%zu bytes): %s", i,
				len, strerror(errno));
	if (mbind(a, len, policy_modes[p->policy], p->mask, PN_MAX_NODES + 1, 0)) {
		int err = errno;

		munmap(a, len);
		mbind_hint(w, p, hint, sizeof(hint));
		return pn_error(-err,
				"workload explicit: mbind(policy %s, nodes %s) failed: %s "
				"(errno %d)%s",
				policy_names[p->policy], p->nodes_str, strerror(err), err, hint);
	}
	p->addr[i] = a;
	p->len[i] = len;
	p->nmapped++;
	if (p->touch) {
		int err = pn_fault_in(a, len, p->page_bytes, &p->fault);

		if (err)
			return pn_error(err,
					"workload explicit: fault-in of chunk %zu (%s, policy %s, "
					"nodes %s): %s",
					i, pn_fault_desc(p->fault), policy_names[p->policy],
					p->nodes_str, strerror(-err));
	}
	return 0;
}

static void report(struct pn_wl *w, struct explicit_priv *p, uint64_t bytes, uint64_t total_ns,
		   size_t done)
{
	struct pn_res *r = &w->res;
	char lab[32];

	pn_wl_metric(w, "alloc_fault_throughput", NULL,
		     total_ns ? (double)bytes * 1e9 / (double)total_ns : 0.0);
	if (done) {
		pn_wl_metric(w, "chunk_latency_max_ns", NULL,
			     pn_percentile(p->lat_ns, done, 100.0));
		pn_wl_metric(w, "chunk_latency_p50_ns", NULL, pn_percentile(p->lat_ns, done, 50.0));
		pn_wl_metric(w, "chunk_latency_p99_ns", NULL, pn_percentile(p->lat_ns, done, 99.0));
	}
	pn_wl_metric(w, "pages_total", NULL, (double)r->explicit_pages);
	for (int n = 0; n < PN_MAX_NODES; n++) {
		if (!r->placed_pages[n])
			continue;
		snprintf(lab, sizeof(lab), "node=%d", n);
		pn_wl_metric(w, "pages_on_node", lab, (double)r->placed_pages[n]);
	}
	if (!p->verify || !p->touch || !done)
		return;
	/* Every faulted page is accounted for; bind never leaves its nodes. */
	pn_res_check_eq(r, "every page verified", (int64_t)r->explicit_pages,
			(int64_t)(r->intended_pages + r->misplaced_pages), "pages");
	if (p->policy == POL_BIND || p->policy == POL_INTERLEAVE)
		pn_res_check_eq(r, "pages outside the policy's nodes", 0,
				(int64_t)r->misplaced_pages, "pages");
}

static int explicit_run(struct pn_wl *w)
{
	struct explicit_priv *p = w->priv;
	struct pn_res *r = &w->res;
	uint64_t total_ns = 0, bytes = 0;
	size_t done = 0;
	int ret = 0;

	for (size_t i = 0; i < p->nchunks; i++) {
		uint64_t t0;

		if (pn_wl_should_stop(w))
			break;
		t0 = pn_now_ns();
		ret = map_chunk(w, p, i);
		if (ret)
			break;
		p->lat_ns[done] = (double)(pn_now_ns() - t0);
		total_ns += (uint64_t)p->lat_ns[done];
		bytes += p->len[i];
		done++;
	}

	r->explicit_pages = bytes / p->page_bytes;
	if (p->verify && done) {
		for (size_t i = 0; i < p->nchunks; i++) {
			int vret;

			if (!p->addr[i])
				continue;
			vret = pn_placement_verify(p->addr[i], p->len[i], &p->nodes, r);
			if (vret) {
				ret = ret ? ret : vret;
				break;
			}
		}
	}

	report(w, p, bytes, total_ns, done);

	if (r->misplaced_pages)
		pn_res_note(r, "policy %s: %llu of %llu verified page(s) outside nodes %s%s",
			    policy_names[p->policy], (unsigned long long)r->misplaced_pages,
			    (unsigned long long)r->intended_pages +
				    (unsigned long long)r->misplaced_pages,
			    p->nodes_str,
			    p->policy == POL_PREFERRED || p->policy == POL_PREFERRED_MANY
				    ? " (preferred falls back when the node is full)"
				    : "");
	if (p->touch)
		pn_res_note(r, "fault-in: %s", pn_fault_desc(p->fault));
	else
		pn_res_note(r,
			    "touch=false: %llu page(s) were never faulted in, placement "
			    "unverified",
			    (unsigned long long)r->explicit_pages);
	if (done < p->nchunks && !ret) {
		pn_res_note(r, "stopped after %zu of %zu chunks", done, p->nchunks);
		/* A signal is an interrupted run; the runner ending a background
		 * workload is its normal end. */
		if (pn_should_stop())
			ret = -EINTR;
	}
	return ret;
}

static void explicit_teardown(struct pn_wl *w)
{
	struct explicit_priv *p = w->priv;

	if (!p)
		return;
	for (size_t i = 0; p->addr && i < p->nchunks; i++)
		if (p->addr[i])
			munmap(p->addr[i], p->len[i]);
	free(p->addr);
	free(p->len);
	free(p->lat_ns);
	free(p);
	w->priv = NULL;
}

const struct pn_workload pn_workload_explicit = {
	.name = "explicit",
	.summary = "explicit mbind() allocations on a node set, page placement verified",
	.opts = explicit_opts,
	.metrics = explicit_metrics,
	.explicit_alloc = true,
	.needs = PN_NEED_NUMA | PN_NEED_NODES,
	.setup = explicit_setup,
	.run = explicit_run,
	.teardown = explicit_teardown,
};
