// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf.c - event collector: the page allocator's tracepoints on every online
 * CPU through libperf, page-exact and attributed.
 *
 * Events: kmem:mm_page_alloc and kmem:mm_page_free (every free passes
 * free_pages_prepare(), so mm_page_free_batched and mm_page_pcpu_drain
 * would count pages twice and are left out), and the reference series'
 * kmem:mm_private_alloc / kmem:mm_private_skip where the kernel has them.
 * Samples carry PERF_SAMPLE_RAW|TID|TIME|CPU; every field is located by its
 * name in the tracepoint's format file (libtraceevent, core/tpfmt.c).
 *
 * A reader thread polls the rings (one per CPU, woken at a watermark),
 * merges them back into time order (core/perfring.c) and accounts every page
 * by node (pfn -> node from the memory-block layout, reloaded every
 * pfnmap_refresh and whenever a pfn falls in no known block) in
 * core/pageacct.c.  phase_end() drains the rings up to that moment.
 *
 * Lost data: PERF_RECORD_LOST records per CPU and PERF_FORMAT_LOST per event
 * and CPU; any loss in a phase makes every private node's event verdict
 * inconclusive (a lost event could have touched any node).
 *
 * Needs root (or CAP_PERFMON; with neither, perf_event_paranoid must be -1
 * for raw tracepoint samples), tracefs (mounted at /sys/kernel/tracing when
 * absent), and libperf at build time (make deps).
 *
 * For the runner: open() after the roles are known (option nodes, default
 * "private": with no private node it only counts); start() once; call
 * phase_begin() after the phase's processes exist but before they allocate
 * (a declared explicit workload's pid, and what it forks afterwards, makes
 * explicit pages), and phase_end() while they still hold their memory (the
 * moment of the counter snapshot).  phase_end() fills one pn_event_node per
 * tracked node (valid until the next phase_end() or close()) and hands over
 * rep->details: per node the totals, by_kind (gfp decoded, order,
 * migratetype), by_process (pid, comm), examples, the series' events, and
 * "counters" (event net pages against the MemUsed delta); "lost" per CPU
 * and per event.  sample() gives a series: events, lost_events,
 * alloc_pages, free_pages, unknown_node_pages (cumulative).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "pageacct.h"
#include "perfring.h"
#include "pfnnode.h"
#include "pgdecode.h"
#include "procfs.h"
#include "tpfmt.h"
#include "workload.h"

static const char *const filter_choices[] = { "auto", "none", NULL };

static const struct pn_opt perf_opts[] = {
	{ "nodes", PN_OPT_NODES, "private", "nodes whose pages are classified and tracked" },
	{ "ring_pages", PN_OPT_INT, "2048", "ring buffer data pages per CPU (power of two)", NULL,
	  8, 65536 },
	{ "wakeup", PN_OPT_SIZE, "512K", "wake the reader when a ring holds this much", NULL, 0,
	  0 },
	{ "examples", PN_OPT_INT, "8", "first N general allocations kept per node", NULL, 0, 1000 },
	{ "pfnmap_refresh", PN_OPT_DURATION, "1s", "reload the pfn -> node map this often" },
	{ "filter", PN_OPT_ENUM, "auto",
	  "auto: the kernel drops samples of pages on untracked nodes (their totals are then "
	  "not reported); none: sample every page",
	  filter_choices },
	{ "series_events", PN_OPT_BOOL, "true",
	  "also mm_private_alloc/mm_private_skip where the kernel has them" },
	{ NULL },
};

struct perfcoll {
	char tracefs[4096];
	struct pn_pgdec dec;
	struct pn_pfnnode map;
	uint64_t refresh_ns, last_refresh_ns, last_miss_ns;
	struct pn_nodeset nodes;
	struct pn_pgacct *acct;
	struct pn_perford ord;
	struct pn_perfring *ring;
	size_t nrings;
	pthread_t thr;
	bool thr_started;
	int stop; /* __atomic: close() asks the reader to end */
	pthread_mutex_t lock;
	uint64_t *lost_rec; /* per ring: PERF_RECORD_LOST totals */
	uint64_t lost_samples, malformed, unknown_tp, events;
	uint64_t lost_begin;	   /* lost in all at phase begin */
	uint64_t *lost_begin_ring; /* and per ring */
	int64_t used_begin[PN_MAX_NODES];
	struct cJSON *params_obj; /* defaults when the runner gave none */
	bool use_filter;
	char filter[4096]; /* the kernel-side filter in force, "" = none */
	int64_t *row_cache;
};

