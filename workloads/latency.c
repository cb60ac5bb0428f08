// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency.c - what vendors publish: idle load-to-use latency, bandwidth and
 * loaded latency from every CPU node to every memory node, private nodes
 * included, beside what the firmware declares (HMAT via sysfs and hwloc).
 *
 * Method (multichase, Intel MLC, MICRO'23): workloads/lib/chase.h, pinned to the
 * initiator's first CPU, buffers MPOL_BIND to the target with huge pages
 * (workloads/lib/nodebuf.h); bandwidth kernels with 1..N pinned threads
 * (workloads/lib/membw.h), the loaded-latency curve with 1..N-1 load threads and
 * MLC's injection delays (workloads/lib/latload.h); declared values from
 * core/sys/hmat.h.  A 16 KiB chase is each initiator's L1 reference.  Every
 * buffer stays mapped until teardown and is in the page census: the runner
 * explains growth at the phase's peak with the census at the end.  The
 * statistics, and why idle figures move on a shared host: docs/benchmarks.md.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numa.h>

#include "workloads/lib/chase.h"
#include "core/sys/hmat.h"
#include "core/sys/knob.h"
#include "workloads/lib/latload.h"
#include "workloads/lib/membw.h"
#include "workloads/lib/nodebuf.h"
#include "core/api/placement.h"
#include "core/sys/topology.h"
#include "core/sys/virt.h"
#include "core/api/workload.h"

#define L1_REF_BYTES (16UL << 10)
#define MAX_CPUS     1024

static const char *const huge_names[] = { "none", "auto", "thp", "hugetlb", NULL };

static const struct pn_opt latency_opts[] = {
	{ "initiators", PN_OPT_STRING, "cpus",
	  "CPU nodes to measure from: \"cpus\" (every node with CPUs) or a node list", NULL, 0, 0 },
	{ "targets", PN_OPT_NODES, "all", "memory nodes to measure", NULL, 0, 0 },
	{ "size", PN_OPT_SIZE, "0", "chase bytes per target; 0 = max(4x LLC, 64M)", NULL, 0, 1e15 },
	{ "stride", PN_OPT_INT, "256", "bytes between chase elements, 2^k", NULL, 128, 4096 },
	{ "window_pages", PN_OPT_INT, "64", "4 KiB pages per random window", NULL, 64, 65536 },
	{ "samples", PN_OPT_INT, "11", "chase samples; the first is dropped", NULL, 6, 10000 },
	{ "sample_ms", PN_OPT_DURATION, "20ms", "length of one chase sample", NULL, 1, 10000 },
	{ "huge", PN_OPT_ENUM, "auto", "huge pages: auto, thp, hugetlb or none", huge_names, 0, 0 },
	{ "bandwidth", PN_OPT_BOOL, "true", "measure the bandwidth kernels", NULL, 0, 0 },
	{ "bw_kernels", PN_OPT_STRING, "read,write,write_nt,copy,triad",
	  "comma list of read, write, write_nt, copy, triad", NULL, 0, 0 },
	{ "bw_threads", PN_OPT_STRING, "all",
	  "thread counts: \"all\" (1, 2, 4, ... CPUs of the initiator) or a list \"1,3\"", NULL, 0,
	  0 },
	{ "bw_size", PN_OPT_SIZE, "0", "bytes per bandwidth array; 0 = as size", NULL, 0, 1e15 },
	{ "bw_ms", PN_OPT_DURATION, "300ms", "one bandwidth measurement", NULL, 10, 600000 },
	{ "loaded", PN_OPT_BOOL, "true", "the loaded-latency curve", NULL, 0, 0 },
	{ "load_kernel", PN_OPT_STRING, "read", "kernel of the load threads", NULL, 0, 0 },
	{ "delays", PN_OPT_STRING, "0,50,100,200,500,1000,2500,5000,20000",
	  "injection delays of the loaded curve (MLC -d): spins of about a cycle after every "
	  "64-byte line of each load thread; 0 = full load with 1, 2, 4, ... threads",
	  NULL, 0, 0 },
	{ "theoretical_gbps", PN_OPT_STRING, "",
	  "peak bandwidth per target, \"0=38.4,2=19.2\" (GB/s), for the share column", NULL, 0, 0 },
	{ "seed", PN_OPT_INT, "1", "permutation seed", NULL, 0, 2147483647.0 },
	{ NULL },
};

static const struct pn_metric_decl latency_metrics[] = {
	{ "idle_latency_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN,
	  "median of the chase samples, ns per hop (labels src, dst); other memory traffic "
	  "on the host raises it, see idle_latency_min_ns" },
	{ "idle_latency_min_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MIN,
	  "best sample: google/multichase's figure, the least disturbed by other tenants" },
	{ "idle_latency_mean_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN,
	  "mean of the samples: Intel MLC's idle latency and multichase -a" },
	{ "idle_latency_p99_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN, NULL },
	{ "latency_ratio_to_local", PN_UNIT_RATIO, PN_BETTER_LOWER, PN_AGG_MEDIAN,
	  "median latency over the initiator's local DRAM" },
	{ "l1_latency_ns", PN_UNIT_NS, PN_BETTER_NONE, PN_AGG_MEDIAN,
	  "16 KiB chase on the initiator's CPU (label src)" },
	{ "bandwidth", PN_UNIT_BYTES_PER_SEC, PN_BETTER_HIGHER, PN_AGG_MEDIAN,
	  "labels src, dst, kernel, threads" },
	{ "loaded_latency_ns", PN_UNIT_NS, PN_BETTER_LOWER, PN_AGG_MEDIAN,
	  "median chase latency with load threads (labels src, dst, load_threads, delay); "
	  "load_threads 0 is the idle measurement" },
	{ NULL },
};

struct lat_init {
	int node, ncpus, cpus[MAX_CPUS];
	double l1_ns;
};

struct lat_cell {
	struct pn_lat_stats idle;
	bool measured;
};

struct lat_priv {
	uint64_t chase_bytes, bw_bytes, sample_ms, bw_ms, seed;
	size_t stride, window_bytes;
	int samples, nthr_list, thr_list[64];
	enum pn_huge huge;
	bool bandwidth, loaded, kernels[PN_BW_NKINDS];
	struct pn_latload load;		/* the loaded curve's settings */
	double theo_gbps[PN_MAX_NODES]; /* 0 = not given */
	int ninit, ntarget;
	struct lat_init *init;
	int *targets;
	struct pn_nodebuf *bufs; /* per target: chase + 3 bandwidth arrays, until teardown */
	struct lat_cell *cells;	 /* ninit x ntarget */
	struct pn_virt virt;
	int t_matrix, t_bw;
};

static int latency_supported(const struct pn_env *env, char *why, size_t whylen)
{
	if (numa_available() < 0) {
		snprintf(why, whylen, "NUMA is not available here (numa_available() < 0)");
		return -EOPNOTSUPP;
	}
	if (env && env->topo && pn_nodeset_empty(&env->topo->with_cpu)) {
		snprintf(why, whylen, "no node has CPUs to measure from");
		return -ENODEV;
	}
	return 0;
}

/* Initiators: nodes with CPUs (or the given list), with their CPU lists. */
static int plan_initiators(struct pn_wl *w, struct lat_priv *p)
{
	const char *s = pn_param_str(&w->params, "initiators");
	struct pn_nodeset set;
	int n, i = 0;

	if (!strcmp(s, "cpus"))
		set = w->topo->with_cpu;
	else if (pn_nodeset_parse(&set, s) || pn_nodeset_empty(&set))
		return pn_error(
			-EINVAL,
			"workload latency: initiators \"%s\" is not \"cpus\" or a node list", s);
	p->init = pn_xcalloc((size_t)pn_nodeset_count(&set), sizeof(*p->init));
	pn_nodeset_for_each (n, &set) {
		const struct pn_node_info *ni = pn_topology_node(w->topo, n);
		struct lat_init *li = &p->init[i];

		if (!ni || ni->ncpus <= 0)
			return pn_error(
				-EINVAL,
				"workload latency: initiator node %d does not exist or has no CPUs",
				n);
		li->node = n;
		li->ncpus = pn_cpulist_parse(ni->cpulist, li->cpus, MAX_CPUS);
		if (li->ncpus <= 0)
			return pn_error(-EINVAL, "workload latency: node %d: cpu list \"%s\"", n,
					ni->cpulist);
		i++;
	}
	p->ninit = i;
	return 0;
}

/* A private node serves the buffers only after its mempolicy opt-in (the
 * reference series): held on for the phase as a knob, restored after it. */
static int optin(struct pn_wl *w, int n)
{
	char key[48], path[PATH_MAX], why[256];

	snprintf(key, sizeof(key), "private_node.%d.mempolicy", n);
	if (pn_knob_path(key, path, sizeof(path), why, sizeof(why)) || !pn_exists(path))
		return 0; /* a kernel without the series' opt-in file */
	return pn_wl_knob(w, key, "1");
}

static int plan_targets(struct pn_wl *w, struct lat_priv *p)
{
	struct pn_nodeset set;
	int n, i = 0, ret = pn_param_nodes(&w->params, "targets", w->roles, &set);

	if (ret)
		return pn_error(ret, "workload latency: targets resolve to no node");
	p->targets = pn_xcalloc((size_t)pn_nodeset_count(&set), sizeof(int));
	pn_nodeset_for_each (n, &set) {
		const struct pn_node_info *ni = pn_topology_node(w->topo, n);

		if (!ni || !(ni->has_memory || ni->has_private_memory))
			return pn_error(
				-EINVAL,
				"workload latency: target node %d does not exist or has no memory",
				n);
		p->targets[i++] = n;
		if (ni->has_private_memory && (ret = optin(w, n)))
			return ret;
	}
	p->ntarget = i;
	return 0;
}

static int plan_sizes(struct pn_wl *w, struct lat_priv *p)
{
	uint64_t llc = 32ULL << 20, need, dflt;
	int ret;

	if (pn_llc_bytes(p->init[0].cpus[0], &llc))
		pn_warn("workload latency: LLC size unknown; assuming 32 MiB");
	dflt = 4 * llc > (64ULL << 20) ? 4 * llc : 64ULL << 20; /* 0 = this default */
	p->chase_bytes = pn_param_size(&w->params, "size") ?: dflt;
	p->bw_bytes = pn_param_size(&w->params, "bw_size") ?: dflt;
	p->load.bytes = p->bw_bytes;
	if (p->chase_bytes < 4 * llc)
		pn_warn("workload latency: size %llu is below 4x the LLC (%llu): cache hits "
			"will lower the figures",
			(unsigned long long)p->chase_bytes, (unsigned long long)llc);
	need = (p->chase_bytes + (p->bandwidth || p->loaded ? 3 : 0) * p->bw_bytes) *
	       (uint64_t)p->ntarget;
	ret = pn_mem_guard(need, w->max_mem_share > 0 ? w->max_mem_share : 0.5,
			   "workload latency: buffers");
	if (ret)
		return ret;
	w->mem_bytes = need;
	return 0;
}

static int latency_setup(struct pn_wl *w)
{
	struct lat_priv *p = pn_xcalloc(1, sizeof(*p));
	const char *thr = pn_param_str(&w->params, "bw_threads");
	int ret;

	w->priv = p;
	p->stride = (size_t)pn_param_int(&w->params, "stride");
	if (p->stride & (p->stride - 1))
		return pn_error(-EINVAL, "workload latency: stride %zu is not a power of two",
				p->stride);
	p->window_bytes = (size_t)pn_param_int(&w->params, "window_pages") * 4096;
	p->samples = (int)pn_param_int(&w->params, "samples");
	p->sample_ms = pn_param_duration_ms(&w->params, "sample_ms");
	p->load.samples = (size_t)p->samples;
	p->load.sample_ms = p->sample_ms;
	p->bw_ms = pn_param_duration_ms(&w->params, "bw_ms");
	p->seed = (uint64_t)pn_param_int(&w->params, "seed");
	for (int i = 0; huge_names[i]; i++) /* an enum: resolve_params checked it */
		if (!strcmp(pn_param_str(&w->params, "huge"), huge_names[i]))
			p->huge = (enum pn_huge)i;
	p->bandwidth = pn_param_bool(&w->params, "bandwidth");
	p->loaded = pn_param_bool(&w->params, "loaded");
	if (pn_bw_kinds_parse(pn_param_str(&w->params, "bw_kernels"), p->kernels))
		return pn_error(-EINVAL,
				"workload latency: bw_kernels \"%s\" is not a list of "
				"read, write, write_nt, copy, triad",
				pn_param_str(&w->params, "bw_kernels"));
	if (pn_node_values_parse(pn_param_str(&w->params, "theoretical_gbps"), p->theo_gbps))
		return pn_error(-EINVAL,
				"workload latency: theoretical_gbps \"%s\" is not NODE=GB/s[,...]",
				pn_param_str(&w->params, "theoretical_gbps"));
	if (pn_bw_kind_parse(pn_param_str(&w->params, "load_kernel"), &p->load.kind))
		return pn_error(-EINVAL, "workload latency: load_kernel \"%s\" is not a kernel",
				pn_param_str(&w->params, "load_kernel"));
	p->load.ndelays = pn_latload_delays_parse(pn_param_str(&w->params, "delays"),
						  p->load.delays, PN_LATLOAD_MAX_DELAYS);
	if (p->load.ndelays < 0)
		return pn_error(-EINVAL,
				"workload latency: delays \"%s\" is not a list of at most %d "
				"spin counts 0..10000000",
				pn_param_str(&w->params, "delays"), PN_LATLOAD_MAX_DELAYS);
	if (strcmp(thr, "all") != 0) {
		p->nthr_list = pn_cpulist_parse(thr, p->thr_list, (int)PN_ARRAY_SIZE(p->thr_list));
		if (p->nthr_list <= 0 || p->thr_list[0] < 1)
			return pn_error(-EINVAL,
					"workload latency: bw_threads \"%s\" is not \"all\" or a "
					"list of counts >= 1",
					thr);
	}
	if ((ret = plan_initiators(w, p)) || (ret = plan_targets(w, p)))
		return ret;
	return plan_sizes(w, p);
}

/* Bandwidth thread counts: the config's list, else 1, 2, 4, ... CPUs. */
static int bw_counts(const struct lat_priv *p, int max, int *v)
{
	int k = 0;

	for (int t = 0; t < p->nthr_list; t++)
		if (p->thr_list[t] <= max)
			v[k++] = p->thr_list[t];
	return p->nthr_list ? k : pn_count_steps(1, max, v, 64);
}

static int measure_bw(struct pn_wl *w, struct lat_priv *p, struct lat_init *li, int target,
		      struct pn_nodebuf *arr)
{
	int counts[64], nc = bw_counts(p, li->ncpus, counts);

	for (int k = 0; k < PN_BW_NKINDS; k++) {
		for (int t = 0; p->kernels[k] && t < nc && !pn_wl_should_stop(w); t++) {
			int n = counts[t];
			struct pn_bw_job j = { .kind = (enum pn_bw_kind)k,
					       .bytes = p->bw_bytes,
					       .nthreads = n,
					       .cpus = li->cpus,
					       .arr = { arr[0].addr, arr[1].addr, arr[2].addr } };
			struct pn_bw_result r;
			char lab[96];
			double gbps, share;
			int ret;

			ret = pn_bw_measure(&j, p->bw_ms, &r);
			if (ret)
				return pn_error(ret, "workload latency: %s bandwidth: %s",
						pn_bw_kind_name((enum pn_bw_kind)k),
						strerror(-ret));
			gbps = r.bytes_per_sec / 1e9;
			share = p->theo_gbps[target] > 0 ? 100.0 * gbps / p->theo_gbps[target]
							 : NAN;
			snprintf(lab, sizeof(lab), "src=%d,dst=%d,kernel=%s,threads=%d", li->node,
				 target, pn_bw_kind_name((enum pn_bw_kind)k), n);
			pn_wl_metric(w, "bandwidth", lab, r.bytes_per_sec);
			pn_res_table_row(&w->res, p->t_bw, (int64_t)li->node, (int64_t)target,
					 pn_bw_kind_name((enum pn_bw_kind)k), (int64_t)n, gbps,
					 p->theo_gbps[target] > 0 ? p->theo_gbps[target] : NAN,
					 share, k != PN_BW_WRITE_NT || pn_bw_nt_native());
		}
	}
	return 0;
}

/* Map a buffer on the target, verify it page by page, add it to the census
 * (it stays mapped until teardown: the runner explains node growth with it,
 * at the phase's peak too). */
static int take(struct pn_wl *w, const struct lat_priv *p, struct pn_nodebuf *b, int target,
		uint64_t bytes)
{
	struct pn_nodeset one;
	int ret = pn_nodebuf_alloc(b, target, bytes, p->huge);

	if (ret)
		return ret;
	pn_nodeset_zero(&one);
	pn_nodeset_set(&one, target);
	w->res.explicit_pages += b->bytes / 4096;
	ret = pn_nodebuf_verify(b);
	return ret ? ret : pn_placement_verify(b->addr, b->bytes, &one, &w->res);
}

/* Everything measured against one target, from every initiator. */
static int measure_target(struct pn_wl *w, struct lat_priv *p, int j)
{
	struct pn_nodebuf *cb = &p->bufs[4 * (size_t)j], *arr = cb + 1;
	int target = p->targets[j], ret = take(w, p, cb, target, p->chase_bytes);
	struct pn_chase c;

	if (!ret)
		ret = pn_chase_build(&c, cb->addr, cb->bytes, p->stride, p->window_bytes,
				     p->seed + (uint64_t)j);
	for (int a = 0; !ret && (p->bandwidth || p->loaded) && a < 3; a++)
		ret = take(w, p, &arr[a], target, p->bw_bytes);
	for (int i = 0; !ret && i < p->ninit && !pn_wl_should_stop(w); i++) {
		struct lat_init *li = &p->init[i];
		struct lat_cell *cell = &p->cells[(size_t)i * (size_t)p->ntarget + (size_t)j];
		struct pn_latload_at at = { .src = li->node,
					    .dst = target,
					    .cpus = li->cpus,
					    .ncpus = li->ncpus,
					    .idle = &cell->idle,
					    .arr = { arr[0].addr, arr[1].addr, arr[2].addr } };

		if (!li->ncpus || (ret = pn_pin_thread(li->cpus[0])))
			continue;
		ret = pn_chase_measure(&c, (size_t)p->samples, p->sample_ms, &cell->idle);
		cell->measured = !ret;
		if (!ret && p->bandwidth)
			ret = measure_bw(w, p, li, target, arr);
		if (!ret && p->loaded)
			ret = pn_latload_curve(w, &c, &p->load, &at);
	}
	return ret;
}

/* The initiator's local DRAM: itself when it is a measured non-private
 * target, else the fastest measured DRAM-role target; NULL if none. */
static const struct lat_cell *local_cell(const struct pn_wl *w, const struct lat_priv *p, int i)
{
	const struct lat_cell *best = NULL;

	for (int j = 0; j < p->ntarget; j++) {
		const struct lat_cell *c = &p->cells[(size_t)i * (size_t)p->ntarget + (size_t)j];
		int t = p->targets[j];

		if (!c->measured || pn_nodeset_test(&w->roles->private_nodes, t))
			continue;
		if (t == p->init[i].node)
			return c;
		if (!best || c->idle.median_ns < best->idle.median_ns)
			best = c;
	}
	return best;
}

static const struct pn_col matrix_cols[] = {
	{ "initiator", PN_COL_INT, PN_UNIT_NONE },
	{ "target", PN_COL_INT, PN_UNIT_NONE },
	{ "role", PN_COL_STR, PN_UNIT_NONE },
	{ "latency_min", PN_COL_NUM, PN_UNIT_NS },
	{ "latency_median", PN_COL_NUM, PN_UNIT_NS },
	{ "latency_mean", PN_COL_NUM, PN_UNIT_NS },
	{ "latency_p99", PN_COL_NUM, PN_UNIT_NS },
	{ "declared_latency", PN_COL_NUM, PN_UNIT_NS },
	{ "declared_source", PN_COL_STR, PN_UNIT_NONE },
	{ "access0_read_latency", PN_COL_NUM, PN_UNIT_NS },
	{ "access1_read_latency", PN_COL_NUM, PN_UNIT_NS },
	{ "hwloc_read_latency", PN_COL_NUM, PN_UNIT_NS },
	{ "declared_read_bandwidth_mibps", PN_COL_NUM, PN_UNIT_NONE },
	{ "ratio_to_local", PN_COL_NUM, PN_UNIT_RATIO },
	{ "class", PN_COL_STR, PN_UNIT_NONE },
	{ "huge_pages", PN_COL_STR, PN_UNIT_NONE },
	{ "l1_reference", PN_COL_NUM, PN_UNIT_NS },
	{ "virtualization", PN_COL_STR, PN_UNIT_NONE },
};

static double or_nan(uint64_t v)
{
	return v ? (double)v : NAN;
}

static void matrix_row(struct pn_wl *w, struct lat_priv *p, const struct pn_hmat_table *h, int t,
		       int i, int j)
{
	const struct lat_cell *c = &p->cells[(size_t)i * (size_t)p->ntarget + (size_t)j],
			      *loc = local_cell(w, p, i);
	const struct pn_hmat_cell *hc = pn_hmat_cell(h, p->init[i].node, p->targets[j]);
	static const struct pn_hmat_cell none;
	const char *src = "", *bsrc = "", *cls;
	bool priv = pn_nodeset_test(&w->roles->private_nodes, p->targets[j]);
	double ratio = loc ? c->idle.median_ns / loc->idle.median_ns : NAN;
	uint64_t decl, dbw;
	char lab[48], huge[48];

	if (!hc)
		hc = &none;
	/* The CXL/FPGA classes are for device nodes; another DRAM node is remote DRAM. */
	pn_nodebuf_describe(&p->bufs[4 * (size_t)j], huge, sizeof(huge)); /* THP: how much */
	cls = pn_latency_class(ratio, c == loc, p->virt.kind == PN_VIRT_EMULATED);
	if (!priv && c != loc && p->virt.kind != PN_VIRT_EMULATED)
		cls = "remote DRAM";
	decl = pn_hmat_read_latency(hc, &src);
	dbw = pn_hmat_read_bandwidth(hc, &bsrc);
	snprintf(lab, sizeof(lab), "src=%d,dst=%d", p->init[i].node, p->targets[j]);
	pn_wl_metric(w, "idle_latency_ns", lab, c->idle.median_ns);
	pn_wl_metric(w, "idle_latency_min_ns", lab, c->idle.min_ns);
	pn_wl_metric(w, "idle_latency_mean_ns", lab, c->idle.mean_ns);
	if (pn_lat_disturbed(&c->idle))
		pn_res_note(&w->res,
			    "%s: median %.1f ns is %.2fx the best sample %.1f ns: other memory "
			    "traffic on the host disturbed the chase; compare best samples "
			    "(idle_latency_min_ns) or rerun on a quiet host",
			    lab, c->idle.median_ns, c->idle.median_ns / c->idle.min_ns,
			    c->idle.min_ns);
	pn_wl_metric(w, "idle_latency_p99_ns", lab, c->idle.p99_ns);
	if (!isnan(ratio))
		pn_wl_metric(w, "latency_ratio_to_local", lab, ratio);
	pn_res_table_row(&w->res, t, (int64_t)p->init[i].node, (int64_t)p->targets[j],
			 priv ? "private" : "dram", c->idle.min_ns, c->idle.median_ns,
			 c->idle.mean_ns, c->idle.p99_ns, or_nan(decl), *src ? src : "not declared",
			 or_nan(hc->sysfs[0].read_latency_ns), or_nan(hc->sysfs[1].read_latency_ns),
			 or_nan(hc->hwloc[PN_HW_READ_LATENCY] ? hc->hwloc[PN_HW_READ_LATENCY]
							      : hc->hwloc[PN_HW_LATENCY]),
			 or_nan(dbw), ratio, cls, huge, p->init[i].l1_ns,
			 pn_virt_kind_name(p->virt.kind));
	if (p->virt.kind != PN_VIRT_EMULATED && p->init[i].l1_ns > 0)
		pn_res_check(&w->res, "chase reaches memory",
			     c->idle.median_ns > 2 * p->init[i].l1_ns, "workload",
			     "> 2x the 16 KiB chase", "%s: %.1f ns vs %.1f ns", lab,
			     c->idle.median_ns, p->init[i].l1_ns);
}

static void report(struct pn_wl *w, struct lat_priv *p)
{
	struct pn_hmat_table h;
	int t = p->t_matrix;

	if (pn_hmat_load(w->topo, &h))
		memset(&h, 0, sizeof(h));
	for (int i = 0; t >= 0 && i < p->ninit; i++)
		for (int j = 0; j < p->ntarget; j++)
			if (p->cells[(size_t)i * (size_t)p->ntarget + (size_t)j].measured)
				matrix_row(w, p, &h, t, i, j);
	for (int j = 0; j < p->ntarget; j++) {
		char name[64];
		int64_t off = 0;

		for (int b = 4 * j; b < 4 * j + 4; b++)
			off += (int64_t)(p->bufs[b].pages_elsewhere + p->bufs[b].pages_unverified);
		snprintf(name, sizeof(name), "buffers on node %d", p->targets[j]);
		pn_res_check_eq(&w->res, name, 0, off, "pages elsewhere");
	}
	pn_hmat_free(&h);
}

static void make_tables(struct pn_wl *w, struct lat_priv *p)
{
	p->t_matrix = pn_res_table(&w->res, "latency_matrix",
				   "idle load-to-use latency, initiator x target, beside the HMAT "
				   "declared value and the ratio to the initiator's local DRAM",
				   matrix_cols, PN_ARRAY_SIZE(matrix_cols));
	p->t_bw = p->bandwidth ? pn_latload_bw_table(w) : -1;
	p->load.table = p->loaded ? pn_latload_table(w) : -1;
}

static void notes(struct pn_wl *w, struct lat_priv *p)
{
	char thp[32], pf[128];

	pn_thp_mode(thp, sizeof(thp));
	pn_prefetch_state(p->init[0].ncpus ? p->init[0].cpus[0] : 0, pf, sizeof(pf));
	pn_res_note(&w->res, "hardware prefetchers: %s", pf);
	pn_res_note(&w->res, "virtualization: %s (%s)%s", pn_virt_kind_name(p->virt.kind),
		    *p->virt.evidence ? p->virt.evidence : "no evidence",
		    p->virt.kind == PN_VIRT_EMULATED
			    ? ": latency and bandwidth figures are meaningless here (every access "
			      "is emulated); only placement is asserted"
		    : p->virt.kind == PN_VIRT_HYPERVISOR
			    ? ": a guest; figures include the hypervisor's memory virtualization"
			    : "");
	pn_res_note(&w->res,
		    "chase: %llu bytes per target, stride %zu, windows of %zu pages, %d samples "
		    "(first dropped), CLOCK_MONOTONIC_RAW, huge pages asked: %s (THP mode [%s])",
		    (unsigned long long)p->chase_bytes, p->stride, p->window_bytes / 4096,
		    p->samples, pn_huge_name(p->huge), thp);
	if (p->kernels[PN_BW_WRITE_NT] && !pn_bw_nt_native())
		pn_res_note(&w->res, "write_nt uses regular stores on this architecture");
}

static int latency_run(struct pn_wl *w)
{
	struct lat_priv *p = w->priv;
	int ret = 0;

	pn_virt_detect(&p->virt, !*pn_sysroot());
	for (int i = 0; i < p->ninit; i++)
		p->init[i].ncpus = pn_cpus_allowed(p->init[i].cpus, p->init[i].ncpus);
	p->bufs = pn_xcalloc(4 * (size_t)p->ntarget, sizeof(*p->bufs));
	p->cells = pn_xcalloc((size_t)p->ninit * (size_t)p->ntarget, sizeof(*p->cells));
	make_tables(w, p);
	for (int i = 0; !ret && i < p->ninit; i++) {
		char lab[16];

		if (!p->init[i].ncpus || (ret = pn_pin_thread(p->init[i].cpus[0])) ||
		    (ret = pn_chase_reference_ns(L1_REF_BYTES, (size_t)p->samples, p->sample_ms,
						 &p->init[i].l1_ns)))
			continue;
		snprintf(lab, sizeof(lab), "src=%d", p->init[i].node);
		pn_wl_metric(w, "l1_latency_ns", lab, p->init[i].l1_ns);
	}
	for (int j = 0; !ret && j < p->ntarget && !pn_wl_should_stop(w); j++)
		ret = measure_target(w, p, j);
	notes(w, p);
	report(w, p);
	return ret;
}

static void latency_teardown(struct pn_wl *w)
{
	struct lat_priv *p = w->priv;

	if (!p)
		return;
	for (int b = 0; p->bufs && b < 4 * p->ntarget; b++)
		pn_nodebuf_free(&p->bufs[b]);
	free(p->bufs);
	free(p->cells);
	free(p->init);
	free(p->targets);
	free(p);
	w->priv = NULL;
}

const struct pn_workload pn_workload_latency = {
	.name = "latency",
	.summary = "idle and loaded latency, bandwidth, initiator x target, beside HMAT",
	.opts = latency_opts,
	.metrics = latency_metrics,
	.explicit_alloc = true,
	.supported = latency_supported,
	.setup = latency_setup,
	.run = latency_run,
	.teardown = latency_teardown,
};
