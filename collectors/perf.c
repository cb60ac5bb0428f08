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
 * name in the tracepoint's format file (libtraceevent, collectors/perf/tpfmt.c).
 *
 * A reader thread polls the rings (one per CPU, woken at a watermark),
 * merges them back into time order (collectors/perf/perfring.c) and accounts every page
 * by node (pfn -> node from the memory-block layout, reloaded every
 * pfnmap_refresh and whenever a pfn falls in no known block) in
 * collectors/perf/pgacct.c.  phase_end() drains the rings up to that moment.
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
#include <sys/stat.h>
#include <unistd.h>

#include "core/api/collector.h"
#include "collectors/perf/pgacct.h"
#include "collectors/perf/pgowner.h"
#include "collectors/perf/perfcoll_int.h"
#include "collectors/perf/perfring.h"
#include "core/sys/pfnnode.h"
#include "collectors/perf/pgdecode.h"
#include "core/sys/procfs.h"
#include "collectors/perf/tpfmt.h"
#include "core/api/workload.h"

static const char *const filter_choices[] = { "auto", "none", NULL };

/* ring_pages: the kernel maps a ring of 2^n data pages */
static int check_pow2(const char *s, char *why, size_t whylen)
{
	unsigned long long v = strtoull(s, NULL, 10);

	if (v && !(v & (v - 1)))
		return 0;
	snprintf(why, whylen, "is not a power of two");
	return -EINVAL;
}