/* ---- where it can run ---- */

static int perf_supported(const struct pn_env *env, char *why, size_t whylen)
{
	uint64_t paranoid = 0;
	char t[4096];
	bool root = env ? env->is_root : geteuid() == 0;

#ifndef PN_HAVE_LIBPERF
	snprintf(why, whylen, "built without libperf/libtraceevent (run make deps, then rebuild)");
	return -ENOSYS;
#endif
	if (pn_read_text("/proc/sys/kernel/perf_event_paranoid", t, sizeof(t)) > 0)
		paranoid = (uint64_t)strtoll(t, NULL, 10);
	if (!root && (int64_t)paranoid > -1) {
		snprintf(why, whylen,
			 "raw tracepoint samples need root or CAP_PERFMON, or perf_event_paranoid "
			 "-1 (it is %lld)",
			 (long long)(int64_t)paranoid);
		return -EPERM;
	}
	if (pn_tracefs_find(t, sizeof(t), root)) {
		snprintf(why, whylen, "no tracefs with kmem events under %s/sys/kernel/tracing%s",
			 pn_sysroot(),
			 root ? " (mounting it failed)" : " (not root: cannot mount)");
		return -ENOENT;
	}
	return 0;
}

/* ---- the hot path: records -> events -> accounting ---- */

/* Reload the pfn map; when it changed, the kernel filter follows it. */
static int map_refresh(struct perfcoll *p)
{
	char f[sizeof(p->filter)];
	int ret = pn_pfnnode_refresh(&p->map);

	if (ret <= 0 || !p->use_filter || !p->ring)
		return ret;
	if (pn_pfnnode_filter(&p->map, &p->nodes, "pfn", f, sizeof(f)) < 0)
		f[0] = '\0'; /* too many ranges: sample everything */
	if (strcmp(f, p->filter) != 0) {
		/* events 0 and 1 are mm_page_alloc and mm_page_free */
		if (pn_perfring_filter(p->ring, 0, f) || pn_perfring_filter(p->ring, 1, f))
			pn_warn("perf: kernel filter \"%s\" refused; sampling every page", f);
		snprintf(p->filter, sizeof(p->filter), "%s", f);
	}
	return ret;
}

static int node_of(struct perfcoll *p, uint64_t pfn)
{
	int node = pn_pfnnode_lookup(&p->map, pfn);

	if (node == PN_PFNNODE_UNKNOWN) {
		/* a block hot-added since the last reload?  (at most every 100 ms) */
		uint64_t now = pn_now_ns();

		if (now - p->last_miss_ns > 100000000ULL) {
			p->last_miss_ns = now;
			if (map_refresh(p) > 0)
				node = pn_pfnnode_lookup(&p->map, pfn);
		}
	}
	return node;
}

static void decode_sample(struct perfcoll *p, size_t ring, const struct pn_perfrec *r)
{
	struct pn_pgev ev = { .time_ns = r->time_ns, .pid = r->pid, .cpu = r->cpu };
	int ret = pn_pgdec_decode(&p->dec, r->raw, r->raw_size, &ev);
	bool page = ev.kind == PN_PGEV_ALLOC || ev.kind == PN_PGEV_FREE;

	if (ret) {
		/* truncated: counted, never read past its end */
		(*(ret == -ENOENT ? &p->unknown_tp : &p->malformed))++;
		return;
	}
	if (page && ev.pfn != UINT64_MAX)
		ev.node = node_of(p, ev.pfn);
	if (page && !pn_pgacct_tracked(p->acct, ev.node)) {
		pn_pgacct_apply(p->acct, &ev); /* only per-node totals: any order */
	} else {
		*(struct pn_pgev *)pn_perford_push(&p->ord, ring) = ev;
		if (page)
			pn_pgacct_prefetch(p->acct, ev.node, ev.pfn);
	}
	p->events++;
}

static int on_record(void *arg, size_t ring, const struct pn_perfrec *r)
{
	struct perfcoll *p = arg;
	struct pn_pgev *e;

	switch (r->type) {
	case PERF_RECORD_SAMPLE: decode_sample(p, ring, r); break;
	case PERF_RECORD_LOST: p->lost_rec[ring] += r->lost; break;
	case PERF_RECORD_LOST_SAMPLES: p->lost_samples += r->lost; break;
	case PERF_RECORD_COMM:
		if (r->pid == r->tid)
			pn_pgacct_comm(p->acct, r->pid, r->comm);
		break;
	case PERF_RECORD_FORK:
		if (r->pid == r->ppid)
			break; /* a thread */
		e = pn_perford_push(&p->ord, ring);
		memset(e, 0, sizeof(*e));
		e->time_ns = r->time_ns;
		e->kind = PN_PGEV_FORK;
		e->pid = r->pid;
		e->pfn = r->ppid;
		break;
	case 0: p->malformed++; break;
	default: break;
	}
	return 0;
}

static void apply_one(void *arg, const void *item)
{
	struct perfcoll *p = arg;

	pn_pgacct_apply(p->acct, item);
}

/*
 * Read every ring and account everything stamped before the read began, or,
 * at a phase boundary (sync), everything read.  The cut-off keeps the merge
 * in time order while other CPUs may still be writing; at a boundary the
 * phase's processes have reported that they are done (or not yet begun), so
 * every record of theirs is in what was read, and a record stamped at or a
 * little after t0 (the perf clock and clock_gettime() read the clocksource
 * at different moments; on a coarse one they tie) must not be left pending
 * for the next phase.  Seen in a TCG guest: the last of 4096 pages missing.
 */
static void drain(struct perfcoll *p, bool sync)
{
	uint64_t t0 = pn_now_ns();

	(void)pn_perfring_read(p->ring, on_record, p);
	pn_perford_flush(&p->ord, sync ? UINT64_MAX : t0, apply_one, p);
	if (t0 - p->last_refresh_ns >= p->refresh_ns) {
		p->last_refresh_ns = t0;
		(void)map_refresh(p);
	}
}

static void *reader(void *arg)
{
	struct perfcoll *p = arg;

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		(void)pn_perfring_poll(p->ring, 100);
		pthread_mutex_lock(&p->lock);
		drain(p, false);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* ---- lost data ---- */

/*
 * Lost samples so far, per ring (CPU) in ring_lost[] if given, and in all:
 * per CPU the larger of the two sources (PERF_RECORD_LOST is written only
 * once a later record fits; PERF_FORMAT_LOST, per event, is immediate).
 * details gets both sources, per CPU and per event.
 */
static uint64_t lost_total(struct perfcoll *p, uint64_t *ring_lost, cJSON *details)
{
	cJSON *pc = details ? cJSON_CreateArray() : NULL,
	      *pe = details ? cJSON_CreateObject() : NULL;
	uint64_t total = p->lost_samples;

	for (size_t i = 0; pe && i < PN_TP_N; i++)
		if (p->dec.td[i].present)
			cJSON_AddArrayToObject(pe, pn_pgdec_names[i]);
	for (size_t r = 0; r < p->nrings; r++) {
		uint64_t fmt = 0;

		for (size_t ev = 0, i = 0; i < PN_TP_N; i++) {
			uint64_t count, lost = 0, id;

			if (!p->dec.td[i].present)
				continue;
			if (!pn_perfring_counts(p->ring, ev++, r, &count, &lost, &id))
				fmt += lost;
			if (pe)
				cJSON_AddItemToArray(cJSON_GetObjectItem(pe, pn_pgdec_names[i]),
						     cJSON_CreateNumber((double)lost));
		}
		if (pc) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddNumberToObject(o, "cpu", pn_perfring_ring_cpu(p->ring, r));
			cJSON_AddNumberToObject(o, "lost_records", (double)p->lost_rec[r]);
			cJSON_AddNumberToObject(o, "format_lost", (double)fmt);
			cJSON_AddItemToArray(pc, o);
		}
		fmt = fmt > p->lost_rec[r] ? fmt : p->lost_rec[r];
		if (ring_lost)
			ring_lost[r] = fmt;
		total += fmt;
	}
	if (details) {
		cJSON *o = cJSON_AddObjectToObject(details, "lost");

		cJSON_AddNumberToObject(o, "lost_samples_records", (double)p->lost_samples);
		cJSON_AddItemToObject(o, "per_cpu", pc);
		cJSON_AddItemToObject(o, "per_event_per_cpu", pe);
	}
	return total;
}