static const struct pn_opt perf_opts[] = {
	{ "nodes", PN_OPT_NODES, "private", "nodes whose pages are classified and tracked" },
	{ "ring_pages", PN_OPT_INT, "2048", "ring buffer data pages per CPU (power of two)", NULL,
	  8, 65536, check_pow2 },
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
	{ "page_owner", PN_OPT_INT, "8",
	  "top N allocation stacks per tracked node from page_owner where the kernel has it "
	  "on (page_owner=on); 0: off",
	  NULL, 0, 1000 },
	{ NULL },
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

	if (ret > 0)
		p->hit = (struct pn_pfnrange){ 0 }; /* the ranges moved */
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

/* Node of pfn: the range of the last lookup first (a workload's pages come
 * from few ranges), then the map; a miss may be a block hot-added since the
 * last reload (reloaded at most every 100 ms). */
static int node_of(struct perfcoll *p, uint64_t pfn)
{
	const struct pn_pfnrange *r;

	if (pfn - p->hit.start_pfn < p->hit.end_pfn - p->hit.start_pfn)
		return p->hit.node;
	r = pn_pfnnode_find(&p->map, pfn);
	if (!r) {
		uint64_t now = pn_now_ns();

		if (now - p->last_miss_ns > 100000000ULL) {
			p->last_miss_ns = now;
			if (map_refresh(p) > 0)
				r = pn_pfnnode_find(&p->map, pfn);
		}
	}
	if (!r)
		return PN_PFNNODE_UNKNOWN;
	p->hit = *r;
	return r->node;
}

/*
 * Events that need their time order (tracked nodes' pages, forks) pass a
 * short pipeline: the page's state starts loading when the event is decoded
 * and is used PN_PERFCOLL_PIPE events later (a tracked node's state is far
 * larger than the caches).  pipe_put() returns the slot to fill.
 */
static struct pn_pgev *pipe_put(struct perfcoll *p)
{
	struct pn_pgev *e;

	if (p->pipe_n < PN_PERFCOLL_PIPE)
		return &p->pipe[(p->pipe_head + p->pipe_n++) % PN_PERFCOLL_PIPE];
	e = &p->pipe[p->pipe_head];
	pn_pgacct_apply(p->acct, e);
	p->pipe_head = (p->pipe_head + 1) % PN_PERFCOLL_PIPE;
	return e;
}

static void pipe_flush(struct perfcoll *p)
{
	for (; p->pipe_n; p->pipe_n--) {
		pn_pgacct_apply(p->acct, &p->pipe[p->pipe_head]);
		p->pipe_head = (p->pipe_head + 1) % PN_PERFCOLL_PIPE;
	}
}

static void decode_sample(struct perfcoll *p, const struct pn_perfrec *r)
{
	struct pn_pgev ev;
	int ret = pn_pgdec_page(&p->dec, r->raw, r->raw_size, &ev);
	bool page;

	if (ret) {
		/* truncated: counted, never read past its end */
		(*(ret == -ENOENT ? &p->unknown_tp : &p->malformed))++;
		return;
	}
	p->events++;
	page = ev.kind == PN_PGEV_ALLOC || ev.kind == PN_PGEV_FREE;
	if (page && ev.pfn != UINT64_MAX)
		ev.node = node_of(p, ev.pfn);
	if (page && !pn_pgacct_tracked(p->acct, ev.node)) {
		/* only per-node totals, in any order: pfn and order suffice */
		pn_pgacct_count(p->acct, &ev);
		return;
	}
	pn_pgdec_rest(&p->dec, r->raw, &ev);
	ev.time_ns = r->time_ns;
	ev.pid = r->pid;
	ev.cpu = r->cpu;
	*pipe_put(p) = ev;
	if (page)
		pn_pgacct_prefetch(p->acct, ev.node, ev.pfn);
}

/* Records arrive in time order (pn_perfmerge). */
static int on_record(void *arg, size_t ring, const struct pn_perfrec *r)
{
	struct perfcoll *p = arg;
	struct pn_pgev *e;

	switch (r->type) {
	case PERF_RECORD_SAMPLE: decode_sample(p, r); break;
	case PERF_RECORD_LOST: p->lost_rec[ring] += r->lost; break;
	case PERF_RECORD_LOST_SAMPLES: p->lost_samples += r->lost; break;
	case PERF_RECORD_COMM:
		if (r->pid == r->tid)
			pn_pgacct_comm(p->acct, r->pid, r->comm);
		break;
	case PERF_RECORD_FORK:
		if (r->pid == r->ppid)
			break; /* a thread */
		e = pipe_put(p);
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

/*
 * Read every ring and account everything stamped before the read began, or,
 * at a phase boundary (sync), everything read.  The cut-off keeps the merge
 * in time order while other CPUs may still be writing (what is newer stays
 * in its ring for the next round); at a boundary the phase's processes have
 * reported that they are done (or not yet begun), so every record of theirs
 * is in what was read, and a record stamped at or a little after t0 (the
 * perf clock and clock_gettime() read the clocksource at different moments;
 * on a coarse one they tie) must not be left pending for the next phase.
 * Seen in a TCG guest: the last of 4096 pages missing.
 * Not static-inline: tests/bench/perfbench-callgrind.sh counts from here.
 */
__attribute__((noinline)) static void drain(struct perfcoll *p, bool sync)
{
	uint64_t t0 = pn_now_ns();

	(void)pn_perfring_read(p->ring, sync ? UINT64_MAX : t0, on_record, p, &p->merge);
	pipe_flush(p);
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

/* ---- collector ops ---- */

/* page_owner lives in debugfs, which is not mounted everywhere (it is not
 * here): mount it on the live system when /sys/kernel/debug is no mount
 * point of its own (then it is on sysfs's device).  Failing is fine: the
 * page_owner details then say why they are skipped. */
static void debugfs_mount(void)
{
	struct stat d, k;

	if (*pn_sysroot() || pn_exists(PN_PGOWNER_PATH))
		return;
	if (stat("/sys/kernel/debug", &d) || stat("/sys/kernel", &k) || d.st_dev != k.st_dev)
		return;
	(void)pn_mount_temp("debugfs", "/sys/kernel/debug");
}

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
	p->owner_top = (int)pn_param_int(&c->params, "page_owner");
	if (!ret && p->owner_top)
		debugfs_mount();
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
	p->lost_begin = pn_perfcoll_lost(p, p->lost_begin_ring, NULL);
	pn_perfcoll_used(p, p->used_begin);
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

	pthread_mutex_lock(&p->lock);
	drain(p, true);
	total = pn_perfcoll_lost(p, ring_lost, lost);
	ret = pn_pgacct_phase_end(p->acct, (int64_t)(total - p->lost_begin), rep);
	if (!ret) {
		cJSON *l = cJSON_DetachItemFromObject(lost, "lost");

		cJSON_AddNumberToObject(l, "phase_lost", (double)(total - p->lost_begin));
		cJSON_AddNumberToObject(l, "malformed_records", (double)p->malformed);
		cJSON_AddNumberToObject(l, "out_of_order", (double)p->merge.out_of_order);
		cJSON_AddItemToObject(rep->details, "lost", l);
		cJSON_AddNumberToObject(rep->details, "pfnmap_generation", p->map.generation);
		/* with a filter, per_node totals of untracked nodes are not complete */
		cJSON_AddStringToObject(rep->details, "kernel_filter", p->filter);
		pn_perfcoll_reasons(p, ring_lost, rep);
		pn_perfcoll_reconcile(p, rep);
		if (p->owner_top)
			pn_perfcoll_page_owner(p, ctx, rep);
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
	row[1] = (int64_t)pn_perfcoll_lost(p, NULL, NULL);
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