/* Why the events cannot clear the nodes: "57 events lost on CPU 1". */
static void inconclusive_reasons(struct perfcoll *p, const uint64_t *ring_lost,
				 struct pn_event_report *rep)
{
	cJSON *arr = cJSON_AddArrayToObject(rep->details, "inconclusive_reasons");
	const cJSON *unknown = cJSON_GetObjectItem(rep->details, "unknown_node_pages");
	char why[128];

	for (size_t r = 0; r < p->nrings; r++) {
		uint64_t d = ring_lost[r] - p->lost_begin_ring[r];

		if (!d)
			continue;
		snprintf(why, sizeof(why), "%llu events lost on CPU %d", (unsigned long long)d,
			 pn_perfring_ring_cpu(p->ring, r));
		cJSON_AddItemToArray(arr, cJSON_CreateString(why));
	}
	if (cJSON_GetNumberValue(unknown) > 0) {
		snprintf(why, sizeof(why), "%.0f pages in no known memory block",
			 cJSON_GetNumberValue(unknown));
		cJSON_AddItemToArray(arr, cJSON_CreateString(why));
	}
}

/* ---- counters beside the events ---- */

static void used_snapshot(const struct perfcoll *p, int64_t *used)
{
	struct pn_nodemem m;
	int node;

	(void)pn_stat_refresh(); /* exact node counters where we may (root) */
	pn_nodeset_for_each (node, &p->nodes)
		used[node] = pn_nodemem_read(node, &m) ? INT64_MIN : m.used;
}

/* Event net pages against the node's MemUsed delta, each with its source. */
static void reconcile(struct perfcoll *p, const struct pn_event_report *rep)
{
	static int64_t used_end[PN_MAX_NODES];
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(rep->details, "private_nodes");
	int64_t page = (int64_t)p->map.page_bytes;
	cJSON *o;
	size_t i = 0;

	used_snapshot(p, used_end);
	cJSON_ArrayForEach (o, arr) {
		const struct pn_event_node *n = &rep->nodes[i++];
		cJSON *r = cJSON_AddObjectToObject(o, "counters");
		int64_t d;

		if (used_end[n->node] == INT64_MIN || p->used_begin[n->node] == INT64_MIN)
			continue;
		d = (used_end[n->node] - p->used_begin[n->node]) / page;
		cJSON_AddStringToObject(r, "source", "nodeN/meminfo MemUsed (after stat_refresh)");
		cJSON_AddNumberToObject(r, "used_delta_pages", (double)d);
		cJSON_AddNumberToObject(r, "event_net_pages", (double)n->net_pages);
		/* pages on per-CPU lists are used for the counters, free for the events */
		cJSON_AddNumberToObject(r, "event_minus_counter_pages", (double)(n->net_pages - d));
	}
}

/* ---- collector ops ---- */

static int resolve_params(struct pn_coll *c, struct perfcoll *p)
{
	const struct pn_roles *roles;
	const char *nodes;

	if (!c->params.obj) {
		int ret = pn_params_resolve(perf_opts, NULL, "perf", "$", &p->params_obj);

		if (ret)
			return ret;
		c->params.opts = perf_opts;
		c->params.obj = p->params_obj;
	}
	nodes = pn_param_str(&c->params, "nodes");
	pn_nodeset_zero(&p->nodes);
	roles = c->env ? c->env->roles : NULL;
	/* no node plays the private role: counting only */
	if (!strcmp(nodes, "private") && (!roles || pn_nodeset_empty(&roles->private_nodes)))
		return 0;
	if (roles)
		return pn_param_nodes(&c->params, "nodes", roles, &p->nodes);
	return pn_nodeset_parse(&p->nodes, nodes);
}

static int open_formats(struct pn_coll *c, struct perfcoll *p)
{
	int ret = pn_tracefs_find(p->tracefs, sizeof(p->tracefs), true);

	if (ret)
		return pn_error(ret, "perf: no tracefs with kmem events (mount -t tracefs nodev "
				     "/sys/kernel/tracing)");
	ret = pn_pgdec_load(&p->dec, p->tracefs, pn_param_bool(&c->params, "series_events"));
	return ret ? pn_error(ret, "perf: tracepoint formats unusable") : 0;
}

static int open_rings(struct pn_coll *c, struct perfcoll *p)
{
	struct pn_perfring_cfg rc = {
		.ring_pages = (size_t)pn_param_int(&c->params, "ring_pages"),
		.wakeup_bytes = (uint32_t)pn_param_size(&c->params, "wakeup"),
		.comm_task = true,
	};
	uint64_t ids[PN_TP_N];
	size_t n = 0;
	int ret;

	for (int i = 0; i < PN_TP_N; i++)
		if (p->dec.td[i].present)
			ids[n++] = (uint64_t)p->dec.td[i].id;
	ret = pn_perfring_open(&p->ring, ids, n, &rc);
	if (ret)
		return pn_error(ret,
				"perf: perf_event_open of %zu tracepoints on every CPU: %s "
				"(ring_pages %zu)",
				n, strerror(-ret), rc.ring_pages);
	p->nrings = pn_perfring_nrings(p->ring);
	p->lost_rec = pn_xcalloc(p->nrings ? p->nrings : 1, sizeof(*p->lost_rec));
	p->lost_begin_ring = pn_xcalloc(p->nrings ? p->nrings : 1, sizeof(*p->lost_begin_ring));
	pn_perford_init(&p->ord, p->nrings, sizeof(struct pn_pgev));
	p->use_filter = !strcmp(pn_param_str(&c->params, "filter"), "auto");
	if (p->use_filter &&
	    pn_pfnnode_filter(&p->map, &p->nodes, "pfn", p->filter, sizeof(p->filter)) > 0 &&
	    (pn_perfring_filter(p->ring, 0, p->filter) ||
	     pn_perfring_filter(p->ring, 1, p->filter))) {
		pn_warn("perf: kernel filter refused; sampling every page");
		p->filter[0] = '\0';
	}
	return 0;
}

static void perf_close(struct pn_coll *c);

static int perf_open(struct pn_coll *c)
{
	struct perfcoll *p = pn_xcalloc(1, sizeof(*p));
	struct pn_pgacct_cfg ac = { 0 };
	int ret;

	pthread_mutex_init(&p->lock, NULL);
	c->priv = p;
	ret = resolve_params(c, p);
	if (!ret)
		ret = open_formats(c, p);
	if (!ret)
		ret = pn_pfnnode_load(&p->map);
	if (!ret) {
		ac.private_nodes = p->nodes;
		ac.private_gfp = p->dec.private_gfp;
		ac.nexamples = (size_t)pn_param_int(&c->params, "examples");
		ac.gfp_names = &p->dec.gfp_names;
		ac.skip_reasons = &p->dec.skip_reasons;
		ret = pn_pgacct_new(&p->acct, &ac);
	}
	p->refresh_ns = pn_param_duration_ms(&c->params, "pfnmap_refresh") * 1000000ULL;
	if (!ret)
		ret = open_rings(c, p);
	if (!ret) {
		static const char *const cols[] = { "events", "lost_events", "alloc_pages",
						    "free_pages", "unknown_node_pages" };

		for (size_t i = 0; i < PN_ARRAY_SIZE(cols) && ret >= 0; i++)
			ret = pn_series_add_col(&c->series, cols[i]);
		ret = ret < 0 ? ret : 0;
	}
	if (ret)
		perf_close(c);
	return ret;
}

static int perf_start(struct pn_coll *c)
{
	struct perfcoll *p = c->priv;
	int ret;

	p->last_refresh_ns = pn_now_ns();
	pn_perfring_enable(p->ring);
	ret = pthread_create(&p->thr, NULL, reader, p);
	if (ret) {
		pn_perfring_disable(p->ring);
		return pn_error(-ret, "perf: reader thread: %s", strerror(ret));
	}
	p->thr_started = true;
	return 0;
}

static int perf_phase_begin(struct pn_coll *c, const struct pn_phase_ctx *ctx)
{
	struct perfcoll *p = c->priv;

	pthread_mutex_lock(&p->lock);
	drain(p, true); /* what came before belongs to no phase */
	pn_pgacct_phase_begin(p->acct, ctx);
	p->lost_begin = lost_total(p, p->lost_begin_ring, NULL);
	used_snapshot(p, p->used_begin);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int perf_phase_end(struct pn_coll *c, const struct pn_phase_ctx *ctx,
			  struct pn_event_report *rep)
{
	struct perfcoll *p = c->priv;
	cJSON *lost = cJSON_CreateObject();
	uint64_t total, *ring_lost = pn_xcalloc(p->nrings ? p->nrings : 1, sizeof(*ring_lost));
	int ret;

	(void)ctx;
	pthread_mutex_lock(&p->lock);
	drain(p, true);
	total = lost_total(p, ring_lost, lost);
	ret = pn_pgacct_phase_end(p->acct, (int64_t)(total - p->lost_begin), rep);
	if (!ret) {
		cJSON *l = cJSON_DetachItemFromObject(lost, "lost");

		cJSON_AddNumberToObject(l, "phase_lost", (double)(total - p->lost_begin));
		cJSON_AddNumberToObject(l, "malformed_records", (double)p->malformed);
		cJSON_AddNumberToObject(l, "out_of_order", (double)p->ord.out_of_order);
		cJSON_AddItemToObject(rep->details, "lost", l);
		cJSON_AddNumberToObject(rep->details, "pfnmap_generation", p->map.generation);
		/* with a filter, per_node totals of untracked nodes are not complete */
		cJSON_AddStringToObject(rep->details, "kernel_filter", p->filter);
		inconclusive_reasons(p, ring_lost, rep);
		reconcile(p, rep);
	}
	pthread_mutex_unlock(&p->lock);
	cJSON_Delete(lost);
	free(ring_lost);
	return ret;
}

static int perf_sample(struct pn_coll *c, int64_t *row)
{
	struct perfcoll *p = c->priv;
	struct pn_pgacct_totals t;

	pthread_mutex_lock(&p->lock);
	pn_pgacct_totals(p->acct, &t);
	row[0] = t.events;
	row[1] = (int64_t)lost_total(p, NULL, NULL);
	row[2] = t.alloc_pages;
	row[3] = t.free_pages;
	row[4] = t.unknown_node_pages;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static void perf_close(struct pn_coll *c)
{
	struct perfcoll *p = c->priv;

	if (!p)
		return;
	if (p->thr_started) {
		__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
		pthread_join(p->thr, NULL);
	}
	if (p->ring) {
		pn_perfring_disable(p->ring);
		pn_perfring_close(p->ring);
	}
	pn_pgacct_free(p->acct);
	pn_perford_free(&p->ord);
	pn_pgdec_free(&p->dec);
	pn_pfnnode_free(&p->map);
	free(p->lost_rec);
	free(p->lost_begin_ring);
	if (p->params_obj) {
		cJSON_Delete(p->params_obj);
		c->params.obj = NULL;
	}
	pthread_mutex_destroy(&p->lock);
	free(p);
	c->priv = NULL;
}

const struct pn_collector pn_collector_perf = {
	.name = "perf",
	.summary = "page allocator tracepoints through libperf: every page on a private node, "
		   "classified and attributed; lost events make the node inconclusive",
	.kind = PN_COLL_EVENT,
	.opts = perf_opts,
	.supported = perf_supported,
	.open = perf_open,
	.sample = perf_sample,
	.start = perf_start,
	.phase_begin = perf_phase_begin,
	.phase_end = perf_phase_end,
	.close = perf_close,
};
